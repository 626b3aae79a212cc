#pragma once
// Capability emulation (DESIGN §2, System contract): one decorator that lets a method run on a
// system lacking what the method reads, by standing in for it from what the system has — at a
// stated cost, never silently:
//
//   interpolate_inputs   The macro-step [0, h] is cut into K equal sub-steps (K = `substeps` when
//                        the system accepts variable steps, else 1), δ = h/K. Over sub-step k the
//                        system holds c_k, chosen so that the held signal has the first J =
//                        min(K, 4) moments of the input polynomial p over the macro-step:
//                            Σ_k c_k ∫_{kδ}^{(k+1)δ} s^j ds = ∫_0^h s^j p(s) ds,   j = 0..J−1,
//                        the least change to the sub-step means that does so (K = 1: the mean).
//                        For a linear system x' = Ax + Bu the state at h is e^{Ah}x(0) +
//                        Σ_j e^{Ah}(−A)^j/j! B ∫ s^j u(s) ds: the terms j < J are exact, the first
//                        error is (A^J/J!)·B·∫ s^J (p − c) ds = O(h^{J+1}·δ·|p'|) per macro-step —
//                        order J+1 in h (the plain means gave O(δ²)). Inside the macro-step the
//                        state is off by O(h·δ·|p'|) for K ≤ 4, by O(δ²) beyond; its end is
//                        accurate. The weights c_k(τ^d) are solved once (for K = 4 the held values
//                        stay within the range of p for a cubic).
//                        At every sub-step end the inputs are set to p((k+1)δ), so outputs with
//                        direct feedthrough see the input of the contract ("inputs evaluated at
//                        time()").
//   output_derivatives   From one of two sources (EmulationOptions::derivatives):
//                        substeps  the outputs at the K+1 sub-step points of the macro-step just
//                                  taken; d^d y/dt^d at its end is the derivative of their
//                                  interpolation polynomial (Fornberg weights on equispaced nodes):
//                                  order K+1−d in δ for exact outputs, derivatives up to order
//                                  min(K, 3). With K = 1 that is (y₁ − y₀)/h only, first order.
//                        history   the outputs at the last p+1 ≤ 4 communication points (the ends of
//                                  the macro-steps taken, with their times: steps may vary; the
//                                  oldest is the start of the run or of the step after an event);
//                                  the derivatives at the newest point of their interpolation
//                                  polynomial (Fornberg weights on those nodes): d^d y/dt^d of order
//                                  p+1−d in the step for exact outputs — with 4 points y' is third,
//                                  y'' second, y''' first order. No extra integration.
//                        By default (automatic) history when K = 1 (a system that cannot vary its
//                        step), else substeps — also with moment-matched inputs, whose sub-step
//                        points are off by O(h·δ): on B4 under IFOSMONDI-JFM at δt = 1e-3 they
//                        still give 1.2e-7 where the history gives 6.9e-7 (native: 2.8e-8). A history holds what a
//                        smooth output did before: an event clears it (a jump is not differentiable) and it refills
//                        from the right limits, the order growing again with the points. While it fills (p < 3: the
//                        first steps, or after an event) the derivatives of order ≤ p are the lower-order estimates of
//                        the p+1 points and those above p are 0; max_output_derivative_order() states the full 3
//                        throughout, since the methods ask it once, at initialize (defect-jacobi checks its n against
//                        it). Before the first step the derivatives are 0 (there is no sample yet). Either way a step's
//                        first sample is the outputs at its start under its inputs (evaluated at time(); the history's
//                        newest point is refreshed). Emulated whenever interpolate_inputs is and an output
//                        depends on an input directly (emulate_missing): the system's own derivatives are
//                        taken with the held sub-step input and miss D·u'. Without direct feedthrough
//                        they are exact (the inputs are p(h) at the step's end) and are kept.
//   sub-step clock       Sub-step k ends on t₀ + (k+1)h/K as the master computes it, the last on t₀ + h,
//                        so that the system's clock stays the master's.
//
// Cost: K integrations of the system per macro-step (System::integrations() counts macro-steps;
// emulation_substeps() states K), K + 1 input settings and output reads.
// Rollback, state access and linearization pass through to the wrapped system; a snapshot also
// keeps the emulated derivatives and the history, so a restore brings them back with the state.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "system/emulation/system_decorator.hpp"

namespace cosima {

/// Where emulated output derivatives come from (see above).
enum class DerivativeSource : std::uint8_t {
  automatic,  ///< history when K = 1, else substeps
  substeps,   ///< the K + 1 sub-step points of the macro-step just taken
  history,    ///< the outputs at the last kMaxInputDegree + 1 communication points
};
/// "substeps" | "history" (the scenario's "emulation_derivatives"); std::nullopt for anything else.
inline std::optional<DerivativeSource> parse_derivative_source(std::string_view text) {
  // inline: the scenario parser (cosima_parse, linked alone by fuzz_scenario) reads it too
  if (text == "substeps") return DerivativeSource::substeps;
  if (text == "history") return DerivativeSource::history;
  return std::nullopt;
}

struct EmulationOptions {
  int substeps = 4;  ///< K, for a system with variable communication steps
  DerivativeSource derivatives = DerivativeSource::automatic;
};

class EmulatedSystem final : public SystemDecorator {
 public:
  /// `emulate` ⊆ kEmulable: what `inner` lacks, and output_derivatives with interpolate_inputs.
  EmulatedSystem(std::unique_ptr<System> inner, CapabilitySet emulate, EmulationOptions options);

  [[nodiscard]] CapabilitySet emulated_capabilities() const override {
    return emulate_.with(inner_->emulated_capabilities());
  }
  [[nodiscard]] int emulation_substeps() const override { return substeps_; }
  /// substeps or history (never automatic): where the emulated output derivatives come from.
  [[nodiscard]] DerivativeSource derivative_source() const { return source_; }
  [[nodiscard]] std::string emulated_derivatives() const override;

  void enter_initialization(double t_start) override;
  void exit_initialization() override;
  [[nodiscard]] double time() const override { return inner_->time(); }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override { inner_->outputs(y); }
  /// After a discontinuity (an event, or a jump the master detected) the derivatives sampled before
  /// it are void: 0 until the next step, and the history restarts from the right limits.
  StepResult handle_pending_events() override;

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return inner_->capabilities().with(emulate_); }
  [[nodiscard]] int provided_output_derivative_order() const override;
  void apply_inputs(const InputPolynomials& polynomials) override;
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId id) override;

 private:
  [[nodiscard]] bool emulates(Capability c) const { return emulate_.has(c); }
  /// The inputs held constant at p(s) (what a system without interpolation is given at s).
  void hold_inputs_at(double s);

  /// The outputs at the last communication points: a ring of kMaxInputDegree + 1 columns.
  struct History {
    Eigen::MatrixXd values;  ///< n_out × (kMaxInputDegree + 1)
    Eigen::VectorXd times;
    int newest = 0, count = 0;
  };
  struct Snapshot {
    Eigen::MatrixXd derivatives;
    History history;
  };
  [[nodiscard]] bool uses_history() const {
    return source_ == DerivativeSource::history && emulates(Capability::output_derivatives);
  }
  /// The outputs at time() become the newest point: a new one, or the newest refreshed at its time.
  void record_history();
  /// derivatives_ from the history: the interpolation polynomial's derivatives at the newest point.
  void differentiate_history();

  CapabilitySet emulate_;
  int substeps_ = 1;  ///< K
  DerivativeSource source_ = DerivativeSource::substeps;
  bool feedthrough_ = false;  ///< some output depends on some input
  InputPolynomials polynomials_, held_, shifted_;
  Eigen::MatrixXd held_weights_;  ///< K × (kMaxInputDegree + 1): the held value of sub-step k for p = τ^d
  Eigen::MatrixXd samples_;       ///< n_out × (K+1): y at the sub-step points of the last step
  Eigen::MatrixXd weights_;       ///< (K+1) × max order: column d−1 gives d^d/ds^d at s = K on nodes 0..K
  Eigen::MatrixXd derivatives_;   ///< n_out × max order, at time()
  History history_;
  Eigen::VectorXd nodes_;            ///< the history's times − time(), oldest first
  Eigen::MatrixXd history_weights_;  ///< Fornberg's table on nodes_: 4 × 4, column d the d-th derivative
  std::map<StateId, Snapshot> saved_;
};

/// How emulated input interpolation holds the inputs with K sub-steps, and its order (the stats'
/// "inputs" and the run's warning).
inline std::string held_inputs(int substeps) {
  if (substeps == 1) return "held at the mean over the macro-step: order 2 in the step";
  const int matched = std::min(substeps, kMaxInputDegree + 1);
  return "held at " + std::to_string(substeps) + " values matching the input's first " + std::to_string(matched) +
         " moments over the macro-step: order " + std::to_string(matched + 1) + " in the step for a linear system";
}

/// `system` itself when it has everything of `wanted` it can be given, else wrapped in an
/// EmulatedSystem standing in for the emulable part of what it lacks (kEmulable). What cannot be
/// emulated stays missing: the method's check names it.
std::unique_ptr<System> emulate_missing(std::unique_ptr<System> system, CapabilitySet wanted, EmulationOptions options);

}  // namespace cosima
