// ClientLimits: how much of the server one client may hold, as Redis 7.0
// bounds it (CONFIG sets each; config_parameters.cc):
// - proto-max-bulk-len and client-query-buffer-limit: a request's bulk
//   arguments, and what a connection holds of requests not yet run;
//   (Before authentication Redis's fixed limits apply too: resp_parser.h.)
// - maxclients: connections accepted at once (the next is refused);
// - protected-mode: with no password set, only loopback clients are served;
// - client-output-buffer-limit: per class (normal, replica, pubsub) a hard
//   limit and a soft limit held for soft_seconds on the bytes queued for a
//   client and not yet written (0: none), past which the client is closed;
// - maxmemory-clients: what all clients together may hold before the
//   largest are evicted (client_registry.h), in bytes or a percentage of
//   maxmemory.
//
// Thread safety: every member may be called from any thread (atomics; a
// class's three limits are read one by one, so a reader may see a change
// half made, as in Redis, where CONFIG SET and clients run on one thread
// but a limit is checked long after it was set).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace teksdb::server {

class ClientLimits {
 public:
  // client-output-buffer-limit's classes, in Redis's order (CONFIG GET
  // names the replica class "slave").
  enum Class { kNormal = 0, kReplica = 1, kPubSub = 2, kClasses = 3 };
  struct OutputLimit {
    int64_t hard_bytes = 0, soft_bytes = 0, soft_seconds = 0;  // 0: none
  };

  std::atomic<int64_t> proto_max_bulk_len{int64_t{512} << 20};
  std::atomic<int64_t> query_buffer_limit{int64_t{1} << 30};
  std::atomic<int64_t> maxclients{10000};
  // The most clients the process's descriptors leave room for (set at
  // start: main.cc's reserve for RocksDB and the server's own files).
  std::atomic<int64_t> maxclients_possible{std::numeric_limits<uint32_t>::max()};
  std::atomic<bool> protected_mode{true};
  // maxmemory-clients as set: bytes, or minus a percentage of maxmemory
  // (as Redis keeps it); 0: no eviction.
  std::atomic<int64_t> maxmemory_clients{0};

  // The eviction limit in bytes that maxmemory-clients makes of
  // `maxmemory` (0: none), at least 128 KiB, as Redis's
  // getClientEvictionLimit: a smaller one would leave no room to talk.
  int64_t EvictionLimit(int64_t maxmemory) const {
    const int64_t setting = maxmemory_clients.load(std::memory_order_relaxed);
    int64_t bytes = setting;
    if (setting < 0) {
      if (maxmemory == 0) return 0;
      bytes = static_cast<int64_t>(static_cast<double>(maxmemory) * static_cast<double>(-setting) / 100);
    }
    if (bytes == 0) return 0;
    return std::max<int64_t>(bytes, 128 * 1024);
  }

  OutputLimit output_limit(Class c) const {
    return {hard_[c].load(std::memory_order_relaxed), soft_[c].load(std::memory_order_relaxed),
            soft_seconds_[c].load(std::memory_order_relaxed)};
  }
  void set_output_limit(Class c, const OutputLimit& limit) {
    hard_[c].store(limit.hard_bytes, std::memory_order_relaxed);
    soft_[c].store(limit.soft_bytes, std::memory_order_relaxed);
    soft_seconds_[c].store(limit.soft_seconds, std::memory_order_relaxed);
  }

  // Whether a client of class `c` holding `bytes` of output not yet written
  // is past its limit at `now_ms` (Redis's checkClientOutputBufferLimits):
  // at or over the hard limit, or over the soft limit for more than its
  // seconds. *soft_since_ms (0: under it) is when it went over the soft
  // limit, kept up to date here.
  bool OutputOverLimit(Class c, int64_t bytes, int64_t now_ms, int64_t* soft_since_ms) const {
    const OutputLimit limit = output_limit(c);
    if (limit.hard_bytes > 0 && bytes >= limit.hard_bytes) return true;
    if (limit.soft_bytes == 0 || bytes < limit.soft_bytes) {
      *soft_since_ms = 0;
      return false;
    }
    if (*soft_since_ms == 0) {
      *soft_since_ms = now_ms;
      return false;
    }
    return (now_ms - *soft_since_ms) / 1000 > limit.soft_seconds;
  }

 private:
  // Redis's defaults: normal 0 0 0, replica 256mb 64mb 60, pubsub 32mb 8mb 60.
  std::atomic<int64_t> hard_[kClasses] = {0, int64_t{256} << 20, int64_t{32} << 20};
  std::atomic<int64_t> soft_[kClasses] = {0, int64_t{64} << 20, int64_t{8} << 20};
  std::atomic<int64_t> soft_seconds_[kClasses] = {0, 60, 60};
};

}  // namespace teksdb::server
