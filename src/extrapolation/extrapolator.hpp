#pragma once
// Extrapolation of one input signal over the coming communication interval from its past samples
// (seed 002): `zoh`; a fixed CHOPoly predictor `poly:δ,λ,ω`; or `choptrey`, CHOPoly driven by
// CHOPatt (§5):
//   functional context from d_0 = u_0 − u_{−1}, d_{−1} = u_{−1} − u_{−2} against the adaptive
//   threshold γ = ½ max |u_i − u_{i+1}| over the older frame {u_{1−Λ} … u_{−3}} (eq. 9–10),
//   Table 1:  flat → P_{0,1} (frame reset), calm → P_{2,5}, move → P_{0,1}, rest → P_{0,2},
//             take → P_{1,3}, jump → P_{0,1} (frame reset);  |d| = 0 counts as "≤ γ" except in flat;
//   decisional context (eq. 11–13): the ω ∈ Ω = {0, 1/8, 1/4, 1/2, 1, 2} whose prediction of u_0
//   at the previous point was best is used next; if even that one was no better than Γ times ZOH
//   (Δ_best/Δ_worst > Γ, a "cliff"), this interval is ZOH.
// Samples have unit spacing (one per communication point of the receiving system); the result
// is the polynomial in τ ∈ [0, 1] over the coming interval.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "extrapolation/choply.hpp"

namespace cosima::extrapolation {

struct ExtrapolationSpec {
  enum class Kind : std::uint8_t { zoh, poly, choptrey };
  Kind kind = Kind::zoh;
  int degree = 0, frame = 1;   ///< poly: δ, λ
  double weight = 0.0;         ///< poly: ω
  double cliff = 0.9;          ///< choptrey: Γ (eq. 13), 0.7 ≤ Γ < 1
  double fixed_weight = -1.0;  ///< choptrey:ω — ω held fixed instead of chosen in Ω (< 0: dynamic)
  int memory = 16;             ///< choptrey: Λ, the longest frame kept
};

/// "zoh" | "poly:δ,λ,ω" | "choptrey" | "choptrey:ω". Throws Error naming a malformed spec.
ExtrapolationSpec parse_extrapolation(const std::string& text);

enum class SignalContext : std::uint8_t { start, flat, calm, move, rest, take, jump };
std::string_view to_string(SignalContext context);

class SignalExtrapolator {
 public:
  static constexpr std::array<double, 6> kWeights = {0.0, 0.125, 0.25, 0.5, 1.0, 2.0};  ///< Ω

  SignalExtrapolator(ExtrapolationSpec spec, ChopolyCache& cache);
  /// Takes the sample u_0 at a new communication point; returns c_0..c_3 of u(τ) = Σ c_k τ^k.
  Eigen::Vector4d push(double sample);

  /// A discontinuity of the signal at the newest communication point: the samples before it are not
  /// part of the signal after it, so the next push starts a new frame (a constant, then rising
  /// degrees as samples come).
  void restart();

  [[nodiscard]] SignalContext context() const { return context_; }
  [[nodiscard]] bool cliff() const { return cliff_; }
  /// Zero-order hold: push returns the sample as a constant and keeps nothing.
  [[nodiscard]] bool holds() const { return spec_.kind == ExtrapolationSpec::Kind::zoh; }
  [[nodiscard]] double weight() const { return weight_; }

 private:
  /// Π_{δ,λ,ω} u_λ over the newest λ samples.
  Eigen::Vector4d fit(int degree, int frame, double weight);

  ExtrapolationSpec spec_;
  ChopolyCache* cache_;
  /// The newest samples, a ring of fixed size (no allocation per push): samples_[(head_ + back) % size].
  [[nodiscard]] double recent(int back) const {
    return samples_[(head_ + static_cast<std::size_t>(back)) % samples_.size()];
  }
  std::vector<double> samples_;
  std::size_t head_ = 0;            ///< where the newest sample is
  int valid_ = 0;                   ///< samples since the last frame reset
  std::vector<double> weights_;     ///< Ω, or the fixed ω
  std::vector<double> candidates_;  ///< last point's predictions of u_0, per ω in weights_
  bool have_candidates_ = false;
  SignalContext context_ = SignalContext::start;
  bool cliff_ = false;
  double weight_ = 0.0;  ///< ω in use
  Eigen::VectorXd frame_;
};

/// The measure of seed 002 Table 2: a signal sampled every h over [0, horizon); after each sample
/// the extrapolation over the next interval is compared with the signal at `checks` points (h/10
/// for 10) and the absolute errors are summed.
double cumulative_extrapolation_error(const std::string& spec, const std::function<double(double)>& signal, double h,
                                      double horizon, int checks = 10);

}  // namespace cosima::extrapolation
