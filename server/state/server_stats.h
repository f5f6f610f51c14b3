// ServerStats: what INFO reports about the commands the server ran: per
// command (and subcommand of a container command: "config|set"), calls,
// total time and a latency histogram (p50, p99, p99.9 by default, as
// Redis 7's latencystats section, at the percentiles CONFIG sets, when
// latency-tracking is on), rejected and failed calls, error
// replies by code (errorstats), and the recent ops/s
// (instantaneous_ops_per_sec).
//
// LatencyHistogram: log-linear buckets of microseconds, 8 per power of
// two, so a percentile is exact below 8 us and within 12.5% above; fixed
// size, no allocation when recording.
//
// Thread safety: Record and the counters are relaxed atomics, written by
// every I/O thread at once; readers (INFO) see a recent, not a frozen,
// state. SampleOps is called by one thread (the server's timer); OpsPerSecond
// from any.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace teksdb::server {

class LatencyHistogram {
 public:
  void Record(uint64_t usec);
  void Reset();
  uint64_t count() const;
  // The latency below which a fraction `q` (0..1) of the recorded ones
  // lie: the upper edge of that bucket, in microseconds. 0 if none.
  double Percentile(double q) const;
  // How many recorded latencies lie in buckets wholly below `usec`.
  uint64_t CountBelow(double usec) const;

 private:
  static constexpr int kSubBuckets = 8;  // per power of two
  static constexpr int kBuckets = 62 * kSubBuckets;
  static int BucketOf(uint64_t usec);
  static double UpperEdge(int bucket);

  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
};

struct CommandStats {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> usec{0};
  std::atomic<uint64_t> rejected{0};  // refused before running (arity, NOAUTH, ...)
  std::atomic<uint64_t> failed{0};    // ran and replied an error
  LatencyHistogram latency;

  // A call that took `usec_taken`; into the histogram too with
  // `track_latency` (ServerStats::latency_tracking).
  void Record(uint64_t usec_taken, bool track_latency = true) {
    calls.fetch_add(1, std::memory_order_relaxed);
    usec.fetch_add(usec_taken, std::memory_order_relaxed);
    if (track_latency) latency.Record(usec_taken);
  }
  void Reset();
};

// A percentile as Redis writes it (INFO, CONFIG GET): "%f", its trailing
// zeros (and dot) cut: 50, 99.9.
std::string PercentileText(double percentile);

class ServerStats {
 public:
  explicit ServerStats(size_t commands);

  // The stats of command number `index` in the command table.
  CommandStats& command(size_t index) { return commands_[index]; }
  const CommandStats& command(size_t index) const { return commands_[index]; }
  // The stats of a container command's subcommand ("config|set"), as Redis
  // 7 keeps them. REQUIRES: the name is one of the table's subcommands (a
  // bounded set: no client can grow the map).
  CommandStats& subcommand(const std::string& full_name);
  // Every subcommand run so far, by name.
  std::vector<std::pair<std::string, const CommandStats*>> Subcommands() const;

  // latency-tracking-info-percentiles: the percentiles INFO's latencystats
  // shows (0 to 100).
  std::vector<double> percentiles() const;
  void set_percentiles(std::vector<double> percentiles);
  // latency-tracking: whether calls fill their latency histograms.
  bool latency_tracking() const { return latency_tracking_.load(std::memory_order_relaxed); }
  void set_latency_tracking(bool on) { latency_tracking_.store(on, std::memory_order_relaxed); }

  // Records the total commands run so far at time `now_ms`; the rate over
  // the last kOpsSamples samples is OpsPerSecond.
  void SampleOps(int64_t now_ms, uint64_t total_commands);
  uint64_t OpsPerSecond() const;

  // An error reply (`error`: its text, "ERR ..."), counted by its code, the
  // first word, for INFO's errorstats; past kErrorCodes codes a new one is
  // counted in error_replies() only (Redis's limit: no client can grow the
  // table).
  static constexpr size_t kErrorCodes = 128;
  // CONFIG RESETSTAT: every command's counts, the error counts and the
  // ops/sec samples to zero.
  void Reset();
  void RecordError(const std::string& error);
  uint64_t error_replies() const { return error_replies_.load(std::memory_order_relaxed); }
  std::vector<std::pair<std::string, uint64_t>> ErrorCounts() const;

 private:
  static constexpr int kOpsSamples = 16;
  size_t command_count_;
  std::unique_ptr<CommandStats[]> commands_;
  mutable std::mutex ops_mutex_;
  int64_t last_ms_ = 0;
  uint64_t last_total_ = 0;
  std::array<uint64_t, kOpsSamples> ops_samples_{};
  int next_sample_ = 0;
  mutable std::mutex subcommands_mutex_;
  std::map<std::string, std::unique_ptr<CommandStats>> subcommands_;
  mutable std::mutex percentiles_mutex_;
  std::vector<double> percentiles_{50, 99, 99.9};
  std::atomic<bool> latency_tracking_{true};
  std::atomic<uint64_t> error_replies_{0};
  mutable std::mutex errors_mutex_;
  std::map<std::string, uint64_t> errors_;
};

}  // namespace teksdb::server
