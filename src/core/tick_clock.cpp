#include "core/tick_clock.hpp"

#include <mutex>

#ifdef COSIMA_HAVE_TSC
#include <cpuid.h>
#endif

namespace cosima::tick_clock {

namespace {

bool invariant_tsc() noexcept {
#ifdef COSIMA_HAVE_TSC
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000000U, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007U) return false;
  if (__get_cpuid(0x80000007U, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1U << 8U)) != 0;
#else
  return false;
#endif
}

/// The TSC decision and the calibration's start point, taken during static initialization.
struct Origin {
  bool tsc = invariant_tsc();
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  std::uint64_t ticks = tick_clock::tsc();
};

const Origin& origin() {
  static const Origin o;
  return o;
}
[[maybe_unused]] const Origin& g_origin_at_start = origin();  // taken before main()

}  // namespace

bool uses_tsc() noexcept {
  static const bool invariant = origin().tsc;
  return invariant;
}

double to_seconds(std::uint64_t ticks) {
  if (!uses_tsc()) return static_cast<double>(ticks) * 1e-9;
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  constexpr auto kMinimum = std::chrono::milliseconds(2);
  auto wall = std::chrono::steady_clock::now();
  while (wall - origin().wall < kMinimum) wall = std::chrono::steady_clock::now();
  const std::uint64_t elapsed_ticks = tick_clock::tsc() - origin().ticks;
  const double seconds_per_tick =
      std::chrono::duration<double>(wall - origin().wall).count() / static_cast<double>(elapsed_ticks);
  return static_cast<double>(ticks) * seconds_per_tick;
}

}  // namespace cosima::tick_clock
