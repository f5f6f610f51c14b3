// MemoryLimit: CONFIG's maxmemory, and the memory it is held against: the
// process's resident memory (its memtables, block cache, connections and
// Lua states are all in it; INFO's used_memory). Past the limit the server
// refuses what Redis's noeviction policy refuses (commands flagged
// "denyoom", anything queued in MULTI, scripts that may write): the keys
// live in RocksDB, which is bounded by its own settings, so there is
// nothing to evict; maxmemory-policy is kept without effect.
//
// The resident size is read from /proc/self/statm at most every
// kRefreshMs, so a check costs two relaxed loads almost always.
//
// Thread safety: every member may be called from any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace teksdb::server {

class MemoryLimit {
 public:
  static constexpr int64_t kRefreshMs = 100;
  static constexpr const char* kError = "OOM command not allowed when used memory > 'maxmemory'.";

  int64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(int64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }

  // The resident memory now (as of at most kRefreshMs ago).
  int64_t UsedBytes();
  // Whether a limit is set and the memory used is past it.
  bool Exceeded() {
    const int64_t limit = limit_.load(std::memory_order_relaxed);
    return limit > 0 && UsedBytes() > limit;
  }

 private:
  std::atomic<int64_t> limit_{0};  // 0: none
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> read_at_ms_{-kRefreshMs};
};

}  // namespace teksdb::server
