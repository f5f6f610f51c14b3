// ServerStats implementation: bucket arithmetic, the ops/s samples and the
// error counts.
#include "server_stats.h"

#include <cstdio>

#include <algorithm>
#include <cmath>

namespace teksdb::server {

int LatencyHistogram::BucketOf(uint64_t usec) {
  if (usec < kSubBuckets) return static_cast<int>(usec);
  const int power = 63 - __builtin_clzll(usec);  // >= 3
  const int sub = static_cast<int>(usec >> (power - 3)) & (kSubBuckets - 1);
  const int bucket = (power - 2) * kSubBuckets + sub;
  return bucket < kBuckets ? bucket : kBuckets - 1;
}

double LatencyHistogram::UpperEdge(int bucket) {
  if (bucket < kSubBuckets) return bucket + 1;
  const int power = bucket / kSubBuckets + 2;
  const int sub = bucket % kSubBuckets;
  return std::ldexp(kSubBuckets + sub + 1, power - 3);
}

void LatencyHistogram::Record(uint64_t usec) {
  counts_[BucketOf(usec)].fetch_add(1, std::memory_order_relaxed);
}

void LatencyHistogram::Reset() {
  for (auto& count : counts_) count.store(0, std::memory_order_relaxed);
}

uint64_t LatencyHistogram::count() const {
  uint64_t n = 0;
  for (const auto& c : counts_) n += c.load(std::memory_order_relaxed);
  return n;
}

uint64_t LatencyHistogram::CountBelow(double usec) const {
  uint64_t n = 0;
  for (int i = 0; i < kBuckets && UpperEdge(i) <= usec; ++i) {
    n += counts_[i].load(std::memory_order_relaxed);
  }
  return n;
}

double LatencyHistogram::Percentile(double q) const {
  std::array<uint64_t, kBuckets> counts;
  uint64_t total = 0;
  for (int i = 0; i < kBuckets; ++i) total += counts[i] = counts_[i].load(std::memory_order_relaxed);
  if (total == 0) return 0;
  const double rank = std::ceil(q * static_cast<double>(total));
  uint64_t below = 0;
  for (int i = 0; i < kBuckets; ++i) {
    below += counts[i];
    if (static_cast<double>(below) >= rank && counts[i] > 0) return UpperEdge(i);
  }
  return UpperEdge(kBuckets - 1);
}

ServerStats::ServerStats(size_t commands)
    : command_count_(commands), commands_(new CommandStats[commands]) {}

std::string PercentileText(double percentile) {
  char text[64];
  std::snprintf(text, sizeof text, "%f", percentile);
  std::string out = text;
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

void CommandStats::Reset() {
  calls.store(0, std::memory_order_relaxed);
  usec.store(0, std::memory_order_relaxed);
  rejected.store(0, std::memory_order_relaxed);
  failed.store(0, std::memory_order_relaxed);
  latency.Reset();
}

CommandStats& ServerStats::subcommand(const std::string& full_name) {
  std::lock_guard<std::mutex> lock(subcommands_mutex_);
  std::unique_ptr<CommandStats>& stats = subcommands_[full_name];
  if (stats == nullptr) stats = std::make_unique<CommandStats>();
  return *stats;
}

std::vector<std::pair<std::string, const CommandStats*>> ServerStats::Subcommands() const {
  std::lock_guard<std::mutex> lock(subcommands_mutex_);
  std::vector<std::pair<std::string, const CommandStats*>> all;
  for (const auto& [name, stats] : subcommands_) all.emplace_back(name, stats.get());
  return all;
}

std::vector<double> ServerStats::percentiles() const {
  std::lock_guard<std::mutex> lock(percentiles_mutex_);
  return percentiles_;
}

void ServerStats::set_percentiles(std::vector<double> percentiles) {
  std::lock_guard<std::mutex> lock(percentiles_mutex_);
  percentiles_ = std::move(percentiles);
}

void ServerStats::Reset() {
  for (size_t i = 0; i < command_count_; ++i) commands_[i].Reset();
  {
    std::lock_guard<std::mutex> lock(subcommands_mutex_);
    for (auto& [name, stats] : subcommands_) stats->Reset();
  }
  error_replies_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(errors_mutex_);
    errors_.clear();
  }
  // The command total restarts from zero too: a sample across the reset
  // would count backwards.
  std::lock_guard<std::mutex> lock(ops_mutex_);
  last_ms_ = 0;
  last_total_ = 0;
  ops_samples_.fill(0);
  next_sample_ = 0;
}

void ServerStats::SampleOps(int64_t now_ms, uint64_t total_commands) {
  std::lock_guard<std::mutex> lock(ops_mutex_);
  if (last_ms_ != 0 && now_ms > last_ms_) {
    ops_samples_[next_sample_] = (total_commands - last_total_) * 1000 / (now_ms - last_ms_);
    next_sample_ = (next_sample_ + 1) % kOpsSamples;
  }
  last_ms_ = now_ms;
  last_total_ = total_commands;
}

uint64_t ServerStats::OpsPerSecond() const {
  std::lock_guard<std::mutex> lock(ops_mutex_);
  uint64_t sum = 0;
  for (uint64_t s : ops_samples_) sum += s;
  return sum / kOpsSamples;
}

void ServerStats::RecordError(const std::string& error) {
  error_replies_.fetch_add(1, std::memory_order_relaxed);
  const std::string code = error.substr(0, std::min(error.find(' '), error.size()));
  std::lock_guard<std::mutex> lock(errors_mutex_);
  const auto it = errors_.find(code);
  if (it != errors_.end()) {
    ++it->second;
  } else if (errors_.size() < kErrorCodes) {
    errors_.emplace(code, 1);
  }
}

std::vector<std::pair<std::string, uint64_t>> ServerStats::ErrorCounts() const {
  std::lock_guard<std::mutex> lock(errors_mutex_);
  return {errors_.begin(), errors_.end()};
}

}  // namespace teksdb::server
