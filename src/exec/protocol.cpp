#include "exec/protocol.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/log.hpp"

namespace cosima::exec {

namespace {

void put_wide(wire::Writer& w, const WideInteger& value) {
  w.put(value.bits());
  w.put(static_cast<std::uint8_t>(value.is_unsigned()));
}

WideInteger get_wide(wire::Reader& r) {
  const auto bits = r.get<std::uint64_t>();
  return WideInteger::from_bits(bits, r.get<std::uint8_t>() != 0);
}

void write_order(wire::Writer& w, const Order& o) {
  w.put(static_cast<std::uint8_t>(o.restore));
  w.put(static_cast<std::uint8_t>(o.save));
  w.put(o.initialize);
  w.put(static_cast<std::uint8_t>(o.exit_initialization));
  w.put(static_cast<std::uint8_t>(o.configure_estimator.has_value()));
  if (o.configure_estimator) {
    const estimator::EstimatorOptions& e = *o.configure_estimator;
    w.put(static_cast<std::int32_t>(e.response.method));
    w.put(static_cast<std::int32_t>(e.response.stehfest_terms));
    w.put(e.response.richardson_fraction);
    w.put(static_cast<std::int32_t>(e.control));
    w.put(static_cast<std::uint8_t>(e.affine_term));
  }
  w.put(static_cast<std::uint8_t>(o.set_inputs));
  if (o.set_inputs) w.put_matrix(o.inputs);
  w.put(o.step);
  w.put(static_cast<std::uint8_t>(o.handle_events));
  w.put(static_cast<std::int32_t>(o.read_order));
  w.put(static_cast<std::uint8_t>(o.read_states));
  w.put(static_cast<std::uint8_t>(o.read_state_derivatives));
  w.put(static_cast<std::uint8_t>(o.estimate_begin));
  if (o.estimate_begin) w.put_matrix(o.estimate_u_now);
  w.put(o.estimate_h);
  w.put(static_cast<std::int32_t>(o.watch.size()));
  for (const std::string& name : o.watch) w.put(name);
  w.put(static_cast<std::uint8_t>(o.read_variables));
  w.put(static_cast<std::int32_t>(o.wide_inputs.size()));
  for (const auto& [input, value] : o.wide_inputs) {
    w.put(static_cast<std::int32_t>(input));
    put_wide(w, value);
  }
  w.put(static_cast<std::int32_t>(o.read_wide.size()));
  for (const std::string& name : o.read_wide) w.put(name);
  w.put(static_cast<std::int32_t>(o.string_inputs.size()));
  for (const auto& [input, text] : o.string_inputs) {
    w.put(static_cast<std::int32_t>(input));
    w.put(text);
  }
  w.put(static_cast<std::int32_t>(o.read_strings.size()));
  for (const int output : o.read_strings) w.put(static_cast<std::int32_t>(output));
}

void read_order(wire::Reader& r, Order& o) {
  o.clear();
  o.active = true;
  o.restore = r.get<std::uint8_t>() != 0;
  o.save = r.get<std::uint8_t>() != 0;
  o.initialize = r.get<double>();
  o.exit_initialization = r.get<std::uint8_t>() != 0;
  if (r.get<std::uint8_t>() != 0) {
    estimator::EstimatorOptions e;
    e.response.method = static_cast<estimator::InverseLaplace>(r.get<std::int32_t>());
    e.response.stehfest_terms = r.get<std::int32_t>();
    e.response.richardson_fraction = r.get<double>();
    e.control = static_cast<estimator::ControlReconstruction>(r.get<std::int32_t>());
    e.affine_term = r.get<std::uint8_t>() != 0;
    o.configure_estimator = e;
  }
  o.set_inputs = r.get<std::uint8_t>() != 0;
  if (o.set_inputs) r.get_matrix(o.inputs);
  o.step = r.get<double>();
  o.handle_events = r.get<std::uint8_t>() != 0;
  o.read_order = r.get<std::int32_t>();
  o.read_states = r.get<std::uint8_t>() != 0;
  o.read_state_derivatives = r.get<std::uint8_t>() != 0;
  o.estimate_begin = r.get<std::uint8_t>() != 0;
  if (o.estimate_begin) r.get_matrix(o.estimate_u_now);
  o.estimate_h = r.get<double>();
  o.watch.resize(r.get_count(sizeof(std::uint64_t)));
  for (std::string& name : o.watch) name = r.get_string();
  o.read_variables = r.get<std::uint8_t>() != 0;
  o.wide_inputs.resize(r.get_count(sizeof(std::int32_t) + sizeof(std::uint64_t) + 1));
  for (auto& [input, value] : o.wide_inputs) {
    input = r.get<std::int32_t>();
    value = get_wide(r);
  }
  o.read_wide.resize(r.get_count(sizeof(std::uint64_t)));
  for (std::string& name : o.read_wide) name = r.get_string();
  o.string_inputs.resize(r.get_count(sizeof(std::int32_t) + sizeof(std::uint64_t)));
  for (auto& [input, text] : o.string_inputs) {
    input = r.get<std::int32_t>();
    text = r.get_string();
  }
  o.read_strings.resize(r.get_count(sizeof(std::int32_t)));
  for (int& output : o.read_strings) output = r.get<std::int32_t>();
}

/// A reply and the system's counters; `failure` is the text of an exception thrown while carrying
/// the order out (empty: none). Which parts travel follows from the order, known on both sides.
void write_reply(wire::Writer& w, const Order& o, const Reply& reply, const System& system,
                 const std::string& failure) {
  w.put(failure);
  w.put(static_cast<std::uint8_t>(reply.result.status));
  w.put(static_cast<std::uint8_t>(reply.result.step_completed));
  w.put(reply.result.reason);
  w.put(reply.time);
  w.put(static_cast<std::int64_t>(system.integrations()));
  w.put(system.integration_seconds());
  w.put(reply.next_event);
  w.put(static_cast<std::uint8_t>(reply.event_pending));
  const std::vector<std::string> warnings = take_forwarded_warnings();  // logged while serving
  w.put(static_cast<std::int32_t>(warnings.size()));
  for (const std::string& warning : warnings) w.put(warning);
  if (!failure.empty() || !reply.result.reached_end()) return;
  if (o.read_order >= 0) w.put_matrix(reply.outputs);
  if (o.read_states) w.put_matrix(reply.states);
  if (o.read_state_derivatives) w.put_matrix(reply.state_derivatives);
  if (o.read_variables) w.put_matrix(reply.variables);
  for (const std::optional<WideInteger>& value : reply.wide_values) {  // as many as o.read_wide names
    w.put(static_cast<std::uint8_t>(value.has_value()));
    put_wide(w, value.value_or(WideInteger{}));
  }
  for (const std::string& text : reply.strings) w.put(text);  // as many as o.read_strings names
  if (o.estimate_h > 0.0) {
    w.put_matrix(reply.response.GV);
    w.put_matrix(reply.response.GD);
    w.put_matrix(reply.constant_value);
    w.put_matrix(reply.constant_derivative);
  }
}

std::string read_reply(wire::Reader& r, const Order& o, Reply& reply, Counters& counters) {
  std::string failure = r.get_string();
  reply.result.status = static_cast<StepResult::Status>(r.get<std::uint8_t>());
  reply.result.step_completed = r.get<std::uint8_t>() != 0;
  reply.result.reason = r.get_string();
  reply.time = r.get<double>();
  counters.integrations = r.get<std::int64_t>();
  counters.seconds = r.get<double>();
  reply.next_event = r.get<double>();
  reply.event_pending = r.get<std::uint8_t>() != 0;
  for (auto warnings = r.get<std::int32_t>(); warnings > 0; --warnings) log(LogLevel::warning, r.get_string());
  reply.estimate_ok = true;
  if (!failure.empty()) return failure;
  if (!reply.result.reached_end()) {
    reply.estimate_ok = o.estimate_h <= 0.0;  // an estimator failure is reported as a failed result
    return failure;
  }
  if (o.read_order >= 0) r.get_matrix(reply.outputs);
  if (o.read_states) r.get_matrix(reply.states);
  if (o.read_state_derivatives) r.get_matrix(reply.state_derivatives);
  if (o.read_variables) r.get_matrix(reply.variables);
  reply.wide_values.resize(o.read_wide.size());
  for (std::optional<WideInteger>& value : reply.wide_values) {
    const bool present = r.get<std::uint8_t>() != 0;
    const WideInteger read = get_wide(r);
    value = present ? std::optional(read) : std::nullopt;
  }
  reply.strings.resize(o.read_strings.size());
  for (std::string& text : reply.strings) text = r.get_string();
  if (o.estimate_h > 0.0) {
    r.get_matrix(reply.response.GV);
    r.get_matrix(reply.response.GD);
    r.get_matrix(reply.constant_value);
    r.get_matrix(reply.constant_derivative);
  }
  return failure;
}

/// A reply read in full has the dimensions of its system, by which the methods index it: outputs
/// (and their derivatives up to the order's), states and their derivatives. Else a protocol error.
void check_dimensions(const Order& o, const Reply& reply, const System& system) {
  const char* wrong = nullptr;
  if (o.read_order >= 0 && (reply.outputs.rows() != system.output_count() || reply.outputs.cols() != o.read_order + 1))
    wrong = "outputs";
  else if (o.read_states && reply.states.size() != system.state_count())
    wrong = "states";
  else if (o.read_state_derivatives && reply.state_derivatives.size() != system.state_count())
    wrong = "state derivatives";
  if (wrong != nullptr) {
    throw Error(fmt::format("system '{}': a reply whose {} do not have the system's dimensions (a protocol error)",
                            system.name(), wrong));
  }
}

/// What a port carries, so that rank 0 checks connections and holds discrete inputs as in process.
void put_port(wire::Writer& w, const PortInfo& info) {
  w.put(static_cast<std::uint8_t>(info.kind));
  w.put(static_cast<std::uint8_t>(info.continuous));
  w.put(info.declared_type);
  w.put(info.min);
  w.put(info.max);
  w.put(info.integer_min);
  w.put(info.integer_max);
  w.put(static_cast<std::int32_t>(info.allowed.size()));
  for (double v : info.allowed) w.put(v);
  w.put(static_cast<std::uint8_t>(info.start.has_value()));
  w.put(info.start.value_or(0.0));
  w.put(info.start_text);
  w.put(static_cast<std::uint8_t>(info.nominal.has_value()));
  w.put(info.nominal.value_or(0.0));
  w.put(static_cast<std::uint8_t>(info.wide));
  w.put(static_cast<std::uint8_t>(info.wide_start.has_value()));
  put_wide(w, info.wide_start.value_or(WideInteger{}));
  w.put(static_cast<std::uint8_t>(info.signal));
  w.put(static_cast<std::int32_t>(info.item_names.size()));
  for (const std::string& item : info.item_names) w.put(item);
}

PortInfo get_port(wire::Reader& r) {
  PortInfo info;
  info.kind = static_cast<PortKind>(r.get<std::uint8_t>());
  info.continuous = r.get<std::uint8_t>() != 0;
  info.declared_type = r.get_string();
  info.min = r.get<double>();
  info.max = r.get<double>();
  info.integer_min = r.get<double>();
  info.integer_max = r.get<double>();
  info.allowed.resize(r.get_count(sizeof(double)));
  for (double& v : info.allowed) v = r.get<double>();
  const bool has_start = r.get<std::uint8_t>() != 0;
  const double start = r.get<double>();
  if (has_start) info.start = start;
  info.start_text = r.get_string();
  const bool has_nominal = r.get<std::uint8_t>() != 0;
  const double nominal = r.get<double>();
  if (has_nominal) info.nominal = nominal;
  info.wide = r.get<std::uint8_t>() != 0;
  const bool has_wide_start = r.get<std::uint8_t>() != 0;
  const WideInteger wide_start = get_wide(r);
  if (has_wide_start) info.wide_start = wide_start;
  info.signal = r.get<std::uint8_t>() != 0;
  info.item_names.resize(r.get_count(sizeof(std::uint64_t)));
  for (std::string& item : info.item_names) item = r.get_string();
  return info;
}

void describe(const System& system, wire::Writer& w) {
  const auto names = [&](const std::vector<std::string>& list) {
    w.put(static_cast<std::int32_t>(list.size()));
    for (const auto& name : list) w.put(name);
  };
  names(system.input_names());
  names(system.output_names());
  names(system.state_names());
  for (int o = 0; o < system.output_count(); ++o) {
    for (int i = 0; i < system.input_count(); ++i)
      w.put(static_cast<std::uint8_t>(system.output_depends_on_input(o, i)));
  }
  for (Capability c : kAllCapabilities) w.put(static_cast<std::uint8_t>(system.has(c)));
  for (Capability c : kAllCapabilities) w.put(static_cast<std::uint8_t>(system.emulated_capabilities().has(c)));
  w.put(static_cast<std::int32_t>(system.emulation_substeps()));
  w.put(system.emulated_derivatives());
  w.put(static_cast<std::int32_t>(system.max_output_derivative_order()));
  for (int i = 0; i < system.input_count(); ++i) put_port(w, system.input_info(i));
  for (int o = 0; o < system.output_count(); ++o) put_port(w, system.output_info(o));
  for (const auto& name : system.output_names()) w.put(system.variable_description(name));
  for (const auto& name : system.state_names()) w.put(system.variable_description(name));
  names(system.variable_names());
}

}  // namespace

// --- RemoteSystem ---------------------------------------------------------------------------------

RemoteSystem::RemoteSystem(RemoteChannel& channel, int index, const std::string& name,
                           const std::vector<char>& description)
    : System(name), channel_(&channel), index_(index) {
  wire::Reader r(description.data(), description.size());
  const auto names = [&](std::vector<std::string>& list) {
    list.resize(r.get_count(sizeof(std::uint64_t)));  // names: each its length at least
    for (auto& n : list) n = r.get_string();
  };
  names(inputs_);
  names(outputs_names_);
  names(states_);
  r.need(outputs_names_.size() * inputs_.size());  // a byte each, before the table is allocated
  feedthrough_.resize(outputs_names_.size() * inputs_.size());
  for (std::size_t i = 0; i < feedthrough_.size(); ++i) feedthrough_[i] = r.get<std::uint8_t>() != 0;
  for (Capability c : kAllCapabilities) {
    if (r.get<std::uint8_t>() != 0) capabilities_.add(c);
  }
  for (Capability c : kAllCapabilities) {
    if (r.get<std::uint8_t>() != 0) emulated_.add(c);
  }
  substeps_ = r.get<std::int32_t>();
  emulated_derivatives_ = r.get_string();
  derivative_order_ = r.get<std::int32_t>();
  for (std::size_t i = 0; i < inputs_.size(); ++i) input_ports_.push_back(get_port(r));
  for (std::size_t o = 0; o < outputs_names_.size(); ++o) output_ports_.push_back(get_port(r));
  descriptions_.resize(outputs_names_.size() + states_.size());
  for (std::string& text : descriptions_) text = r.get_string();
  names(variables_);
  outputs_.setZero(static_cast<Eigen::Index>(outputs_names_.size()));
}

std::string RemoteSystem::variable_description(std::string_view name) const {
  if (const int o = output_index(name); o >= 0) return descriptions_[static_cast<std::size_t>(o)];
  if (const int x = state_index(name); x >= 0)
    return descriptions_[outputs_names_.size() + static_cast<std::size_t>(x)];
  return {};
}

void RemoteSystem::watch_variables(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (std::find(variables_.begin(), variables_.end(), name) == variables_.end()) System::watch_variables({name});
  }
  watch_ = names;  // sent with the first read: a recorder chooses its variables before the executor runs
}

void RemoteSystem::read_variables(Eigen::Ref<Eigen::VectorXd> out) const {
  Order o;
  o.watch = std::move(watch_);
  watch_.clear();
  o.read_variables = true;
  out = channel_->call(index_, o).variables;
}

void RemoteSystem::set_parameter(const std::string& parameter, double /*value*/) {
  throw Error(fmt::format("system '{}' runs in {}: set parameter '{}' in the scenario", name(), channel_->place(index_),
                          parameter));
}

std::string RemoteSystem::string_output(int output) const {
  Order o;
  o.read_strings.push_back(output);
  return channel_->call(index_, o).strings.at(0);
}

void RemoteSystem::set_string_input(int input, const std::string& value) {
  Order o;
  o.string_inputs.emplace_back(input, value);
  (void)channel_->call(index_, o);
}

std::optional<WideInteger> RemoteSystem::wide_value(const std::string& name) const {
  Order o;
  o.read_wide.push_back(name);
  return channel_->call(index_, o).wide_values.at(0);
}

void RemoteSystem::set_wide_input(int input, WideInteger value) {
  Order o;
  o.wide_inputs.emplace_back(input, value);
  (void)channel_->call(index_, o);
}

void RemoteSystem::enter_initialization(double t_start) {
  Order o;
  o.initialize = t_start;
  (void)channel_->call(index_, o);
}

void RemoteSystem::exit_initialization() {
  Order o;
  o.exit_initialization = true;
  o.read_order = 0;
  (void)channel_->call(index_, o);
}

void RemoteSystem::outputs(Eigen::Ref<Eigen::VectorXd> y) const {
  if (!outputs_valid_) {
    Order o;
    o.read_order = 0;
    (void)channel_->call(index_, o);
  }
  y = outputs_;
}

void RemoteSystem::update(const Order& order, const Reply& reply, const Counters& counters) {
  time_ = reply.time;
  next_event_ = reply.next_event;
  event_pending_ = reply.event_pending;
  set_counters(counters.integrations, counters.seconds);
  const bool changed = order.restore || !std::isnan(order.initialize) || order.exit_initialization ||
                       order.set_inputs || order.step > 0.0;
  if (changed) outputs_valid_ = false;
  if (order.read_order >= 0 && reply.result.reached_end() && reply.outputs.cols() > 0) {
    outputs_ = reply.outputs.col(0);
    outputs_valid_ = true;
  }
}

void RemoteSystem::apply_inputs(const InputPolynomials& polynomials) {
  Order o;
  o.set_inputs = true;
  o.inputs = polynomials;
  (void)channel_->call(index_, o);
}

StepResult RemoteSystem::handle_pending_events() {
  Order o;
  o.handle_events = true;
  return channel_->call(index_, o).result;
}

StepResult RemoteSystem::integrate(double h) {
  Order o;
  o.step = h;
  return channel_->call(index_, o).result;
}

void RemoteSystem::compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const {
  Order o;
  o.read_order = order;
  dy = channel_->call(index_, o).outputs.col(order);
}

StateId RemoteSystem::do_save_state(StateId /*overwrite*/) {
  Order o;
  o.save = true;
  (void)channel_->call(index_, o);
  return 0;  // the host keeps one snapshot per system
}

void RemoteSystem::do_restore_state(StateId /*id*/) {
  Order o;
  o.restore = true;
  (void)channel_->call(index_, o);
}

void RemoteSystem::compute_states(Eigen::Ref<Eigen::VectorXd> x) const {
  Order o;
  o.read_states = true;
  x = channel_->call(index_, o).states;
}

void RemoteSystem::compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const {
  Order o;
  o.read_state_derivatives = true;
  dx = channel_->call(index_, o).state_derivatives;
}
const Linearization& RemoteSystem::compute_linearization() { remote_only("its linearization"); }

void RemoteSystem::remote_only(const char* what) const {
  throw Error(fmt::format("system '{}' runs in {}: {} is read there (through a COSTARICA order), not here", name(),
                          channel_->place(index_), what));
}

// --- orchestrator ---------------------------------------------------------------------------------

void RemoteExecutor::attach(model::ModularModel& model) {
  if (model.system_count() != static_cast<int>(names_.size())) {
    throw Error(fmt::format("{}: the model does not hold the scenario's systems", name()));
  }
  proxies_.assign(names_.size(), nullptr);
  for (int s = 0; s < model.system_count(); ++s) {
    auto* proxy = dynamic_cast<RemoteSystem*>(&model.system(s));
    if (proxy == nullptr || model.system(s).name() != names_[static_cast<std::size_t>(s)]) {
      throw Error(fmt::format("{}: system '{}' is not the proxy of its remote system", name(), model.system(s).name()));
    }
    proxies_[static_cast<std::size_t>(s)] = proxy;
  }
  single_.resize(model.system_count());
}

std::unique_ptr<System> RemoteExecutor::remote_system(const std::string& system) {
  for (std::size_t s = 0; s < names_.size(); ++s) {
    if (names_[s] == system)
      return std::make_unique<RemoteSystem>(*this, static_cast<int>(s), system, descriptions_[s]);
  }
  throw Error(fmt::format("{}: no system '{}' in the scenario", name(), system));
}

Reply RemoteExecutor::call(int system, const Order& order) {
  single_.clear();
  Order& o = single_.order(system);
  o = order;
  o.active = true;
  execute(single_);
  return single_.reply(system);
}

bool encode_orders(const Batch& batch, const std::function<int(int)>& owner, std::vector<std::vector<char>>& frames) {
  bool any = false;
  for (int s : batch.active()) {
    const Order& order = batch.orders()[static_cast<std::size_t>(s)];
    any = true;
    wire::Writer w(frames[static_cast<std::size_t>(owner(s))]);
    w.put(static_cast<std::int32_t>(s));
    write_order(w, order);
  }
  return any;
}

std::pair<int, std::string> decode_replies(const char* data, std::size_t size, Batch& batch,
                                           const std::vector<RemoteSystem*>& proxies) {
  wire::Reader r(data, size);
  std::pair<int, std::string> failure{-1, ""};
  while (!r.done()) {
    const int s = r.get<std::int32_t>();
    if (s < 0 || s >= batch.size()) throw Error(fmt::format("a reply for system {}, which is not in the batch", s));
    const Order& order = batch.orders()[static_cast<std::size_t>(s)];
    Reply& reply = batch.replies()[static_cast<std::size_t>(s)];
    Counters counters;
    std::string thrown = read_reply(r, order, reply, counters);
    if (static_cast<std::size_t>(s) < proxies.size() && proxies[static_cast<std::size_t>(s)] != nullptr) {
      RemoteSystem& proxy = *proxies[static_cast<std::size_t>(s)];
      if (thrown.empty() && reply.result.reached_end()) check_dimensions(order, reply, proxy);
      proxy.update(order, reply, counters);
    }
    if (!thrown.empty() && (failure.first < 0 || s < failure.first)) failure = {s, std::move(thrown)};
  }
  return failure;
}

std::string decode_descriptions(const char* data, std::size_t size, std::vector<std::vector<char>>& descriptions) {
  wire::Reader r(data, size);
  std::string failures;
  while (!r.done()) {
    const auto s = r.get<std::int32_t>();
    const bool ok = r.get<std::uint8_t>() != 0;
    const std::string text = r.get_string();
    if (s < 0 || static_cast<std::size_t>(s) >= descriptions.size())
      throw Error(fmt::format("a description of system {}", s));
    if (ok)
      descriptions[static_cast<std::size_t>(s)].assign(text.begin(), text.end());
    else
      failures += fmt::format("{}{}", failures.empty() ? "" : "; ", text);  // as in process: the text names the system
  }
  return failures;
}

// --- server ---------------------------------------------------------------------------------------

SystemServer::SystemServer(const SystemCatalog& catalog, const std::vector<int>& systems) {
  wire::Writer w(descriptions_);
  for (int s : systems) {
    w.put(static_cast<std::int32_t>(s));
    try {
      Owned entry;
      entry.system = catalog.build(s);
      entry.host.system = entry.system.get();
      std::vector<char> description;
      wire::Writer d(description);
      describe(*entry.system, d);
      w.put(static_cast<std::uint8_t>(1));
      w.put(std::string(description.begin(), description.end()));
      owned_.emplace_back(s, std::move(entry));
    } catch (const std::exception& e) {
      w.put(static_cast<std::uint8_t>(0));
      w.put(std::string(e.what()));
    }
  }
}

void SystemServer::serve(const char* data, std::size_t size, std::vector<char>& replies,
                         const std::function<void(int)>& before) {
  wire::Reader r(data, size);
  arrival_.clear();
  while (!r.done()) {
    const int s = r.get<std::int32_t>();
    const auto it = std::find_if(owned_.begin(), owned_.end(), [&](const auto& entry) { return entry.first == s; });
    if (it == owned_.end()) throw Error(fmt::format("an order for system {}, which this server does not own", s));
    read_order(r, it->second.order);
    arrival_.emplace_back(s, &it->second);
  }
  replies.clear();
  wire::Writer w(replies);
  for (const auto& [s, owned] : arrival_) {
    Owned& entry = *owned;
    if (before) before(s);
    std::string failure;
    try {
      carry_out(entry.host, entry.order, entry.reply);
    } catch (const std::exception& e) {
      failure = e.what();
      if (failure.empty()) failure = "unknown failure";
    }
    w.put(static_cast<std::int32_t>(s));
    write_reply(w, entry.order, entry.reply, *entry.system, failure);
  }
}

}  // namespace cosima::exec
