// Monitors: the clients that ran MONITOR, and the line each of them gets
// for every command the server runs (Redis 7.0's replicationFeedMonitors):
//   +<seconds>.<microseconds> [<db> <ip:port>|lua] "arg" "arg" ...
// with arguments quoted as Redis quotes them (sdscatrepr) and passwords
// given to AUTH and HELLO's AUTH replaced by "(redacted)".
//
// Thread safety: every member may be called from any thread; the mutex
// guards the list, `active()` reads an atomic count without it, so a
// server without monitors pays one relaxed load per command.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pubsub.h"

namespace teksdb::server {

class Monitors {
 public:
  void Add(uint64_t client_id, const std::shared_ptr<Subscriber>& monitor);
  void Remove(uint64_t client_id);
  bool active() const { return count_.load(std::memory_order_relaxed) > 0; }

  // Sends every monitor the line for `args`, run in database `db` by the
  // client at `origin` ("ip:port", or "lua" for a script's call).
  void Feed(int db, std::string_view origin, const std::vector<std::string>& args);

  // The line itself (the time in microseconds since the epoch).
  static std::string Line(int64_t now_us, int db, std::string_view origin,
                          const std::vector<std::string>& args);

 private:
  mutable std::mutex mu_;
  std::map<uint64_t, std::weak_ptr<Subscriber>> monitors_;
  std::atomic<size_t> count_{0};
};

}  // namespace teksdb::server
