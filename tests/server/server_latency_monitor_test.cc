// LatencyMonitor (server/state/latency_monitor.h): Redis 7.0's latency
// monitor, sample for sample.
#include "latency_monitor.h"

#include <gtest/gtest.h>

namespace teksdb::server {
namespace {

TEST(LatencyMonitorTest, OffUntilAThresholdIsSet) {
  LatencyMonitor monitor;
  monitor.Sample("command", 500, 1000);
  EXPECT_TRUE(monitor.LatestEvents().empty());
  monitor.set_threshold_ms(100);
  monitor.Sample("command", 99, 1000);  // below it
  EXPECT_TRUE(monitor.LatestEvents().empty());
  monitor.Sample("command", 100, 1000);
  ASSERT_EQ(monitor.LatestEvents().size(), 1u);
}

TEST(LatencyMonitorTest, OneSampleASecondTheLargestKept) {
  LatencyMonitor monitor;
  monitor.set_threshold_ms(1);
  monitor.Sample("command", 300, 1000);
  monitor.Sample("command", 500, 1000);
  monitor.Sample("command", 200, 1000);
  monitor.Sample("command", 400, 1001);
  const std::vector<LatencyMonitor::Point> history = monitor.History("command");
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].time_s, 1000);
  EXPECT_EQ(history[0].latency_ms, 500);
  EXPECT_EQ(history[1].time_s, 1001);
  EXPECT_EQ(history[1].latency_ms, 400);
  const std::vector<LatencyMonitor::Latest> latest = monitor.LatestEvents();
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest[0].event, "command");
  EXPECT_EQ(latest[0].last.time_s, 1001);
  EXPECT_EQ(latest[0].last.latency_ms, 400);
  EXPECT_EQ(latest[0].max_ms, 500);
}

TEST(LatencyMonitorTest, KeepsTheLastSecondsOnly) {
  LatencyMonitor monitor;
  monitor.set_threshold_ms(1);
  const int seconds = LatencyMonitor::kSamples + 10;
  for (int i = 0; i < seconds; ++i) monitor.Sample("command", 1000 + i, 5000 + i);
  const std::vector<LatencyMonitor::Point> history = monitor.History("command");
  ASSERT_EQ(history.size(), static_cast<size_t>(LatencyMonitor::kSamples));
  EXPECT_EQ(history.front().time_s, 5000 + 10);  // oldest first
  EXPECT_EQ(history.back().time_s, 5000 + seconds - 1);
  int64_t max_ms = 0;
  ASSERT_TRUE(monitor.Max("command", &max_ms));
  EXPECT_EQ(max_ms, 1000 + seconds - 1);
}

TEST(LatencyMonitorTest, ResetCountsTheEventsItForgets) {
  LatencyMonitor monitor;
  monitor.set_threshold_ms(1);
  monitor.Sample("command", 10, 1000);
  monitor.Sample("fast-command", 10, 1000);
  EXPECT_EQ(monitor.Reset({"command", "command", "no-such-event"}), 1);
  EXPECT_TRUE(monitor.History("command").empty());
  EXPECT_EQ(monitor.Reset({}), 1);
  EXPECT_TRUE(monitor.LatestEvents().empty());
  EXPECT_EQ(monitor.Reset({}), 0);
}

}  // namespace
}  // namespace teksdb::server
