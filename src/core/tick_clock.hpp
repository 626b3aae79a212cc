#pragma once
// A cheap clock for timing inside the hot loop (System::do_step times every integration).
// steady_clock costs ~25 ns per read under a hypervisor's kvm-clock; the CPU's invariant
// time-stamp counter costs a few. Ticks are the TSC where it is invariant (CPUID 0x80000007,
// EDX bit 8: constant rate, not stopped in sleep states), else steady_clock nanoseconds.
// to_seconds() converts with a rate calibrated against steady_clock over the process's life so
// far (at least 2 ms; the first conversion of a very short run waits for them).
#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define COSIMA_HAVE_TSC 1
#endif

namespace cosima::tick_clock {

/// Whether ticks are the time-stamp counter (decided once, at program start).
bool uses_tsc() noexcept;

/// The time-stamp counter (0 where there is none).
inline std::uint64_t tsc() noexcept {
#ifdef COSIMA_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

inline std::uint64_t now() noexcept {
  if (uses_tsc()) return tsc();
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

/// Seconds in `ticks` ticks.
double to_seconds(std::uint64_t ticks);

}  // namespace cosima::tick_clock
