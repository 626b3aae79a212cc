#include "methods/defect_jacobi.hpp"
#include "methods/method_registry.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::methods {

DefectJacobi::DefectJacobi(Options options, double dt)
    : options_(std::move(options)), h_min_given_(options_.controller.h_min > 0.0) {
  if (options_.h1 <= 0.0) options_.h1 = dt;
  if (!(options_.h1 > 0.0)) throw Error("defect-jacobi: the first step method.h1 (or --dt) must be positive");
  if (options_.fixed_step) {
    controller_ = std::make_unique<FixedStepController>();
  } else {
    controller_ = std::make_unique<PiController>(options_.controller);
  }
}

void DefectJacobi::check(const model::ModularModel& model) const {
  const auto loop = model.find_algebraic_loop();
  if (!loop.empty()) {
    std::string ports;
    for (const auto& port : loop) ports += (ports.empty() ? "" : " → ") + port;
    throw Error(
        fmt::format("defect-jacobi needs a model without algebraic loops (seed 004, Algorithm 1); loop: {}", ports));
  }
  for (const Orders* orders : {&options_.input_order, &options_.output_order}) {
    for (const auto& [system, order] : orders->by_system) {
      if (model.system_index(system) < 0)
        throw Error(fmt::format("defect-jacobi: no system '{}' to give an order", system));
    }
  }
  for (int s = 0; s < model.system_count(); ++s) {
    const System& system = model.system(s);
    const int m = options_.input_order.of(system.name()), n = options_.output_order.of(system.name());
    for (const auto& [label, order] : {std::pair{"m", m}, std::pair{"n", n}}) {
      if (order < 0 || order > kMaxInputDegree) {
        throw Error(fmt::format("defect-jacobi: order {} = {} for system '{}' is outside 0..{}", label, order,
                                system.name(), kMaxInputDegree));
      }
    }
  }
  check_needs(model);
  std::string short_orders;
  for (int s = 0; s < model.system_count(); ++s) {
    const System& system = model.system(s);
    const int n = options_.output_order.of(system.name());
    if (n > 0 && system.max_output_derivative_order() < n) {
      short_orders +=
          fmt::format("{}system '{}' provides output derivatives up to order {}, output order n = {} needs {}",
                      short_orders.empty() ? "" : "; ", system.name(), system.max_output_derivative_order(), n, n);
    }
  }
  if (!short_orders.empty()) throw CapabilityError(fmt::format("method 'defect-jacobi' cannot run: {}", short_orders));
}

std::vector<CapabilityNeed> DefectJacobi::needs(const System& system) const {
  const int m = options_.input_order.of(system.name()), n = options_.output_order.of(system.name());
  std::vector<CapabilityNeed> needs;
  if (m > 0) needs.push_back({Capability::interpolate_inputs, fmt::format(" for input order m = {}", m)});
  if (n > 0) needs.push_back({Capability::output_derivatives, fmt::format(" for output order n = {}", n)});
  if (!options_.fixed_step) needs.push_back({Capability::variable_step, " for the variable step"});
  return needs;
}

void DefectJacobi::initialize(model::ModularModel& model, double t_start) {
  initialization_ = initialize_coupled(model, executor(), t_start, buffers_);
  m_.clear();
  n_.clear();
  n_of_output_.assign(static_cast<std::size_t>(model.total_outputs()), 0);
  for (int s = 0; s < model.system_count(); ++s) {
    m_.push_back(options_.input_order.of(model.system(s).name()));
    n_.push_back(options_.output_order.of(model.system(s).name()));
    for (int o = 0; o < model.system(s).output_count(); ++o) {
      n_of_output_[static_cast<std::size_t>(model.output_offset(s)) + static_cast<std::size_t>(o)] = n_.back();
    }
  }
  samples_.setZero(model.total_outputs(), kInputCoefficients);
  y_mid_.setZero(model.total_outputs());
  output_poly_.setZero(model.total_outputs(), kInputCoefficients);
  connection_square_.assign(static_cast<std::size_t>(model.total_inputs()), 0.0);
  u_start_.setZero(model.total_inputs());
  u_end_.setZero(model.total_inputs());
  output_square_.assign(static_cast<std::size_t>(model.total_outputs()), 0.0);
  output_scale_.assign(static_cast<std::size_t>(model.total_outputs()), 0.0);
  coupled_output_.assign(static_cast<std::size_t>(model.total_outputs()), 0);
  for (const int source : model.input_sources()) {
    if (source >= 0) coupled_output_[static_cast<std::size_t>(source)] = 1;
  }
  elapsed_ = 0.0;
  steps_ = 0;
  buffers_.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) buffers_.batch.order(s);
  read_orders(model, true);
  executor().execute(buffers_.batch);
  sample_outputs(model);
  update_scales();
  // Algorithm 1 line 2: the output derivatives at the start time. The initializing sweep held the
  // inputs constant, so an output derivative that depends on input derivatives is wrong there. Each
  // pass hands the inputs the Taylor polynomials of their sources and reads again: along a chain of
  // systems one more derivative becomes right per pass, so without algebraic loops (check()) the
  // samples stop changing after at most (n + 1) · systems passes.
  int max_n = 0;
  for (int s = 0; s < model.system_count(); ++s) max_n = std::max(max_n, n_[static_cast<std::size_t>(s)]);
  const int max_passes = max_n == 0 ? 0 : (max_n + 1) * model.system_count();
  Eigen::MatrixXd previous;
  for (int pass = 0; pass < max_passes; ++pass) {
    previous = samples_;
    input_polynomials(model);
    buffers_.batch.clear();
    for (int s = 0; s < model.system_count(); ++s) {
      exec::Order& order = buffers_.batch.order(s);
      order.set_inputs = true;
      order.inputs = buffers_.polynomials(s);
    }
    read_orders(model, true);
    executor().execute(buffers_.batch);
    sample_outputs(model);
    if (samples_ == previous) break;
  }
  // h_min: by default a millionth of the run, so that an error the step cannot reduce (a jump, a
  // stiff coupling) slows the run down instead of stopping it (seed 004 leaves h_min open)
  if (!options_.fixed_step && !h_min_given_) {
    const double span = std::isfinite(stop_time()) ? stop_time() - t_start : options_.h1;
    options_.controller.h_min = std::min(1e-6 * span, options_.h1);
    if (options_.controller.h_max > 0.0)
      options_.controller.h_min = std::min(options_.controller.h_min, options_.controller.h_max);
    controller_ = std::make_unique<PiController>(options_.controller);
  }
  controller_->reset(options_.h1);
  h_next_ = options_.h1;
  steps_at_floor_ = 0;
}

std::string DefectJacobi::handle_discontinuity(model::ModularModel& model, double t) {
  const EventRestart restart = restart_at_discontinuity(model, executor(), buffers_, buffers_.u, nullptr, t);
  if (!restart.terminated.empty()) return restart.terminated;
  buffers_.batch.clear();
  for (int s = 0; s < model.system_count(); ++s) buffers_.batch.order(s);
  read_orders(model, true);
  executor().execute(buffers_.batch);
  sample_outputs(model);
  return {};
}

void DefectJacobi::input_polynomials(const model::ModularModel& model) {
  // eq. 14–15: u's Taylor polynomial at T_{k−1}, of degree min(m, n_source), from the samples of its source
  const auto& sources = model.input_sources();
  for (int s = 0; s < model.system_count(); ++s) {
    InputPolynomials& p = buffers_.polynomials(s);
    p.setZero();
    const int offset = model.input_offset(s);
    for (Eigen::Index j = 0; j < p.rows(); ++j) {
      const int g = offset + static_cast<int>(j);
      const int source = sources[static_cast<std::size_t>(g)];
      if (source < 0) {
        p(j, 0) = model.constant_inputs()(g);
        continue;
      }
      const int degree = std::min(m_[static_cast<std::size_t>(s)], n_of_output_[static_cast<std::size_t>(source)]);
      const model::LinearTransform& transform = model.input_transform(g);
      for (int k = 0; k <= degree; ++k) p(j, k) = transform.scale * samples_(source, k) / factorial(k);
      p(j, 0) += transform.offset;
    }
    hold_discrete_inputs(model, s, p);
  }
}

void DefectJacobi::read_orders(const model::ModularModel& model, bool derivatives) {
  for (int s = 0; s < model.system_count(); ++s) {
    buffers_.batch.orders()[static_cast<std::size_t>(s)].read_order = derivatives ? n_[static_cast<std::size_t>(s)] : 0;
  }
}

void DefectJacobi::sample_outputs(const model::ModularModel& model) {
  for (int s = 0; s < model.system_count(); ++s) {
    const exec::Reply& reply = buffers_.batch.reply(s);
    const int offset = model.output_offset(s), count = model.system(s).output_count();
    for (int order = 0; order <= n_[static_cast<std::size_t>(s)]; ++order) {
      samples_.col(order).segment(offset, count) = reply.outputs.col(order);
    }
  }
}

void DefectJacobi::output_polynomials(const model::ModularModel& model, double h) {
  // eq. 12: ỹ(t) = Σ_{j ≤ n} y^(j)(T_k) (t − T_k)^j / j!
  output_poly_.setZero();
  for (Eigen::Index o = 0; o < model.total_outputs(); ++o) {
    for (int j = 0; j <= n_of_output_[static_cast<std::size_t>(o)]; ++j)
      output_poly_(o, j) = samples_(o, j) / factorial(j);
  }
  shift_polynomials(output_poly_, -h, shifted_);  // in s = t − T_{k−1}
}

void DefectJacobi::update_scales() {
  for (std::size_t o = 0; o < output_scale_.size(); ++o) {
    output_scale_[o] = std::max(output_scale_[o], std::abs(samples_(static_cast<Eigen::Index>(o), 0)));
  }
}

double DefectJacobi::scale_of(int output, const model::LinearTransform& transform) const {
  if (!options_.relative) return 1.0;
  const double scale =
      std::abs(transform.scale) * output_scale_[static_cast<std::size_t>(output)] + std::abs(transform.offset);
  return scale > 0.0 ? scale : 1.0;
}

double DefectJacobi::connection_defect(const model::ModularModel& model, double h) {
  const auto& sources = model.input_sources();
  double connection = 0.0;
  // a discrete signal jumps by design: its jumps are events, not a defect of the smooth reconstruction
  for (int g = 0; g < model.total_inputs(); ++g) {
    const int source = sources[static_cast<std::size_t>(g)];
    if (source < 0 || model.input_held(g)) continue;
    const int s = model.system_of_input(g);
    const model::LinearTransform& transform = model.input_transform(g);
    Eigen::Matrix<double, 1, kInputCoefficients> defect =
        buffers_.polynomials(s).row(g - model.input_offset(s)) - transform.scale * shifted_.row(source);  // eq. 17
    defect(0) -= transform.offset;
    const double mean = mean_square(defect, h);
    connection = std::max(connection, std::sqrt(mean) / scale_of(source, transform));
    connection_square_[static_cast<std::size_t>(g)] += mean * h;
  }
  return connection;
}

double DefectJacobi::output_defect(const model::ModularModel& model, double h) {
  double output = 0.0;
  for (Eigen::Index o = 0; o < model.total_outputs(); ++o) {
    if (coupled_output_[static_cast<std::size_t>(o)] == 0) continue;  // a defect of the coupling only
    const int system = model.system_of_output(static_cast<int>(o));
    if (!model.system(system).output_info(static_cast<int>(o) - model.output_offset(system)).continuous) continue;
    const int n = n_of_output_[static_cast<std::size_t>(o)];
    double at_mid = 0.0;  // ỹ(T_k − H/2), Horner
    for (int k = kMaxInputDegree; k >= 0; --k) at_mid = at_mid * 0.5 * h + shifted_(o, k);
    // eq. 32: |δ̂y| = ((T_k − t)/(H/2))^{n+1} |y_mid − ỹ_mid|, whose RMS over the step is
    // |y_mid − ỹ_mid| · 2^{n+1} / √(2n+3)
    const double rms = std::abs(y_mid_(o) - at_mid) * std::pow(2.0, n + 1) / std::sqrt(2.0 * n + 3.0);
    output = std::max(output, rms / scale_of(static_cast<int>(o)));
    output_square_[static_cast<std::size_t>(o)] += rms * rms * h;
  }
  return output;
}

StepReport DefectJacobi::step(model::ModularModel& model, double t, double h_max) {
  const double h = h_max;
  StepReport report;
  // 1. input Taylor polynomials at T_{k−1} (eq. 14–15)
  input_polynomials(model);
  // 2. to the midpoint, sample, then to T_k (inputs re-expanded at the midpoint)
  for (int half = 0; half < 2; ++half) {
    buffers_.batch.clear();
    for (int s = 0; s < model.system_count(); ++s) {
      exec::Order& order = buffers_.batch.order(s);
      order.set_inputs = true;
      if (half == 0) {
        order.inputs = buffers_.polynomials(s);
      } else {
        shift_polynomials(buffers_.polynomials(s), 0.5 * h, order.inputs);
      }
      order.step = 0.5 * h;
    }
    read_orders(model, half == 1);
    executor().execute(buffers_.batch);
    for (int s = 0; s < model.system_count(); ++s) {
      const StepResult& result = buffers_.batch.reply(s).result;
      if (result.status == StepResult::Status::terminated) {
        report.terminated = true;
        report.reason = result.reason;
        return report;
      }
      throw_if_failed(result, model.system(s), t);
    }
    if (half == 0) {
      buffers_.gather_replies(model);
      y_mid_ = buffers_.y;
    }
  }
  // 3. output samples and polynomials at T_k
  sample_outputs(model);
  update_scales();
  output_polynomials(model, h);
  for (int s = 0; s < model.system_count(); ++s) buffers_.input_ends(model, s, h, u_start_, u_end_);
  coupling_error_.record(t, h, u_start_, u_end_, samples_.col(0));
  // 4. defects on the step
  const double connection = connection_defect(model, h), output = output_defect(model, h);
  const double epsilon = std::max(connection, output);  // eq. 38
  h_next_ = controller_->next(h, epsilon);              // eq. 39
  // held at h_min while the defect asks for less: accepted, but no longer controlled
  report.at_step_floor = !options_.fixed_step && epsilon > options_.controller.tol &&
                         std::abs(h - options_.controller.h_min) <= 1e-9 * options_.controller.h_min;
  if (report.at_step_floor) ++steps_at_floor_;
  elapsed_ += h;
  ++steps_;
  report.h = h;
  report.defect = epsilon;
  report.connection_defect = connection;
  report.output_defect = output;
  return report;
}

std::vector<std::pair<std::string, double>> DefectJacobi::totals() const {
  const auto rms = [&](const std::vector<double>& squares) {
    double worst = 0.0;
    for (double s : squares) worst = std::max(worst, s);
    return elapsed_ > 0.0 ? std::sqrt(worst / elapsed_) : 0.0;
  };
  return {{"connection_defect_rms", rms(connection_square_)},
          {"output_defect_rms", rms(output_square_)},
          {"mean_step", steps_ > 0 ? elapsed_ / static_cast<double>(steps_) : 0.0},
          {"steps_at_h_min", static_cast<double>(steps_at_floor_)},
          {"h_min", options_.fixed_step ? 0.0 : options_.controller.h_min}};
}

void register_defect_jacobi() {
  register_method(
      {.name = "defect-jacobi",
       .summary = "Jacobi with Taylor input polynomials and a defect-controlled step (seed 004)",
       .options = {{"tol", "1e-2", "the defect tolerance of the step controller"},
                   {"tol_scale", "relative",
                    "relative: each defect over its signal's largest |value| so far; absolute: as seed 004"},
                   {"m", "0", "input polynomial order, for all systems or {\"system\": m}"},
                   {"n", "0", "output polynomial order, for all systems or {\"system\": n}"},
                   {"h1", "0", "the first (or fixed) step; 0: the run's dt"},
                   {"h_min", "0", "the smallest step; 0: no limit"},
                   {"h_max", "0", "the largest step; 0: no limit (unset: output.interval where the scenario sets one)"},
                   {"kp", "0.13", "proportional gain of the PI controller (eq. 39)"},
                   {"ki", "1/15", "integral gain of the PI controller (eq. 39)"},
                   {"theta_max", "2", "the largest step growth"},
                   {"fixed", "false", "fixed steps of h1, without defect control"}},
       .make = [](const OptionReader& options, double dt) -> std::unique_ptr<CouplingMethod> {
         DefectJacobi::Options o;
         o.input_order = options.orders("m");
         o.output_order = options.orders("n");
         o.fixed_step = options.flag("fixed", false);
         const std::string scale = options.text("tol_scale", "relative");
         if (scale != "relative" && scale != "absolute") {
           throw Error(fmt::format("method.tol_scale is '{}': relative or absolute", scale));
         }
         o.relative = scale == "relative";
         o.h1 = options.non_negative("h1", 0.0);
         o.controller.tol = options.positive("tol", o.controller.tol);
         o.controller.kp = options.number("kp", o.controller.kp);
         o.controller.ki = options.number("ki", o.controller.ki);
         o.controller.theta_max = options.number("theta_max", o.controller.theta_max);
         o.controller.h_min = options.non_negative("h_min", o.controller.h_min);
         o.controller.h_max = options.non_negative("h_max", o.controller.h_max);
         return std::make_unique<DefectJacobi>(std::move(o), dt);
       }});
}

}  // namespace cosima::methods
