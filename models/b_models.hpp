#pragma once
// Factories of the benchmark models, one source file per benchmark.
#include <memory>

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

}  // namespace cosima::models
