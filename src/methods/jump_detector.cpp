#include "methods/jump_detector.hpp"

#include <algorithm>
#include <cmath>

namespace cosima::methods {

void JumpDetector::reset(const Eigen::VectorXd& values) {
  scale_ = values.cwiseAbs();
  typical_gap_.setConstant(values.size(), -1.0);
  suspicion_ = {};
}

void JumpDetector::observe(const Eigen::VectorXd& values) {
  if (scale_.size() != values.size()) {
    reset(values);
    return;
  }
  scale_ = scale_.cwiseMax(values.cwiseAbs());
}

void JumpDetector::observe_segment(ConstVectorView values, Eigen::Index offset) {
  if (offset + values.size() > scale_.size()) return;
  double* scale = scale_.data() + offset;  // once per step and system: a plain loop
  for (Eigen::Index k = 0; k < values.size(); ++k) scale[k] = std::max(scale[k], std::abs(values(k)));
}

int JumpDetector::jumped(const Vector& u0, const Vector& du0, const Vector& u1, const Vector& du1, double h) const {
  if (!options_.enabled()) return -1;
  for (Eigen::Index g = 0; g < u1.size(); ++g) {
    const double change = u1(g) - u0(g);
    const double defect = change - 0.5 * h * (du0(g) + du1(g));  // the trapezoidal rule's
    const double slope = std::min(std::abs(du0(g)), std::abs(du1(g)));
    if (std::abs(change) > floor(g, u1(g)) && std::abs(defect) > options_.defect_ratio * std::abs(change) &&
        std::abs(change) > options_.slope_factor * h * slope) {
      return static_cast<int>(g);
    }
  }
  return -1;
}

bool JumpDetector::estimate_jumped(ConstVectorView real, ConstVectorView estimate, Eigen::Index offset) {
  if (!options_.enabled() || offset + real.size() > typical_gap_.size()) return false;
  bool jumped = false;
  for (Eigen::Index k = 0; k < real.size(); ++k) {
    const double gap = std::abs(real(k) - estimate(k));
    double& typical = typical_gap_(offset + k);
    if (typical >= 0.0 && gap > floor(offset + k, real(k)) && gap > options_.gap_outlier * typical) {
      jumped = true;  // not part of the typical gap
    } else {
      typical = std::max(gap, 0.5 * typical);
    }
  }
  return jumped;
}

bool JumpDetector::located(double t, double h) const { return h <= options_.resolution * std::max(1.0, std::abs(t)); }

void JumpDetector::suspect(int signal, const Vector& u0, const Vector& u1, double until, double h) {
  suspicion_ = {signal, std::abs(u1(signal) - u0(signal)), until, h};
}

int JumpDetector::contains(const Vector& u0, const Vector& u1) const {
  const int g = suspicion_.signal;
  return g >= 0 && std::abs(u1(g) - u0(g)) > 0.5 * suspicion_.size ? g : -1;
}

double JumpDetector::close_suspicion() {
  const double step = suspicion_.step;
  suspicion_ = {};
  return step;
}

}  // namespace cosima::methods
