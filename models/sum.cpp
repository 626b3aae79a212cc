// Sum blocks: out = in0 + in1 + … + in(n−1), element by element over vectors of d elements — the Sum
// and VectorSum functions of an Open Simulation Platform configuration (ssp/osp_reader.hpp), as a
// system cosima can connect. Stateless; every output depends directly on its n inputs (direct
// feedthrough), linearly and independently of t.
//
//   "sum:N"     N scalar inputs in0 … in(N−1), one output out
//   "sum:NxD"   N vectors of D elements: inputs in{i}_{j}, outputs out{j} (i < N, j < D, 0-based as
//               OSP's signals in[i][j], out[j])
#include <fmt/format.h>

#include <string>
#include <string_view>

#include "core/error.hpp"
#include "models/b_models.hpp"
#include "models/model_base.hpp"

namespace cosima::models {

namespace {

/// Bounds of a sum's size: far beyond any configuration, small enough that a typo is caught.
constexpr int kMaxSumPorts = 4096;

OdeModel::Structure sum_structure(int inputs, int dimension) {
  OdeModel::Structure s;
  for (int i = 0; i < inputs; ++i) {
    for (int j = 0; j < dimension; ++j) {
      s.inputs.push_back(dimension == 1 ? fmt::format("in{}", i) : fmt::format("in{}_{}", i, j));
      s.feedthrough.emplace_back(j, i * dimension + j);
    }
  }
  for (int j = 0; j < dimension; ++j) s.outputs.push_back(dimension == 1 ? "out" : fmt::format("out{}", j));
  s.linear_time_invariant = true;
  s.outputs_depend_on_time = false;
  return s;
}

class Sum final : public ModelBase<Sum> {
 public:
  Sum(std::string name, int inputs, int dimension)
      : ModelBase(std::move(name), sum_structure(inputs, dimension)), inputs_(inputs), dimension_(dimension) {}

  [[nodiscard]] Eigen::VectorXd initial_state() const override { return Eigen::VectorXd(0); }
  void derivatives(double, ConstVectorRef, ConstVectorRef, VectorRef) const override {}
  void outputs(double, ConstVectorRef, ConstVectorRef u, VectorRef y) const override {
    for (int j = 0; j < dimension_; ++j) {
      double total = 0.0;
      for (int i = 0; i < inputs_; ++i) total += u(i * dimension_ + j);  // in the inputs' order
      y(j) = total;
    }
  }
  bool jacobians(double, ConstVectorRef, ConstVectorRef, Linearization& out) const override {
    out.A = Eigen::MatrixXd(0, 0);
    out.B = Eigen::MatrixXd(0, inputs_ * dimension_);
    out.C = Eigen::MatrixXd(dimension_, 0);
    out.D = Eigen::MatrixXd::Zero(dimension_, inputs_ * dimension_);
    for (int i = 0; i < inputs_; ++i) {
      for (int j = 0; j < dimension_; ++j) out.D(j, i * dimension_ + j) = 1.0;
    }
    return true;
  }

 private:
  int inputs_;
  int dimension_;
};

/// A positive count of `text` (digits only, at most kMaxSumPorts), or 0.
int count_of(std::string_view text) {
  if (text.empty() || text.size() > 4) return 0;
  int value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + (c - '0');
  }
  return value <= kMaxSumPorts ? value : 0;
}

}  // namespace

bool is_sum_model(std::string_view name) { return name.starts_with(kSumModel) && name.size() > kSumModel.size(); }

std::unique_ptr<OdeModel> make_sum(std::string_view name) {
  const std::string_view size = name.substr(kSumModel.size());
  const auto times = size.find('x');
  const int inputs = count_of(size.substr(0, times));
  const int dimension = times == std::string_view::npos ? 1 : count_of(size.substr(times + 1));
  if (inputs == 0 || dimension == 0 || inputs * dimension > kMaxSumPorts) {
    throw Error(fmt::format(
        "model '{}': a sum is \"sum:N\" (N inputs) or \"sum:NxD\" (N vectors of D elements), N, D ≥ 1, N·D ≤ {}", name,
        kMaxSumPorts));
  }
  return std::make_unique<Sum>(std::string(name), inputs, dimension);
}

}  // namespace cosima::models
