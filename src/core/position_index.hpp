#pragma once
// A hash index over the positions 0 … n−1 of a sequence of names that its owner keeps (a vector of
// strings, of systems, of key–value pairs): find(name) gives the position. It stores no copy of a
// name, only positions, so it stays valid when the sequence is moved or copied along with it; the
// owner passes `name_at(position)` to every call.
//
// Open addressing with linear probing: a slot holds the upper 32 bits of the name's hash beside
// position + 1 (0 is an empty slot), so a probe compares a name only when the hashes agree. The
// table is at most half full; it is rebuilt at twice the size when it would be fuller. One lookup
// touches one slot (rarely two) and one name, where std::unordered_map follows a bucket, the node
// before the wanted one and the node itself: at 10⁵ names, each a cache and TLB miss.
//
// Call order: rebuild(n, name_at) or append(n, name_at) after the sequence grows to n names (append
// when exactly one name was added since the last call); find(name, name_at) between changes;
// clear() after any other change (erase, reorder), then rebuild.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"

namespace cosima {

class PositionIndex {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  /// How many names the index holds (0 after clear()).
  [[nodiscard]] std::size_t size() const { return indexed_; }

  template <class NameAt>
  [[nodiscard]] std::size_t find(std::string_view name, const NameAt& name_at) const {
    if (slots_.empty()) return npos;
    const std::uint64_t h = hash(name);
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = h & mask;; slot = (slot + 1) & mask) {
      const std::uint64_t entry = slots_[slot];
      if (entry == 0) return npos;
      const std::size_t position = static_cast<std::size_t>(entry & 0xffffffffU) - 1;
      if ((entry >> 32) == (h >> 32) && std::string_view(name_at(position)) == name) return position;
    }
  }

  /// The sequence now holds `n` names, one more than the index: the last is added.
  template <class NameAt>
  void append(std::size_t n, const NameAt& name_at) {
    if (n != indexed_ + 1 || 2 * n > slots_.size() || n >= kMaxNames) return rebuild(n, name_at);
    place(n - 1, name_at);
    indexed_ = n;
  }

  template <class NameAt>
  void rebuild(std::size_t n, const NameAt& name_at) {
    if (n >= kMaxNames) throw Error(fmt::format("{} names exceed what a name index holds ({})", n, kMaxNames - 1));
    std::size_t capacity = 64;
    while (capacity < 2 * n) capacity *= 2;
    slots_.assign(capacity, 0);
    for (std::size_t k = 0; k < n; ++k) place(k, name_at);
    indexed_ = n;
  }

  void clear() {
    slots_.clear();
    indexed_ = 0;
  }

 private:
  static constexpr std::size_t kMaxNames = 0xffffffffU;  ///< a slot holds position + 1 in 32 bits

  static std::uint64_t hash(std::string_view name) noexcept { return std::hash<std::string_view>{}(name); }

  template <class NameAt>
  void place(std::size_t position, const NameAt& name_at) {
    const std::uint64_t h = hash(std::string_view(name_at(position)));
    const std::size_t mask = slots_.size() - 1;
    std::size_t slot = h & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = (h & ~std::uint64_t{0xffffffffU}) | static_cast<std::uint64_t>(position + 1);
  }

  std::vector<std::uint64_t> slots_;
  std::size_t indexed_ = 0;
};

}  // namespace cosima
