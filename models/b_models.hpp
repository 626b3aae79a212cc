#pragma once
// Factories of the benchmark models, one source file per benchmark.
#include <memory>
#include <string_view>

#include "system/native/ode_model.hpp"

namespace cosima::models {

std::unique_ptr<OdeModel> make_b1_mass();
std::unique_ptr<OdeModel> make_b1_damper();
std::unique_ptr<OdeModel> make_b2_left();
std::unique_ptr<OdeModel> make_b2_right();
std::unique_ptr<OdeModel> make_b3_prey();
std::unique_ptr<OdeModel> make_state_space();
std::unique_ptr<OdeModel> make_b3_predator();
std::unique_ptr<OdeModel> make_b4_left();
std::unique_ptr<OdeModel> make_b4_right();
std::unique_ptr<OdeModel> make_b5_body1();
std::unique_ptr<OdeModel> make_b5_body2();
std::unique_ptr<OdeModel> make_b6_tough();
std::unique_ptr<OdeModel> make_b7_zone();
std::unique_ptr<OdeModel> make_b7_supply();
std::unique_ptr<OdeModel> make_b8_ball();
std::unique_ptr<OdeModel> make_oscillator();  ///< the scaling model

/// The sum blocks (sum.cpp): "sum:N" and "sum:NxD", named with their sizes.
inline constexpr std::string_view kSumModel = "sum:";
/// Whether `name` is of the sum family ("sum:" and a size; make_sum checks the size).
bool is_sum_model(std::string_view name);
/// Throws Error naming the model when its size is not N or NxD.
std::unique_ptr<OdeModel> make_sum(std::string_view name);

}  // namespace cosima::models
