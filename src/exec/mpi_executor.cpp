#include "exec/mpi_executor.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <cstdint>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "exec/wire.hpp"
#include "nonlinear/snes_solver.hpp"

namespace cosima {

namespace {

enum Command : int { kExecute = 1, kShutdown = 2 };

// --- what crosses the wire ----------------------------------------------------------------------

void write_order(wire::Writer& w, const Order& o) {
  w.put(static_cast<std::uint8_t>(o.restore));
  w.put(static_cast<std::uint8_t>(o.save));
  w.put(o.initialize);
  w.put(static_cast<std::uint8_t>(o.configure_estimator.has_value()));
  if (o.configure_estimator) {
    const EstimatorOptions& e = *o.configure_estimator;
    w.put(static_cast<std::int32_t>(e.response.method));
    w.put(static_cast<std::int32_t>(e.response.stehfest_terms));
    w.put(e.response.richardson_fraction);
    w.put(static_cast<std::int32_t>(e.control));
    w.put(static_cast<std::uint8_t>(e.affine_term));
  }
  w.put(static_cast<std::uint8_t>(o.set_inputs));
  if (o.set_inputs) w.put_matrix(o.inputs);
  w.put(o.step);
  w.put(static_cast<std::int32_t>(o.read_order));
  w.put(static_cast<std::uint8_t>(o.read_states));
  w.put(static_cast<std::uint8_t>(o.estimate_begin));
  if (o.estimate_begin) w.put_matrix(o.estimate_u_now);
  w.put(o.estimate_h);
}

void read_order(wire::Reader& r, Order& o) {
  o.clear();
  o.active = true;
  o.restore = r.get<std::uint8_t>() != 0;
  o.save = r.get<std::uint8_t>() != 0;
  o.initialize = r.get<double>();
  if (r.get<std::uint8_t>() != 0) {
    EstimatorOptions e;
    e.response.method = static_cast<InverseLaplace>(r.get<std::int32_t>());
    e.response.stehfest_terms = r.get<std::int32_t>();
    e.response.richardson_fraction = r.get<double>();
    e.control = static_cast<ControlReconstruction>(r.get<std::int32_t>());
    e.affine_term = r.get<std::uint8_t>() != 0;
    o.configure_estimator = e;
  }
  o.set_inputs = r.get<std::uint8_t>() != 0;
  if (o.set_inputs) r.get_matrix(o.inputs);
  o.step = r.get<double>();
  o.read_order = r.get<std::int32_t>();
  o.read_states = r.get<std::uint8_t>() != 0;
  o.estimate_begin = r.get<std::uint8_t>() != 0;
  if (o.estimate_begin) r.get_matrix(o.estimate_u_now);
  o.estimate_h = r.get<double>();
}

/// A reply and the system's counters; `failure` is the text of an exception thrown while carrying
/// the order out (empty: none). Which parts travel follows from the order, known on both sides.
void write_reply(wire::Writer& w, const Order& o, const Reply& reply, const System& system, const std::string& failure) {
  w.put(failure);
  w.put(static_cast<std::uint8_t>(reply.result.status));
  w.put(reply.result.reason);
  w.put(reply.time);
  w.put(static_cast<std::int64_t>(system.integrations()));
  w.put(system.integration_seconds());
  if (!failure.empty() || !reply.result.ok()) return;
  if (o.read_order >= 0) w.put_matrix(reply.outputs);
  if (o.read_states) w.put_matrix(reply.states);
  if (o.estimate_h > 0.0) {
    w.put_matrix(reply.response.GV);
    w.put_matrix(reply.response.GD);
    w.put_matrix(reply.constant_value);
    w.put_matrix(reply.constant_derivative);
  }
}

struct Counters {
  std::int64_t integrations = 0;
  double seconds = 0.0;
};

std::string read_reply(wire::Reader& r, const Order& o, Reply& reply, Counters& counters) {
  std::string failure = r.get_string();
  reply.result.status = static_cast<StepResult::Status>(r.get<std::uint8_t>());
  reply.result.reason = r.get_string();
  reply.time = r.get<double>();
  counters.integrations = r.get<std::int64_t>();
  counters.seconds = r.get<double>();
  reply.estimate_ok = true;
  if (!failure.empty()) return failure;
  if (!reply.result.ok()) {
    reply.estimate_ok = o.estimate_h <= 0.0;  // an estimator failure is reported as a failed result
    return failure;
  }
  if (o.read_order >= 0) r.get_matrix(reply.outputs);
  if (o.read_states) r.get_matrix(reply.states);
  if (o.estimate_h > 0.0) {
    r.get_matrix(reply.response.GV);
    r.get_matrix(reply.response.GD);
    r.get_matrix(reply.constant_value);
    r.get_matrix(reply.constant_derivative);
  }
  return failure;
}

/// What a port carries, so that rank 0 checks connections and holds discrete inputs as in process.
void put_port(wire::Writer& w, const PortInfo& info) {
  w.put(static_cast<std::uint8_t>(info.kind));
  w.put(static_cast<std::uint8_t>(info.continuous));
  w.put(info.declared_type);
  w.put(info.min);
  w.put(info.max);
  w.put(static_cast<std::int32_t>(info.allowed.size()));
  for (double v : info.allowed) w.put(v);
  w.put(static_cast<std::uint8_t>(info.start.has_value()));
  w.put(info.start.value_or(0.0));
  w.put(info.start_text);
}

PortInfo get_port(wire::Reader& r) {
  PortInfo info;
  info.kind = static_cast<PortKind>(r.get<std::uint8_t>());
  info.continuous = r.get<std::uint8_t>() != 0;
  info.declared_type = r.get_string();
  info.min = r.get<double>();
  info.max = r.get<double>();
  info.allowed.resize(static_cast<std::size_t>(r.get<std::int32_t>()));
  for (double& v : info.allowed) v = r.get<double>();
  const bool has_start = r.get<std::uint8_t>() != 0;
  const double start = r.get<double>();
  if (has_start) info.start = start;
  info.start_text = r.get_string();
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
    for (int i = 0; i < system.input_count(); ++i) w.put(static_cast<std::uint8_t>(system.output_depends_on_input(o, i)));
  }
  for (Capability c : kAllCapabilities) w.put(static_cast<std::uint8_t>(system.has(c)));
  w.put(static_cast<std::int32_t>(system.max_output_derivative_order()));
  for (int i = 0; i < system.input_count(); ++i) put_port(w, system.input_info(i));
  for (int o = 0; o < system.output_count(); ++o) put_port(w, system.output_info(o));
}

void mpi_check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(fmt::format("MPI: {} failed: {}", call, std::string(text, static_cast<std::size_t>(length))));
}

/// Waits for a non-blocking collective without holding a core: a short spin, then sleeps that
/// grow to 200 µs. A waiting rank (rank 0 while the workers step, a worker while rank 0 solves)
/// must leave the CPU to the ranks that work — with more ranks than cores a blocking MPI call
/// would spin and take it.
void complete(MPI_Request& request, const char* call) {
  int done = 0;
  for (int spin = 0; spin < 200 && done == 0; ++spin) mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
  auto pause = std::chrono::microseconds(5);
  while (done == 0) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
    mpi_check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), call);
  }
}

// The collectives of the protocol, each completed by complete().
void bcast(int& value) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  complete(request, "MPI_Ibcast");
}
void scatter(const int* counts, int& mine) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iscatter(counts, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &request), "MPI_Iscatter");
  complete(request, "MPI_Iscatter");
}
void scatterv(const char* send, const int* counts, const int* displacements, char* receive, int count) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iscatterv(send, counts, displacements, MPI_BYTE, receive, count, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
            "MPI_Iscatterv");
  complete(request, "MPI_Iscatterv");
}
void gather(int mine, int* counts) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD, &request), "MPI_Igather");
  complete(request, "MPI_Igather");
}
void gatherv(const char* send, int count, char* receive, const int* counts, const int* displacements) {
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igatherv(send, count, MPI_BYTE, receive, counts, displacements, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
            "MPI_Igatherv");
  complete(request, "MPI_Igatherv");
}

}  // namespace

// --- the proxy on rank 0 ------------------------------------------------------------------------

class RemoteSystem final : public System {
 public:
  RemoteSystem(MpiExecutor& executor, int index, const std::string& name, const std::vector<char>& description, int rank)
      : System(name), executor_(&executor), index_(index), rank_(rank) {
    wire::Reader r(description.data(), description.size());
    const auto names = [&](std::vector<std::string>& list) {
      list.resize(static_cast<std::size_t>(r.get<std::int32_t>()));
      for (auto& n : list) n = r.get_string();
    };
    names(inputs_);
    names(outputs_names_);
    names(states_);
    feedthrough_.resize(outputs_names_.size() * inputs_.size());
    for (std::size_t i = 0; i < feedthrough_.size(); ++i) feedthrough_[i] = r.get<std::uint8_t>() != 0;
    for (Capability c : kAllCapabilities) {
      if (r.get<std::uint8_t>() != 0) capabilities_.add(c);
    }
    derivative_order_ = r.get<std::int32_t>();
    for (std::size_t i = 0; i < inputs_.size(); ++i) input_ports_.push_back(get_port(r));
    for (std::size_t o = 0; o < outputs_names_.size(); ++o) output_ports_.push_back(get_port(r));
    outputs_.setZero(static_cast<Eigen::Index>(outputs_names_.size()));
  }
  [[nodiscard]] std::string string_output(int output) const override {
    throw Error(fmt::format("system '{}' runs on rank {}: its String output '{}' is not exchanged over MPI (use "
                            "--executor sequential or threads:N)",
                            name(), rank_, outputs_names_[static_cast<std::size_t>(output)]));
  }
  void set_string_input(int input, const std::string& /*value*/) override {
    throw Error(fmt::format("system '{}' runs on rank {}: its String input '{}' is not exchanged over MPI (use "
                            "--executor sequential or threads:N)",
                            name(), rank_, inputs_[static_cast<std::size_t>(input)]));
  }
  [[nodiscard]] const PortInfo& input_info(int input) const override { return input_ports_[static_cast<std::size_t>(input)]; }
  [[nodiscard]] const PortInfo& output_info(int output) const override {
    return output_ports_[static_cast<std::size_t>(output)];
  }

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return inputs_; }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return outputs_names_; }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return states_; }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override {
    return feedthrough_[static_cast<std::size_t>(output) * inputs_.size() + static_cast<std::size_t>(input)];
  }
  void set_parameter(const std::string& parameter, double /*value*/) override {
    throw Error(fmt::format("system '{}' runs on rank {}: set parameter '{}' in the scenario", name(), rank_, parameter));
  }
  void initialize(double t_start) override {
    Order o;
    o.initialize = t_start;
    o.read_order = 0;
    (void)executor_->call(index_, o);
  }
  [[nodiscard]] double time() const override { return time_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override {
    if (!outputs_valid_) {
      Order o;
      o.read_order = 0;
      (void)executor_->call(index_, o);
    }
    y = outputs_;
  }

  /// After each reply: what the proxy can now answer without asking.
  void update(const Order& order, const Reply& reply, const Counters& counters) {
    time_ = reply.time;
    set_counters(counters.integrations, counters.seconds);
    const bool changed = order.restore || !std::isnan(order.initialize) || order.set_inputs || order.step > 0.0;
    if (changed) outputs_valid_ = false;
    if (order.read_order >= 0 && reply.result.ok() && reply.outputs.cols() > 0) {
      outputs_ = reply.outputs.col(0);
      outputs_valid_ = true;
    }
  }

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return capabilities_; }
  [[nodiscard]] int provided_output_derivative_order() const override { return derivative_order_; }
  void apply_inputs(const InputPolynomials& polynomials) override {
    Order o;
    o.set_inputs = true;
    o.inputs = polynomials;
    (void)executor_->call(index_, o);
  }
  StepResult integrate(double h) override {
    Order o;
    o.step = h;
    return executor_->call(index_, o).result;
  }
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override {
    Order o;
    o.read_order = order;
    dy = executor_->call(index_, o).outputs.col(order);
  }
  StateId do_save_state(StateId /*overwrite*/) override {
    Order o;
    o.save = true;
    (void)executor_->call(index_, o);
    return 0;  // the host keeps one snapshot per system
  }
  void do_restore_state(StateId /*id*/) override {
    Order o;
    o.restore = true;
    (void)executor_->call(index_, o);
  }
  void do_release_state(StateId /*id*/) override {}
  void compute_states(Eigen::Ref<Eigen::VectorXd> x) const override {
    Order o;
    o.read_states = true;
    x = executor_->call(index_, o).states;
  }
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> /*dx*/) const override { remote_only("state derivatives"); }
  const Linearization& compute_linearization() override { remote_only("its linearization"); }

 private:
  [[noreturn]] void remote_only(const char* what) const {
    throw Error(fmt::format("system '{}' runs on rank {}: {} is read there (through a COSTARICA order), not on rank 0",
                            name(), rank_, what));
  }

  MpiExecutor* executor_;
  int index_, rank_;
  std::vector<std::string> inputs_, outputs_names_, states_;
  std::vector<PortInfo> input_ports_, output_ports_;
  std::vector<bool> feedthrough_;
  CapabilitySet capabilities_;
  int derivative_order_ = 0;
  double time_ = 0.0;
  Eigen::VectorXd outputs_;
  bool outputs_valid_ = false;
};

// --- session ------------------------------------------------------------------------------------

MpiSession::MpiSession() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized == 0) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // errors come back as codes
}

MpiSession::~MpiSession() {
  finalize_petsc();  // PETSc uses MPI: it goes first
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Finalize();
}

int owner_rank(int s, int systems, int ranks) {
  const int workers = ranks - 1;
  return 1 + static_cast<int>((static_cast<long long>(s) * workers) / systems);
}

// --- rank 0 -------------------------------------------------------------------------------------

MpiExecutor::MpiExecutor(const Scenario& scenario) {
  MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  if (ranks_ < 2) {
    throw Error("the MPI executor needs rank 0 and at least one worker: mpirun -n 3 cosima run … --executor mpi");
  }
  for (const auto& spec : scenario.systems) names_.push_back(spec.name);
  const int systems = static_cast<int>(names_.size());
  descriptions_.assign(static_cast<std::size_t>(systems), {});
  counts_.assign(static_cast<std::size_t>(ranks_), 0);
  displacements_.assign(static_cast<std::size_t>(ranks_), 0);
  outgoing_.assign(static_cast<std::size_t>(ranks_), {});
  running_ = true;
  // the workers report what they built
  receive_from_workers();
  wire::Reader r(receive_.data(), receive_.size());
  std::string failures;
  while (!r.done()) {
    const auto s = static_cast<std::size_t>(r.get<std::int32_t>());
    const bool ok = r.get<std::uint8_t>() != 0;
    const std::string text = r.get_string();
    if (!ok) {
      failures += fmt::format("{}rank {}: {}", failures.empty() ? "" : "; ", owner_rank(static_cast<int>(s), systems, ranks_), text);
    } else {
      descriptions_[s].assign(text.begin(), text.end());
    }
  }
  if (!failures.empty()) {
    shutdown();
    throw Error(failures);
  }
}

MpiExecutor::~MpiExecutor() {
  try {
    shutdown();
  } catch (const std::exception& e) {
    std::cerr << "cosima: shutting the MPI workers down: " << e.what() << '\n';
  }
}

void MpiExecutor::shutdown() {
  if (!running_) return;
  running_ = false;
  int command = kShutdown;
  bcast(command);
}

std::string MpiExecutor::name() const { return fmt::format("mpi ({} workers)", ranks_ - 1); }

std::unique_ptr<System> MpiExecutor::remote_system(const std::string& name) {
  for (std::size_t s = 0; s < names_.size(); ++s) {
    if (names_[s] != name) continue;
    return std::make_unique<RemoteSystem>(*this, static_cast<int>(s), name, descriptions_[s],
                                          owner_rank(static_cast<int>(s), static_cast<int>(names_.size()), ranks_));
  }
  throw Error(fmt::format("MPI executor: no system '{}' in the scenario", name));
}

void MpiExecutor::attach(ModularModel& model) {
  if (model.system_count() != static_cast<int>(names_.size())) {
    throw Error("MPI executor: the model does not hold the scenario's systems");
  }
  proxies_.assign(names_.size(), nullptr);
  for (int s = 0; s < model.system_count(); ++s) {
    auto* proxy = dynamic_cast<RemoteSystem*>(&model.system(s));
    if (proxy == nullptr || model.system(s).name() != names_[static_cast<std::size_t>(s)]) {
      throw Error(fmt::format("MPI executor: system '{}' is not the proxy of its remote system", model.system(s).name()));
    }
    proxies_[static_cast<std::size_t>(s)] = proxy;
  }
  single_.resize(model.system_count());
}

void MpiExecutor::execute(Batch& batch) {
  const int systems = static_cast<int>(names_.size());
  for (auto& bytes : outgoing_) bytes.clear();
  bool any = false;
  for (int s = 0; s < batch.size(); ++s) {
    const Order& order = batch.orders()[static_cast<std::size_t>(s)];
    if (!order.active) continue;
    any = true;
    wire::Writer w(outgoing_[static_cast<std::size_t>(owner_rank(s, systems, ranks_))]);
    w.put(static_cast<std::int32_t>(s));
    write_order(w, order);
  }
  if (!any) return;
  if (!running_) throw Error("MPI executor: the workers have been shut down");
  // orders out
  int command = kExecute;
  bcast(command);
  send_.clear();
  for (int r = 0; r < ranks_; ++r) {
    counts_[static_cast<std::size_t>(r)] = static_cast<int>(outgoing_[static_cast<std::size_t>(r)].size());
    displacements_[static_cast<std::size_t>(r)] = static_cast<int>(send_.size());
    send_.insert(send_.end(), outgoing_[static_cast<std::size_t>(r)].begin(), outgoing_[static_cast<std::size_t>(r)].end());
  }
  int mine = 0;
  scatter(counts_.data(), mine);
  scatterv(send_.data(), counts_.data(), displacements_.data(), nullptr, 0);
  // replies in
  receive_from_workers();
  wire::Reader r(receive_.data(), receive_.size());
  int failed_system = -1;
  std::string failure;
  while (!r.done()) {
    const int s = r.get<std::int32_t>();
    const Order& order = batch.orders()[static_cast<std::size_t>(s)];
    Reply& reply = batch.replies()[static_cast<std::size_t>(s)];
    Counters counters;
    const std::string thrown = read_reply(r, order, reply, counters);
    if (!proxies_.empty() && proxies_[static_cast<std::size_t>(s)] != nullptr) {
      proxies_[static_cast<std::size_t>(s)]->update(order, reply, counters);
    }
    if (!thrown.empty() && (failed_system < 0 || s < failed_system)) {
      failed_system = s;
      failure = thrown;
    }
  }
  if (failed_system >= 0) {
    throw Error(fmt::format("rank {}: {}", owner_rank(failed_system, systems, ranks_), failure));
  }
}

void MpiExecutor::receive_from_workers() {
  gather(0, counts_.data());
  int total = 0;
  for (int r = 0; r < ranks_; ++r) {
    displacements_[static_cast<std::size_t>(r)] = total;
    total += counts_[static_cast<std::size_t>(r)];
  }
  receive_.resize(static_cast<std::size_t>(total));
  gatherv(nullptr, 0, receive_.data(), counts_.data(), displacements_.data());
}

Reply MpiExecutor::call(int system, const Order& order) {
  single_.clear();
  Order& o = single_.order(system);
  o = order;
  o.active = true;
  execute(single_);
  return single_.reply(system);
}

// --- ranks 1…n ----------------------------------------------------------------------------------

namespace {

struct OwnedSystem {
  std::unique_ptr<System> system;
  SystemHost host;
  Order order;
  Reply reply;
};

void serve(const Scenario& scenario, int rank, int ranks) {
  const int systems = static_cast<int>(scenario.systems.size());
  std::map<int, OwnedSystem> owned;
  std::vector<char> bytes;
  {
    wire::Writer w(bytes);
    for (int s = 0; s < systems; ++s) {
      if (owner_rank(s, systems, ranks) != rank) continue;
      w.put(static_cast<std::int32_t>(s));
      try {
        OwnedSystem entry;
        entry.system = build_system(scenario.systems[static_cast<std::size_t>(s)]);
        entry.host.system = entry.system.get();
        std::vector<char> description;
        wire::Writer d(description);
        describe(*entry.system, d);
        w.put(static_cast<std::uint8_t>(1));
        w.put(std::string(description.begin(), description.end()));
        owned.emplace(s, std::move(entry));
      } catch (const std::exception& e) {
        w.put(static_cast<std::uint8_t>(0));
        w.put(std::string(e.what()));
      }
    }
  }
  auto reply = [&] {
    const int count = static_cast<int>(bytes.size());
    gather(count, nullptr);
    gatherv(bytes.data(), count, nullptr, nullptr, nullptr);
  };
  reply();
  std::vector<char> incoming;
  std::vector<int> order_of_arrival;
  while (true) {
    int command = 0;
    bcast(command);
    if (command == kShutdown) return;
    if (command != kExecute) throw Error(fmt::format("unknown command {} from rank 0", command));
    int count = 0;
    scatter(nullptr, count);
    incoming.resize(static_cast<std::size_t>(count));
    scatterv(nullptr, nullptr, nullptr, incoming.data(), count);
    wire::Reader r(incoming.data(), incoming.size());
    order_of_arrival.clear();
    while (!r.done()) {
      const int s = r.get<std::int32_t>();
      const auto it = owned.find(s);
      if (it == owned.end()) throw Error(fmt::format("an order for system {} which rank {} does not own", s, rank));
      read_order(r, it->second.order);
      order_of_arrival.push_back(s);
    }
    bytes.clear();
    wire::Writer w(bytes);
    for (int s : order_of_arrival) {
      OwnedSystem& entry = owned.at(s);
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
    reply();
  }
}

}  // namespace

void serve_mpi_worker(const Scenario& scenario) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    serve(scenario, rank, ranks);
  } catch (const std::exception& e) {
    // the protocol is broken: end the whole job rather than leave rank 0 waiting
    std::cerr << fmt::format("cosima: rank {}: {} — aborting the run\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace cosima
