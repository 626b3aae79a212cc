#pragma once
// The one wire format of every out-of-process executor (MPI ranks, child processes): orders,
// replies and system descriptions as bytes (exec/wire.hpp), and the two ends that speak it.
//   orchestrator: encode_orders → (transport) → decode_replies, with RemoteSystem proxies in the
//                 model standing for the systems that live elsewhere
//   server:       SystemServer builds its share of the systems (exec/system_catalog.hpp), describes them, and
//                 carries out the orders it receives (carry_out, exec/order.hpp)
// The transport only moves byte frames; how is the executor's business.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exec/executor.hpp"
#include "exec/order.hpp"
#include "exec/system_catalog.hpp"
#include "exec/wire.hpp"

namespace cosima::exec {

/// What the proxies' direct calls go through: one order for one system, carried out now.
class RemoteChannel {
 public:
  virtual Reply call(int system, const Order& order) = 0;
  /// Where system s lives, for messages ("rank 2", "process 1234").
  [[nodiscard]] virtual std::string place(int system) const = 0;

 protected:
  ~RemoteChannel() = default;
};

struct Counters {
  std::int64_t integrations = 0;
  double seconds = 0.0;
};

/// A system that lives elsewhere: its structure, capabilities and port types as described by its
/// server, its last outputs and counters as replied; direct calls become single orders.
class RemoteSystem final : public System {
 public:
  RemoteSystem(RemoteChannel& channel, int index, const std::string& name, const std::vector<char>& description);

  [[nodiscard]] const std::vector<std::string>& input_names() const override { return inputs_; }
  [[nodiscard]] const std::vector<std::string>& output_names() const override { return outputs_names_; }
  [[nodiscard]] const std::vector<std::string>& state_names() const override { return states_; }
  [[nodiscard]] const PortInfo& input_info(int input) const override {
    return input_ports_[static_cast<std::size_t>(input)];
  }
  [[nodiscard]] const PortInfo& output_info(int output) const override {
    return output_ports_[static_cast<std::size_t>(output)];
  }
  [[nodiscard]] bool output_depends_on_input(int output, int input) const override {
    return feedthrough_[static_cast<std::size_t>(output) * inputs_.size() + static_cast<std::size_t>(input)];
  }
  /// Of an output or a state, as the system described it.
  [[nodiscard]] std::string variable_description(std::string_view name) const override;
  /// Its other variables as described; watched and read through orders (a round trip per read).
  [[nodiscard]] std::vector<std::string> variable_names() const override { return variables_; }
  void watch_variables(const std::vector<std::string>& names) override;
  void read_variables(Eigen::Ref<Eigen::VectorXd> out) const override;
  void set_parameter(const std::string& parameter, double value) override;
  [[nodiscard]] std::string string_output(int output) const override;
  void set_string_input(int input, const std::string& value) override;
  /// String ports and exact 64-bit values: a round trip each (only where such ports are connected
  /// or recorded).
  [[nodiscard]] std::optional<WideInteger> wide_value(const std::string& name) const override;
  void set_wide_input(int input, WideInteger value) override;
  void enter_initialization(double t_start) override;
  void exit_initialization() override;
  [[nodiscard]] double time() const override { return time_; }
  void outputs(Eigen::Ref<Eigen::VectorXd> y) const override;
  [[nodiscard]] double next_event_time() const override { return next_event_; }
  [[nodiscard]] bool event_pending() const override { return event_pending_; }
  StepResult handle_pending_events() override;

  [[nodiscard]] CapabilitySet emulated_capabilities() const override { return emulated_; }
  [[nodiscard]] int emulation_substeps() const override { return substeps_; }
  [[nodiscard]] std::string emulated_derivatives() const override { return emulated_derivatives_; }

  /// After each reply: what the proxy can now answer without asking.
  void update(const Order& order, const Reply& reply, const Counters& counters);

 protected:
  [[nodiscard]] CapabilitySet provided_capabilities() const override { return capabilities_; }
  [[nodiscard]] int provided_output_derivative_order() const override { return derivative_order_; }
  void apply_inputs(const InputPolynomials& polynomials) override;
  StepResult integrate(double h) override;
  void compute_output_derivatives(int order, Eigen::Ref<Eigen::VectorXd> dy) const override;
  StateId do_save_state(StateId overwrite) override;
  void do_restore_state(StateId id) override;
  void do_release_state(StateId /*id*/) override {}
  void compute_states(Eigen::Ref<Eigen::VectorXd> x) const override;
  void compute_state_derivatives(Eigen::Ref<Eigen::VectorXd> dx) const override;
  const Linearization& compute_linearization() override;

 private:
  [[noreturn]] void remote_only(const char* what) const;

  RemoteChannel* channel_;
  int index_;
  std::vector<std::string> inputs_, outputs_names_, states_;
  std::vector<PortInfo> input_ports_, output_ports_;
  std::vector<std::string> descriptions_;   ///< of the outputs, then the states
  std::vector<std::string> variables_;      ///< System::variable_names of the system
  mutable std::vector<std::string> watch_;  ///< chosen by watch_variables, not yet sent
  std::vector<bool> feedthrough_;
  double next_event_ = std::numeric_limits<double>::infinity();  ///< as of the last reply
  bool event_pending_ = false;
  CapabilitySet capabilities_, emulated_;  ///< as the system (emulation included) declares them
  int substeps_ = 1;
  std::string emulated_derivatives_;
  int derivative_order_ = 0;
  double time_ = 0.0;
  Eigen::VectorXd outputs_;
  bool outputs_valid_ = false;
};

// --- orchestrator ---------------------------------------------------------------------------------

/// The orchestrator's side of an out-of-process executor: the model holds RemoteSystem proxies built
/// from the servers' descriptions. Subclasses fill names_ and descriptions_, move the frames
/// (execute) and say where a system lives (place).
class RemoteExecutor : public Executor, public RemoteChannel {
 public:
  void attach(model::ModularModel& model) override;
  [[nodiscard]] bool systems_are_local() const override { return false; }
  [[nodiscard]] std::unique_ptr<System> remote_system(const std::string& name) override;
  /// One order for one system, carried out now (a proxy's direct call).
  Reply call(int system, const Order& order) override;

 protected:
  std::vector<std::string> names_;               ///< the scenario's systems, in order
  std::vector<std::vector<char>> descriptions_;  ///< per system, as its server sent it
  std::vector<RemoteSystem*> proxies_;           ///< of the attached model, by system index

 private:
  Batch single_;
};

/// Appends (s, order) for every active order of the batch to frames[owner(s)]; false when none.
bool encode_orders(const Batch& batch, const std::function<int(int)>& owner, std::vector<std::vector<char>>& frames);

/// Reads the (s, reply) pairs of one frame into the batch and updates the proxies (may be empty).
/// Returns the lowest system index whose order threw on its server and the text, or {-1, ""}.
std::pair<int, std::string> decode_replies(const char* data, std::size_t size, Batch& batch,
                                           const std::vector<RemoteSystem*>& proxies);

/// Reads the (s, ok, description-or-error) triples of one frame into `descriptions` (by system);
/// returns the errors, as building the system in process gives them (each names its system).
std::string decode_descriptions(const char* data, std::size_t size, std::vector<std::vector<char>>& descriptions);

// --- server ---------------------------------------------------------------------------------------

/// The systems one server owns, built from the catalog where the server runs (FMUs are loaded there).
class SystemServer {
 public:
  SystemServer(const SystemCatalog& catalog, const std::vector<int>& systems);
  /// (s, ok, description-or-error) for every owned system.
  [[nodiscard]] const std::vector<char>& descriptions() const { return descriptions_; }
  /// Carries out the (s, order) pairs of one frame, in the order received; writes (s, reply) pairs.
  /// `before` is told which system is about to carry out its order.
  void serve(const char* data, std::size_t size, std::vector<char>& replies,
             const std::function<void(int)>& before = {});

 private:
  struct Owned {
    std::unique_ptr<System> system;
    SystemHost host;
    Order order;
    Reply reply;
  };
  std::vector<std::pair<int, Owned>> owned_;  ///< by system index, ascending
  std::vector<char> descriptions_;
  std::vector<std::pair<int, Owned*>> arrival_;  ///< this frame's orders, as received (reused)
};

}  // namespace cosima::exec
