#pragma once
// Communication-step controllers: after each completed macro-step of size h with error measure
// ε, the next step. A variable-step method owns one; a new control law implements this interface.
#include <memory>

namespace cosima::methods {

class StepSizeController {
 public:
  virtual ~StepSizeController() = default;
  /// Start of a run with the first step h_1.
  virtual void reset(double h_first) = 0;
  /// The step after a completed step of size h whose controlled error was ε.
  [[nodiscard]] virtual double next(double h, double error) = 0;
};

/// Constant step (the fixed-step variant of a variable-step method).
class FixedStepController final : public StepSizeController {
 public:
  void reset(double h_first) override { h_ = h_first; }
  [[nodiscard]] double next(double /*h*/, double /*error*/) override { return h_; }

 private:
  double h_ = 0.0;
};

/// PI control of log ε (seed 004 eq. 39, after Gustafsson's explicit controller):
///   e_k = log tol − log ε_k,   I_k = I_{k−1} + K_I e_k,   H_{k+1} = exp(I_k + K_P e_k),
/// limited to θ_max·H_k and to [h_min, h_max]; when limited, I_k absorbs the difference
/// (I_k += log H_limited − log H, anti-windup). I_1 = log H_1.
class PiController final : public StepSizeController {
 public:
  struct Options {
    double tol = 1e-2;
    double kp = 0.13;
    double ki = 1.0 / 15.0;
    double theta_max = 2.0;
    double h_min = 0.0;  ///< 0: no lower limit
    double h_max = 0.0;  ///< 0: no upper limit
  };
  explicit PiController(Options options);
  void reset(double h_first) override;
  [[nodiscard]] double next(double h, double error) override;

 private:
  Options options_;
  double integral_ = 0.0;  ///< I_k
};

}  // namespace cosima::methods
