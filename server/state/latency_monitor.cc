// LatencyMonitor: each event's ring of per-second samples (latency_monitor.h).
#include "latency_monitor.h"

namespace teksdb::server {

void LatencyMonitor::Sample(const char* event, int64_t latency_ms, int64_t now_s) {
  const int64_t threshold = threshold_ms();
  if (threshold == 0 || latency_ms < threshold) return;
  std::lock_guard<std::mutex> lock(mu_);
  Series& series = events_[event];
  if (latency_ms > series.max_ms) series.max_ms = latency_ms;
  Point& previous = series.points[(series.next + kSamples - 1) % kSamples];
  if (previous.time_s == now_s) {
    if (latency_ms > previous.latency_ms) previous.latency_ms = latency_ms;
    return;
  }
  series.points[series.next] = {now_s, latency_ms};
  series.next = (series.next + 1) % kSamples;
}

std::vector<LatencyMonitor::Latest> LatencyMonitor::LatestEvents() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Latest> latest;
  for (const auto& [event, series] : events_) {
    latest.push_back({event, series.points[(series.next + kSamples - 1) % kSamples], series.max_ms});
  }
  return latest;
}

std::vector<LatencyMonitor::Point> LatencyMonitor::History(const std::string& event) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Point> points;
  const auto it = events_.find(event);
  if (it == events_.end()) return points;
  for (int i = 0; i < kSamples; ++i) {
    const Point& point = it->second.points[(it->second.next + i) % kSamples];
    if (point.time_s != 0) points.push_back(point);
  }
  return points;
}

bool LatencyMonitor::Max(const std::string& event, int64_t* max_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = events_.find(event);
  if (it == events_.end()) return false;
  *max_ms = it->second.max_ms;
  return true;
}

int64_t LatencyMonitor::Reset(const std::vector<std::string>& events) {
  std::lock_guard<std::mutex> lock(mu_);
  if (events.empty()) {
    const int64_t count = static_cast<int64_t>(events_.size());
    events_.clear();
    return count;
  }
  int64_t count = 0;
  for (const std::string& event : events) count += static_cast<int64_t>(events_.erase(event));
  return count;
}

}  // namespace teksdb::server
