#include "extrapolation/extrapolator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::extrapolation {

ExtrapolationSpec parse_extrapolation(const std::string& text) {
  ExtrapolationSpec spec;
  if (text == "zoh") return spec;
  if (text == "choptrey") {
    spec.kind = ExtrapolationSpec::Kind::choptrey;
    return spec;
  }
  if (text.starts_with("choptrey:")) {
    spec.kind = ExtrapolationSpec::Kind::choptrey;
    try {
      std::size_t used = 0;
      spec.fixed_weight = std::stod(text.substr(9), &used);
      if (used == text.size() - 9 && spec.fixed_weight >= 0.0) return spec;
    } catch (const std::exception&) {
    }
  }
  if (text.starts_with("poly:")) {
    spec.kind = ExtrapolationSpec::Kind::poly;
    const std::string body = text.substr(5);
    const auto first = body.find(','), second = body.find(',', first == std::string::npos ? first : first + 1);
    bool ok = first != std::string::npos && second != std::string::npos;
    if (ok) {
      const char* b = body.data();
      ok = std::from_chars(b, b + first, spec.degree).ec == std::errc() &&
           std::from_chars(b + first + 1, b + second, spec.frame).ec == std::errc();
      try {
        std::size_t used = 0;
        spec.weight = std::stod(body.substr(second + 1), &used);
        ok = ok && used == body.size() - second - 1;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (ok && spec.degree >= 0 && spec.frame > spec.degree && spec.degree <= 3 && spec.weight >= 0.0) return spec;
  }
  throw Error(fmt::format(
      "extrapolation '{}': expected zoh, choptrey, choptrey:ω or poly:δ,λ,ω with 0 ≤ δ ≤ 3, λ > δ, ω ≥ 0", text));
}

std::string_view to_string(SignalContext context) {
  switch (context) {
    case SignalContext::start: return "start";
    case SignalContext::flat: return "flat";
    case SignalContext::calm: return "calm";
    case SignalContext::move: return "move";
    case SignalContext::rest: return "rest";
    case SignalContext::take: return "take";
    case SignalContext::jump: return "jump";
  }
  return "unknown";
}

SignalExtrapolator::SignalExtrapolator(ExtrapolationSpec spec, ChopolyCache& cache) : spec_(spec), cache_(&cache) {
  const int memory =
      spec_.kind == ExtrapolationSpec::Kind::choptrey ? std::max(spec_.memory, 5) : std::max(spec_.frame, 1);
  samples_.assign(static_cast<std::size_t>(memory), 0.0);
  if (spec_.kind == ExtrapolationSpec::Kind::choptrey && !(spec_.cliff >= 0.7 && spec_.cliff < 1.0)) {
    throw Error(fmt::format("the cliff threshold Γ = {} must lie in [0.7, 1) (seed 002 eq. 13)", spec_.cliff));
  }
  if (spec_.fixed_weight >= 0.0) {
    weights_ = {spec_.fixed_weight};
  } else {
    weights_.assign(kWeights.begin(), kWeights.end());
  }
  candidates_.assign(weights_.size(), 0.0);
  weight_ = weights_.front();
}

Eigen::Vector4d SignalExtrapolator::fit(int degree, int frame, double weight) {
  frame_.resize(frame);
  for (int i = 0; i < frame; ++i) frame_(i) = recent(i);
  Eigen::Vector4d c = Eigen::Vector4d::Zero();
  c.head(degree + 1) = cache_->matrix(degree, frame, weight) * frame_;  // eq. 8
  return c;
}

void SignalExtrapolator::restart() {
  valid_ = 0;
  have_candidates_ = false;
  context_ = SignalContext::start;
  cliff_ = false;
}

Eigen::Vector4d SignalExtrapolator::push(double sample) {
  if (spec_.kind == ExtrapolationSpec::Kind::zoh) return {sample, 0.0, 0.0, 0.0};  // no history needed
  const int memory = static_cast<int>(samples_.size());
  head_ = (head_ + samples_.size() - 1) % samples_.size();
  samples_[head_] = sample;
  valid_ = std::min(valid_ + 1, memory);
  switch (spec_.kind) {
    case ExtrapolationSpec::Kind::zoh: break;
    case ExtrapolationSpec::Kind::poly: {
      const int frame = std::min(spec_.frame, valid_);
      return fit(std::min(spec_.degree, frame - 1), frame, spec_.weight);
    }
    case ExtrapolationSpec::Kind::choptrey: break;
  }
  const auto u = [&](int back) { return recent(back); };  // u_{−back}
  // decisional context: how did last point's predictions do? (eq. 11–13)
  cliff_ = false;
  if (have_candidates_ && valid_ >= 2) {
    const double worst = std::abs(sample - u(1));
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t w = 0; w < weights_.size(); ++w) {
      const double miss = std::abs(sample - candidates_[w]);
      if (miss < best) {
        best = miss;
        weight_ = weights_[w];
      }
    }
    const double rho = worst > 0.0 ? best / worst : (best > 0.0 ? std::numeric_limits<double>::infinity() : 0.0);
    cliff_ = rho > spec_.cliff;
  }
  // functional context (Table 1)
  int degree = 0, frame = 1;
  bool reset = false;
  context_ = SignalContext::start;
  if (valid_ >= 3) {
    const double d0 = sample - u(1), d1 = u(1) - u(2);
    double gamma = 0.0;  // eq. 10, over the older part of the frame
    for (int i = 3; i < valid_; ++i) gamma = std::max(gamma, std::abs(u(i) - u(i - 1)));
    gamma *= 0.5;
    const bool small0 = std::abs(d0) <= gamma, small1 = std::abs(d1) <= gamma;
    if (d0 == 0.0 && d1 == 0.0) {
      context_ = SignalContext::flat;
      reset = true;
    } else if (small1 && small0) {
      context_ = SignalContext::calm;
      degree = 2;
      frame = 5;
    } else if (small1) {
      context_ = SignalContext::move;
    } else if (small0) {
      context_ = SignalContext::rest;
      frame = 2;
    } else if (d0 * d1 > 0.0) {
      context_ = SignalContext::take;
      degree = 1;
      frame = 3;
    } else {
      context_ = SignalContext::jump;
      reset = true;
    }
  }
  frame = std::min(frame, valid_);
  degree = std::min(degree, frame - 1);
  // the candidates of the next point: this context's polynomial at τ = 1, for every ω ∈ Ω
  for (std::size_t w = 0; w < weights_.size(); ++w) candidates_[w] = fit(degree, frame, weights_[w]).sum();
  have_candidates_ = true;
  Eigen::Vector4d coefficients = cliff_ ? Eigen::Vector4d(sample, 0.0, 0.0, 0.0) : fit(degree, frame, weight_);
  if (reset) valid_ = 1;  // after flat or jump the older samples no longer describe the signal
  return coefficients;
}

double cumulative_extrapolation_error(const std::string& spec, const std::function<double(double)>& signal, double h,
                                      double horizon, int checks) {
  ChopolyCache cache;
  SignalExtrapolator extrapolator(parse_extrapolation(spec), cache);
  double total = 0.0;
  const auto samples = static_cast<int>(std::floor(horizon / h + 1e-9));
  for (int n = 0; n < samples; ++n) {
    const Eigen::Vector4d c = extrapolator.push(signal(n * h));
    for (int m = 1; m <= checks; ++m) {
      const double tau = static_cast<double>(m) / checks;
      const double predicted = c(0) + tau * (c(1) + tau * (c(2) + tau * c(3)));
      total += std::abs(predicted - signal((n + tau) * h));
    }
  }
  return total;
}

}  // namespace cosima::extrapolation
