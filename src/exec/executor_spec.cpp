#include "exec/executor_spec.hpp"

#include <charconv>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima::exec {

namespace {

constexpr std::string_view kForms = "sequential, threads:N, processes[:N], mpi";

/// N of "PREFIX:N", or 0 when it is not a positive integer.
int count_after(std::string_view text, std::string_view prefix) {
  const std::string_view digits = text.substr(prefix.size());
  int count = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  return error == std::errc() && end == digits.data() + digits.size() && count >= 1 ? count : 0;
}

}  // namespace

ExecutorSpec parse_executor_spec(std::string_view text) {
  ExecutorSpec spec{.kind = ExecutorSpec::Kind::sequential, .count = 0, .text = std::string(text)};
  if (text == "sequential") return spec;
  if (text == "mpi") {
    spec.kind = ExecutorSpec::Kind::mpi;
    return spec;
  }
  if (text == "processes") {
    spec.kind = ExecutorSpec::Kind::processes;
    return spec;
  }
  for (const auto& [prefix, kind] : {std::pair{std::string_view("threads:"), ExecutorSpec::Kind::threads},
                                     std::pair{std::string_view("processes:"), ExecutorSpec::Kind::processes}}) {
    if (!text.starts_with(prefix)) continue;
    spec.kind = kind;
    spec.count = count_after(text, prefix);
    if (spec.count == 0) throw Error(fmt::format("executor '{}': N must be a positive integer ({}N)", text, prefix));
    return spec;
  }
  throw Error(fmt::format("unknown executor '{}' (executors: {})", text, kForms));
}

}  // namespace cosima::exec
