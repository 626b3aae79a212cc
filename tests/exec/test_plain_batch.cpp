// PlainBatch's C¹ entries — polynomial inputs, COSTARICA's updates — carried out in place give
// bitwise what the orders they stand for give (PlainBatch::to_orders / take_replies, the path of
// executors whose systems live elsewhere), failures included.
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "estimator/output_estimator.hpp"
#include "exec/order.hpp"
#include "models/registry.hpp"
#include "system/native/native_system.hpp"

namespace cosima {
namespace {

/// One system and its host, as an executor keeps them.
struct HostedPrey {
  HostedPrey() {
    IntegratorOptions options;
    options.rtol = 1e-10;
    system = std::make_unique<NativeSystem>("prey", models::make_model("b3.prey"), make_integrator("dopri5", options));
    system->initialize(0.0);
    host.system = system.get();
    host.snapshot = system->save_state();
    host.estimator = estimator::make_output_estimator(*system, estimator::EstimatorOptions{});
    host.estimator->reset(*system);
  }
  std::unique_ptr<NativeSystem> system;
  exec::SystemHost host;
};

/// Carries out the batch's one entry as the order it stands for, on `hosted`.
void carry_out_as_order(const exec::PlainBatch& plain, exec::PlainBatch& replies_into, HostedPrey& hosted) {
  exec::Batch orders;
  plain.to_orders(orders);
  ASSERT_EQ(orders.active().size(), 1U);
  exec::carry_out(hosted.host, orders.orders()[0], orders.replies()[0]);
  replies_into.take_replies(orders);
}

/// Two systems alike, one carried out in place, one through orders, each with its batch.
class PlainBatchC1 : public ::testing::Test {
 protected:
  PlainBatchC1() {
    a.resize(1, 1);
    b.resize(1, 1);
  }
  HostedPrey in_place, as_orders;
  exec::PlainBatch a, b;
};

InputPolynomials cubic(double value) {
  InputPolynomials p(1, kInputCoefficients);
  p << value, 0.3, -0.2, 0.1;
  return p;
}

TEST_F(PlainBatchC1, PolynomialEntriesGiveTheNumbersOfTheirOrders) {
  Eigen::VectorXd y_a(1), dy_a(1), y_b(1), dy_b(1);
  for (int k = 0; k < 6; ++k) {
    const InputPolynomials u = cubic(0.5 + 0.1 * k);
    const bool restore = k % 2 == 1, derivatives = k != 4;  // repeated steps from the snapshot; no dy once
    for (auto [batch, y, dy] : {std::tuple{&a, &y_a, &dy_a}, std::tuple{&b, &y_b, &dy_b}}) {
      batch->clear();
      exec::PlainBatch::Entry& entry = batch->add_polynomial(0, 0.01, u, *y);
      entry.dy = derivatives ? dy->data() : nullptr;
      entry.restore = restore;
    }
    exec::carry_out(in_place.host, a[0]);
    carry_out_as_order(b, b, as_orders);
    ASSERT_TRUE(a[0].result.ok()) << a[0].result.reason;
    ASSERT_TRUE(b[0].result.ok()) << b[0].result.reason;
    EXPECT_EQ(in_place.system->time(), as_orders.system->time()) << "step " << k;
    EXPECT_EQ(y_a(0), y_b(0)) << "step " << k;  // bitwise
    if (derivatives) {
      EXPECT_EQ(dy_a(0), dy_b(0)) << "step " << k;
    }
  }
}

TEST_F(PlainBatchC1, AFailedStepIsReportedAsItsOrderReportsIt) {
  Eigen::VectorXd y_a = Eigen::VectorXd::Constant(1, 7.0), y_b = y_a;
  const InputPolynomials u = cubic(std::numeric_limits<double>::quiet_NaN());
  a.add_polynomial(0, 0.01, u, y_a);
  b.add_polynomial(0, 0.01, u, y_b);
  exec::carry_out(in_place.host, a[0]);
  carry_out_as_order(b, b, as_orders);
  EXPECT_FALSE(a[0].result.ok());
  EXPECT_EQ(a[0].result.status, b[0].result.status);
  EXPECT_EQ(a[0].result.reason, b[0].result.reason);
  EXPECT_EQ(y_a(0), 7.0);  // a failed step writes no outputs
  EXPECT_EQ(y_b(0), 7.0);
}

TEST_F(PlainBatchC1, EstimateEntriesGiveTheOperatorsOfTheirOrders) {
  exec::Reply reply_a, reply_b;
  Eigen::VectorXd y(1);
  for (int k = 0; k < 6; ++k) {
    const Eigen::VectorXd u_now = Eigen::VectorXd::Constant(1, 0.4 + 0.05 * k);
    const bool begin = k % 3 != 2;  // update 2 alone for a new step size, as under tolerance
    const double h = begin ? 0.01 : 0.005;
    a.clear();
    b.clear();
    a.add_estimate(0, begin ? u_now.data() : nullptr, 1, h, reply_a);
    b.add_estimate(0, begin ? u_now.data() : nullptr, 1, h, reply_b);
    exec::carry_out(in_place.host, a[0]);
    carry_out_as_order(b, b, as_orders);
    ASSERT_TRUE(reply_a.estimate_ok) << reply_a.result.reason;
    ASSERT_TRUE(reply_b.estimate_ok) << reply_b.result.reason;
    for (const auto& [x, z] : {std::pair{&reply_a.response.GV, &reply_b.response.GV},
                               std::pair{&reply_a.response.GD, &reply_b.response.GD}}) {
      ASSERT_EQ(x->size(), z->size());
      for (Eigen::Index i = 0; i < x->size(); ++i) EXPECT_EQ(x->data()[i], z->data()[i]) << "update " << k;
    }
    EXPECT_EQ(reply_a.constant_value(0), reply_b.constant_value(0)) << "update " << k;
    EXPECT_EQ(reply_a.constant_derivative(0), reply_b.constant_derivative(0)) << "update " << k;
    // the systems move on, so the next update 1 is at a new point
    const InputPolynomials u = cubic(u_now(0));
    for (HostedPrey* hosted : {&in_place, &as_orders}) {
      hosted->system->set_inputs(u);
      ASSERT_TRUE(hosted->system->do_step(0.01).ok());
      hosted->system->outputs(y);
    }
  }
}

TEST_F(PlainBatchC1, AFailedEstimateIsReportedAsItsOrderReportsIt) {
  // an infinite step: the φ-functions of hA are not finite, update 2 fails naming why
  exec::Reply reply_a, reply_b;
  const Eigen::VectorXd u_now = Eigen::VectorXd::Constant(1, 0.4);
  const double h = std::numeric_limits<double>::infinity();
  a.add_estimate(0, u_now.data(), 1, h, reply_a);
  b.add_estimate(0, u_now.data(), 1, h, reply_b);
  exec::carry_out(in_place.host, a[0]);
  carry_out_as_order(b, b, as_orders);
  EXPECT_FALSE(reply_a.estimate_ok);
  EXPECT_FALSE(reply_b.estimate_ok);
  EXPECT_FALSE(a[0].result.ok());
  EXPECT_EQ(a[0].result.reason, b[0].result.reason);
  EXPECT_EQ(reply_a.result.reason, reply_b.result.reason);
  EXPECT_NE(reply_a.result.reason.find("not finite"), std::string::npos) << reply_a.result.reason;
}

}  // namespace
}  // namespace cosima
