#pragma once
// A read-only view of contiguous doubles, for arguments passed at every right-hand-side evaluation.
//
// Eigen::Ref<const Eigen::VectorXd> binds the same arguments, but carries a fallback VectorXd for
// arguments that are not contiguous (an expression, a strided row), which it would copy into. That
// member's destructor is a call to free() at every binding, contiguous or not: on a one-state model
// integrated with DOPRI5 that is a few dozen calls per macro-step. ConstVectorView has no fallback:
// a non-contiguous argument does not compile, so no call copies silently.
#include <Eigen/Dense>

namespace cosima {

class ConstVectorView : public Eigen::Map<const Eigen::VectorXd> {
  using Base = Eigen::Map<const Eigen::VectorXd>;

 public:
  /// Binds a vector expression with contiguous storage: VectorXd, a segment, a column of a
  /// column-major matrix, a Map, a Ref. An expression, or a column of a row-major matrix (such as
  /// InputPolynomials), does not compile: name a VectorXd of it.
  template <class Derived>
  ConstVectorView(const Eigen::DenseBase<Derived>& v)  // NOLINT(google-explicit-constructor): binds as Ref does
      : Base(v.derived().data(), v.size()) {
    static_assert(Derived::IsVectorAtCompileTime != 0, "ConstVectorView binds vectors");
    static_assert(Derived::InnerStrideAtCompileTime == 1, "ConstVectorView binds contiguous storage only");
  }
  ConstVectorView(const double* data, Eigen::Index size) : Base(data, size) {}
};

}  // namespace cosima
