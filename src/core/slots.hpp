#pragma once
// Numbered snapshots reused once released (rollback's save / restore / release by id): a vector of
// slots, each with an `in_use` flag.
#include <vector>

namespace cosima {

/// The slot to save into: `overwrite` when it names a slot in use, the first free slot (a new one
/// when all are taken) when overwrite < 0, and -1 when `overwrite` names no slot in use.
template <class Slot>
int acquire_slot(std::vector<Slot>& slots, int overwrite) {
  const auto count = static_cast<int>(slots.size());
  if (overwrite >= 0) return overwrite < count && slots[static_cast<std::size_t>(overwrite)].in_use ? overwrite : -1;
  int slot = 0;
  while (slot < count && slots[static_cast<std::size_t>(slot)].in_use) ++slot;
  if (slot == count) slots.emplace_back();
  return slot;
}

}  // namespace cosima
