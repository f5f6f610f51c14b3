// RecentPeak: the largest value recorded over the last few seconds, as
// Redis keeps INFO's client_recent_max_input_buffer and
// client_recent_max_output_buffer (one slot per second, kSeconds slots).
//
// Thread safety: Record and Max may be called from any thread (relaxed
// atomics; a slot being reused as another second's may lose one record,
// which only makes the peak shown a little lower for that second).
#pragma once

#include <atomic>
#include <cstdint>

namespace teksdb::server {

class RecentPeak {
 public:
  static constexpr int64_t kSeconds = 8;

  void Record(int64_t value, int64_t now_s) {
    Slot& slot = slots_[now_s % kSeconds];
    if (slot.second.load(std::memory_order_relaxed) != now_s) {
      slot.second.store(now_s, std::memory_order_relaxed);
      slot.peak.store(value, std::memory_order_relaxed);
      return;
    }
    int64_t seen = slot.peak.load(std::memory_order_relaxed);
    while (value > seen && !slot.peak.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
    }
  }
  // The largest value recorded in the kSeconds seconds up to now_s.
  int64_t Max(int64_t now_s) const {
    int64_t max = 0;
    for (const Slot& slot : slots_) {
      if (now_s - slot.second.load(std::memory_order_relaxed) >= kSeconds) continue;
      const int64_t peak = slot.peak.load(std::memory_order_relaxed);
      if (peak > max) max = peak;
    }
    return max;
  }

 private:
  struct Slot {
    std::atomic<int64_t> second{-kSeconds};
    std::atomic<int64_t> peak{0};
  };
  Slot slots_[kSeconds];
};

}  // namespace teksdb::server
