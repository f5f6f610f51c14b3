// AccessClock's table.
#include "access_clock.h"

#include <functional>

#include "monotonic_clock.h"

namespace teksdb::server {

AccessClock::AccessClock()
    : start_ms_(MonotonicMs()), slots_(new std::atomic<uint32_t>[kSlots]) {
  for (size_t i = 0; i < kSlots; ++i) slots_[i].store(0, std::memory_order_relaxed);
}

size_t AccessClock::SlotOf(int db, std::string_view key) {
  const size_t h = std::hash<std::string_view>()(key) ^ (static_cast<size_t>(db) * 0x9e3779b97f4a7c15ULL);
  return (h ^ (h >> 29)) & (kSlots - 1);
}

uint32_t AccessClock::Now() const {
  return static_cast<uint32_t>((MonotonicMs() - start_ms_) / 1000 + 1);
}

void AccessClock::Touch(int db, std::string_view key) {
  std::atomic<uint32_t>& slot = slots_[SlotOf(db, key)];
  const uint32_t now = Now();
  // (A read of the slot first: a hot key costs no store, and no cache
  // line ping-pong between the threads that read it.)
  if (slot.load(std::memory_order_relaxed) != now) slot.store(now, std::memory_order_relaxed);
}

int64_t AccessClock::IdleSeconds(int db, std::string_view key) const {
  const uint32_t at = slots_[SlotOf(db, key)].load(std::memory_order_relaxed);
  return static_cast<int64_t>(Now()) - (at == 0 ? 1 : at);
}

}  // namespace teksdb::server
