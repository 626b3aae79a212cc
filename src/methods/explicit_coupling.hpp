#pragma once
// Non-iterative coupling with zero-order-hold inputs (DESIGN §3.1):
//   Jacobi        every system steps [t_N, t_N+h) on ũ = Φᵀ ỹ(t_N)  — the systems are independent.
//                 ỹ(t_N) of a system with direct feedthrough depends on its inputs at t_N: without
//                 an algebraic loop the master propagates them along the feedthrough chains first
//                 (settle_communication_point), so no output is read with last step's inputs;
//   Gauss–Seidel  systems step one after another in `order`; a system's inputs come from the
//                 outputs already at t_N+h of the systems before it. A cycle of direct feedthrough
//                 cannot be ordered (algebraic loop): it is reported as an error unless allowed.
#include <string>
#include <vector>

#include "methods/coupling_buffers.hpp"
#include "methods/coupling_method.hpp"

namespace cosima {

class ExplicitCoupling final : public CouplingMethod {
 public:
  enum class Scheme { jacobi, gauss_seidel };
  struct Options {
    Scheme scheme = Scheme::jacobi;
    std::vector<std::string> order;  ///< Gauss–Seidel order by system name; empty: scenario order
    bool allow_algebraic_loops = false;
  };
  explicit ExplicitCoupling(Options options) : options_(std::move(options)) {}

  [[nodiscard]] std::string_view name() const override {
    return options_.scheme == Scheme::jacobi ? "jacobi" : "gauss-seidel";
  }
  void check(const ModularModel& model) const override;
  void initialize(ModularModel& model, double t_start) override;
  StepReport step(ModularModel& model, double t, double h_max) override;

 private:
  Options options_;
  CouplingBuffers buffers_;
  std::vector<int> sequence_;  ///< system indices in stepping order
  int settle_sweeps_ = 1;      ///< feedthrough propagation at a communication point (1 with a loop)
};

}  // namespace cosima
