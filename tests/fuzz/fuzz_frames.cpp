// The process executor's frames, as the orchestrator reads them from a forked process (or an MPI
// rank): system descriptions (decode_descriptions, then each description into a RemoteSystem
// proxy), replies (decode_replies into a batch and its proxies), both read with wire::Reader, and
// the shared-memory mailbox (ShmMailbox) they travel through, its slot written by the fuzzer as a
// stray write of the other process would.
//
// Input: byte 0 is the mode: bit 0 descriptions (else replies), bit 1 through the mailbox (else the
// rest is the frame), bit 2 the request slot (else the reply slot). Bytes 1–4: the order of each of
// the kSystems systems of the batch, as flags (order_of); byte 5: which of them have a proxy (bit s;
// bit 7: no proxy vector at all). Through the mailbox, bytes 6–9 are the reader's count of frames
// read (Cursor::read), byte 10 its polls before sleeping (mod 4), and the rest is written over the
// slot from its start (header, then data); the wait neither sleeps nor waits for a peer (a slice of
// 0 ms, a peer that is gone), and a frame it returns is decoded as above.
//
// The proxies are built from real descriptions: three of the built-in models served by a
// SystemServer in this process at start-up (a fourth system fails to build: an error text), and
// made again for each input; after the replies each is asked for its outputs, as a method reads them
// without a round trip. cosima::Error is the expected refusal; anything else escaping, a sanitizer
// report, a leak, a huge allocation or a hang is a finding.
//
// Seeds: COSIMA_FUZZ_WRITE_SEEDS=DIR build-fuzz/tests/fuzz/fuzz_frames writes valid frames of each
// mode to DIR (the seed corpus, tests/fuzz/corpus/fuzz_frames; the replies' time counters differ from
// one writing to the next) and exits.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "exec/order.hpp"
#include "exec/protocol.hpp"
#include "exec/shm_mailbox.hpp"
#include "fuzz_support.hpp"
#include "models/registry.hpp"
#include "system/native/integrator.hpp"
#include "system/native/native_system.hpp"

namespace {

using cosima::exec::ShmMailbox;

constexpr int kSystems = 4;
constexpr std::size_t kPrefix = 6;          ///< mode, kSystems order flags, proxy mask
constexpr std::size_t kMailboxPrefix = 11;  ///< and the cursor's read count and polls
constexpr std::uint8_t kDescriptions = 1, kThroughMailbox = 2, kRequestSlot = 4;
constexpr std::uint8_t kNoProxyVector = 0x80;
/// The systems: three built-in models (one with array ports) under dopri5, and one that fails to build.
constexpr const char* kNames[kSystems] = {"prey", "zone", "space", "missing"};
constexpr const char* kModels[kSystems] = {"b3.prey", "b7.zone", "state_space", "no.such.model"};

/// The proxies' channel: a proxy that must ask its system is refused (there is none behind it).
class NoChannel final : public cosima::exec::RemoteChannel {
 public:
  cosima::exec::Reply call(int system, const cosima::exec::Order& /*order*/) override {
    throw cosima::Error("system " + std::to_string(system) + " is behind no process (fuzz harness)");
  }
  [[nodiscard]] std::string place(int /*system*/) const override { return "the fuzz harness"; }
};

struct Setting {
  std::vector<std::vector<char>> descriptions;  ///< by system, as decoded from the server's frame
  std::vector<char> descriptions_frame;         ///< the server's
  std::unique_ptr<cosima::exec::SystemServer> server;
  NoChannel channel;
  ShmMailbox* mailbox = nullptr;
  std::size_t slot_size = 0;  ///< the reply slot starts here, after the request slot
  std::size_t header = 0;     ///< a slot's bytes before its data
};
Setting* g_setting = nullptr;  // made once, never destroyed (a server owns native systems)

cosima::exec::SystemCatalog catalog() {
  cosima::exec::SystemCatalog c;
  c.names.assign(std::begin(kNames), std::end(kNames));
  c.fmus.resize(c.names.size());
  c.build = [](int s) -> std::unique_ptr<cosima::System> {
    return std::make_unique<cosima::NativeSystem>(kNames[s], cosima::models::make_model(kModels[s]),
                                                  cosima::make_integrator("dopri5", {}));
  };
  return c;
}

/// The decoding-relevant parts of system s's order (what parts of its reply travel), from one byte:
/// bits 0–1 read_order + 1, then states, state derivatives, variables, two 64-bit values, one String
/// output, an estimator update 2.
void order_of(cosima::exec::Batch& batch, int s, std::uint8_t flags) {
  cosima::exec::Order& o = batch.order(s);
  o.read_order = (flags & 3) - 1;
  o.read_states = (flags & 4) != 0;
  o.read_state_derivatives = (flags & 8) != 0;
  o.read_variables = (flags & 16) != 0;
  if ((flags & 32) != 0) o.read_wide = {"x", "y"};
  if ((flags & 64) != 0) o.read_strings = {0};
  if ((flags & 128) != 0) o.estimate_h = 0.01;
  o.step = 0.01;
}

/// The mailbox's layout, checked through its public calls (one frame posted on each side of a fresh
/// mailbox): two equal slots, request then reply, each a header {sequence u32, sleeping u32, size
/// u64} and the data. A change of the layout stops the harness rather than fuzz the wrong bytes.
void map_mailbox(Setting& setting) {
  setting.mailbox = ShmMailbox::create();
  setting.slot_size = sizeof(ShmMailbox) / 2;
  setting.header = setting.slot_size - ShmMailbox::kCapacity;
  (void)setting.mailbox->post_request({'q'});
  (void)setting.mailbox->post_reply({'r', 'r'});
  auto* bytes = reinterpret_cast<unsigned char*>(setting.mailbox);
  const auto word = [&](std::size_t at) {
    std::uint64_t value = 0;
    std::memcpy(&value, bytes + at, sizeof value);
    return value;
  };
  const bool as_expected = setting.header == 16 && (word(0) & 0xFFFFFFFFU) == 1 && word(8) == 1 && bytes[16] == 'q' &&
                           (word(setting.slot_size) & 0xFFFFFFFFU) == 1 && word(setting.slot_size + 8) == 2 &&
                           bytes[setting.slot_size + 16] == 'r';
  if (!as_expected) cosima_fuzz::die("ShmMailbox's layout is not the one this harness writes over");
  std::memset(bytes, 0, sizeof(ShmMailbox));
}

Setting& setting() {
  if (g_setting != nullptr) return *g_setting;
  cosima::set_log_level(cosima::LogLevel::error);  // a reply's forwarded warnings are not printed
  g_setting = new Setting;
  Setting& s = *g_setting;
  s.server = std::make_unique<cosima::exec::SystemServer>(catalog(), std::vector<int>{0, 1, 2, 3});
  s.descriptions_frame = s.server->descriptions();
  s.descriptions.resize(kSystems);
  const std::string failures =
      cosima::exec::decode_descriptions(s.descriptions_frame.data(), s.descriptions_frame.size(), s.descriptions);
  if (failures.empty() || s.descriptions[0].empty() || s.descriptions[1].empty() || s.descriptions[2].empty())
    cosima_fuzz::die("the server did not describe systems 0–2 and refuse system 3: " + failures);
  map_mailbox(s);
  return s;
}

/// What a proxy answers without asking, for every part of its description.
void read_proxy(const cosima::System& proxy) {
  for (int o = 0; o < proxy.output_count(); ++o) {
    for (int i = 0; i < proxy.input_count(); ++i) (void)proxy.output_depends_on_input(o, i);
    (void)proxy.output_info(o).declared_type.size();
    (void)proxy.variable_description(proxy.output_names()[static_cast<std::size_t>(o)]);
  }
  for (int i = 0; i < proxy.input_count(); ++i) (void)proxy.input_info(i).item_names.size();
  for (const std::string& state : proxy.state_names()) (void)proxy.variable_description(state);
  (void)proxy.variable_names();
  (void)proxy.emulated_capabilities();
}

void decode_descriptions(const char* data, std::size_t size) {
  Setting& s = setting();
  std::vector<std::vector<char>> descriptions(kSystems);
  try {
    (void)cosima::exec::decode_descriptions(data, size, descriptions);
  } catch (const cosima::Error&) {
    return;
  }
  for (int i = 0; i < kSystems; ++i) {
    const auto& description = descriptions[static_cast<std::size_t>(i)];
    if (description.empty()) continue;
    try {
      const cosima::exec::RemoteSystem proxy(s.channel, i, kNames[i], description);
      read_proxy(proxy);
    } catch (const cosima::Error&) {
    }
  }
}

void decode_replies(const std::uint8_t* prefix, const char* data, std::size_t size) {
  Setting& s = setting();
  cosima::exec::Batch batch;
  batch.resize(kSystems);
  for (int i = 0; i < kSystems; ++i) order_of(batch, i, prefix[1 + i]);
  std::vector<std::unique_ptr<cosima::exec::RemoteSystem>> owned(kSystems);
  std::vector<cosima::exec::RemoteSystem*> proxies;
  if ((prefix[5] & kNoProxyVector) == 0) {
    proxies.assign(kSystems, nullptr);
    for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(kSystems); ++i) {  // the last has no description
      if ((prefix[5] & (1U << i)) == 0) continue;
      owned[i] =
          std::make_unique<cosima::exec::RemoteSystem>(s.channel, static_cast<int>(i), kNames[i], s.descriptions[i]);
      proxies[i] = owned[i].get();
    }
  }
  try {
    const auto [failed, text] = cosima::exec::decode_replies(data, size, batch, proxies);
    if (failed < -1 || failed >= kSystems || (failed >= 0) == text.empty()) __builtin_trap();
  } catch (const cosima::Error&) {
    return;
  }
  for (const auto& proxy : owned) {
    if (!proxy) continue;
    (void)proxy->time();
    (void)proxy->next_event_time();
    Eigen::VectorXd y(proxy->output_count());
    try {
      proxy->outputs(y);  // as of the last reply; asked of the (absent) process when it holds none
    } catch (const cosima::Error&) {
    }
  }
}

/// Writes the input past its prefix over the chosen slot of the mailbox (header, then data), waits
/// for one frame, and decodes what it returns; the slot is zeroed again afterwards.
void through_mailbox(const std::uint8_t* data, std::size_t size) {
  Setting& s = setting();
  const bool request = (data[0] & kRequestSlot) != 0;
  auto* bytes = reinterpret_cast<unsigned char*>(s.mailbox) + (request ? 0 : s.slot_size);
  const std::size_t written = std::min(size - kMailboxPrefix, s.slot_size);
  std::memcpy(bytes, data + kMailboxPrefix, written);
  ShmMailbox::Cursor cursor;
  std::memcpy(&cursor.read, data + 6, sizeof cursor.read);
  cursor.yields = data[10] % 4;
  const std::uint32_t read = cursor.read;
  std::vector<char> frame;
  const auto gone = [] { return false; };
  const auto waited = request ? s.mailbox->wait_request(cursor, frame, std::chrono::milliseconds(0), gone)
                              : s.mailbox->wait_reply(cursor, frame, std::chrono::milliseconds(0), gone);
  std::memset(bytes, 0, std::max(written, s.header));  // the wait writes the header's `sleeping`
  if (waited != ShmMailbox::Waited::frame && !frame.empty()) __builtin_trap();  // copied only when accepted
  if (frame.size() > ShmMailbox::kCapacity) __builtin_trap();
  if ((waited == ShmMailbox::Waited::frame || waited == ShmMailbox::Waited::on_socket) != (cursor.read == read + 1))
    __builtin_trap();  // the reader's count moves by one frame exactly when it took one
  if (waited != ShmMailbox::Waited::frame) return;
  if ((data[0] & kDescriptions) != 0)
    decode_descriptions(frame.data(), frame.size());
  else
    decode_replies(data, frame.data(), frame.size());
}

// --- seeds ----------------------------------------------------------------------------------------

void write_seed(const std::filesystem::path& dir, const std::string& name, const std::vector<char>& bytes) {
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) cosima_fuzz::die("cannot write " + (dir / name).string());
}

/// The replies the server gives to orders of these flags for systems 0–2 (after initializing them).
std::vector<char> served_replies(const std::uint8_t* flags) {
  Setting& s = setting();
  cosima::exec::Batch batch;
  batch.resize(kSystems);
  for (int i = 0; i < 3; ++i) {
    order_of(batch, i, flags[i]);
    cosima::exec::Order& o = batch.orders()[static_cast<std::size_t>(i)];
    o.initialize = 0.0;
    o.exit_initialization = true;
    if (o.estimate_h > 0.0) o.configure_estimator = cosima::estimator::EstimatorOptions{};
  }
  std::vector<std::vector<char>> frames(1);
  (void)cosima::exec::encode_orders(
      batch, [](int) { return 0; }, frames);
  std::vector<char> replies;
  s.server->serve(frames[0].data(), frames[0].size(), replies);
  return replies;
}

/// An input: the prefix, then (through the mailbox) the reader's count 0 and the slot holding
/// `frame` as the other side posts it, else `frame` itself.
std::vector<char> seed(std::uint8_t mode, const std::uint8_t* flags, std::uint8_t proxies,
                       const std::vector<char>& frame) {
  Setting& s = setting();
  std::vector<char> bytes = {static_cast<char>(mode)};
  for (int i = 0; i < kSystems; ++i) bytes.push_back(static_cast<char>(flags[i]));
  bytes.push_back(static_cast<char>(proxies));
  if ((mode & kThroughMailbox) == 0) {
    bytes.insert(bytes.end(), frame.begin(), frame.end());
    return bytes;
  }
  bytes.insert(bytes.end(), {0, 0, 0, 0, 2});
  ShmMailbox* mailbox = ShmMailbox::create();
  const bool request = (mode & kRequestSlot) != 0;
  if (!(request ? mailbox->post_request(frame) : mailbox->post_reply(frame))) cosima_fuzz::die("a seed too long");
  const char* slot = reinterpret_cast<const char*>(mailbox) + (request ? 0 : s.slot_size);
  bytes.insert(bytes.end(), slot, slot + s.header + frame.size());
  ShmMailbox::destroy(mailbox);
  return bytes;
}

[[noreturn]] void write_seeds(const std::filesystem::path& dir) {
  Setting& s = setting();
  std::filesystem::create_directories(dir);
  const std::uint8_t none[kSystems] = {0, 0, 0, 0};
  write_seed(dir, "descriptions", seed(kDescriptions, none, 0, s.descriptions_frame));
  write_seed(dir, "descriptions-reply-slot", seed(kDescriptions | kThroughMailbox, none, 0, s.descriptions_frame));
  const std::uint8_t outputs[kSystems] = {1, 1, 1, 0}, derivatives[kSystems] = {2 | 4 | 8, 2 | 4 | 8, 3 | 4, 0},
                     reads[kSystems] = {1 | 16 | 32, 1 | 64, 1 | 16, 0}, estimate[kSystems] = {1 | 128, 0, 1 | 128, 0};
  const std::vector<char> outputs_frame = served_replies(outputs);
  write_seed(dir, "replies-outputs", seed(0, outputs, 0x07, outputs_frame));
  write_seed(dir, "replies-outputs-no-proxies", seed(0, outputs, kNoProxyVector, outputs_frame));
  write_seed(dir, "replies-derivatives", seed(0, derivatives, 0x05, served_replies(derivatives)));
  write_seed(dir, "replies-reads", seed(0, reads, 0x03, served_replies(reads)));
  write_seed(dir, "replies-estimate", seed(0, estimate, 0x07, served_replies(estimate)));
  write_seed(dir, "replies-reply-slot", seed(kThroughMailbox, outputs, 0x07, outputs_frame));
  write_seed(dir, "replies-request-slot",
             seed(kThroughMailbox | kRequestSlot, derivatives, 0x02, served_replies(derivatives)));
  std::exit(0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  (void)setting();
  if (const char* dir = std::getenv("COSIMA_FUZZ_WRITE_SEEDS"); dir != nullptr && *dir != '\0') write_seeds(dir);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < kPrefix) return 0;
  if ((data[0] & kThroughMailbox) != 0) {
    if (size >= kMailboxPrefix) through_mailbox(data, size);
    return 0;
  }
  const auto* frame = reinterpret_cast<const char*>(data + kPrefix);
  if ((data[0] & kDescriptions) != 0)
    decode_descriptions(frame, size - kPrefix);
  else
    decode_replies(data, frame, size - kPrefix);
  return 0;
}
