// LatencyMonitor: Redis 7.0's latency monitor (LATENCY LATEST, HISTORY,
// RESET, GRAPH, DOCTOR). Past latency-monitor-threshold milliseconds (0:
// off), an event ("command", "fast-command") is sampled: per event the
// last kSamples seconds that had one, each second's largest latency, and
// the largest of all time.
//
// Thread safety: every member may be called from any thread; Sample
// returns at once (one relaxed load) while the monitor is off.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace teksdb::server {

class LatencyMonitor {
 public:
  static constexpr int kSamples = 160;  // Redis's LATENCY_TS_LEN
  struct Point {
    int64_t time_s = 0;  // seconds since the epoch; 0: none
    int64_t latency_ms = 0;
  };
  struct Latest {
    std::string event;
    Point last;
    int64_t max_ms = 0;
  };

  // latency-monitor-threshold, in milliseconds (0: off).
  int64_t threshold_ms() const { return threshold_ms_.load(std::memory_order_relaxed); }
  void set_threshold_ms(int64_t ms) { threshold_ms_.store(ms, std::memory_order_relaxed); }

  // Records `latency_ms` of `event` at `now_s` if the monitor is on and it
  // reaches the threshold; a second sample in the same second keeps the
  // larger.
  void Sample(const char* event, int64_t latency_ms, int64_t now_s);

  // LATENCY LATEST: every event, by name.
  std::vector<Latest> LatestEvents() const;
  // LATENCY HISTORY: `event`'s samples, oldest first (none if unknown).
  std::vector<Point> History(const std::string& event) const;
  // The all-time largest of `event` (false if unknown).
  bool Max(const std::string& event, int64_t* max_ms) const;
  // LATENCY RESET: `events` (all if empty) forgotten; how many there were.
  int64_t Reset(const std::vector<std::string>& events);

 private:
  struct Series {
    Point points[kSamples];
    int next = 0;  // where the next second's sample goes
    int64_t max_ms = 0;
  };

  std::atomic<int64_t> threshold_ms_{0};
  mutable std::mutex mu_;
  std::map<std::string, Series> events_;  // guarded by mu_; a few fixed names
};

}  // namespace teksdb::server
