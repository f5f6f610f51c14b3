// Tests of teksdb-server's ServerStats (INFO): latency percentiles within
// the histogram's 12.5% resolution (exact below 8 us), over a wide range of
// latencies; and ops/s from the sampled command counts.
#include <gtest/gtest.h>

#include "server_stats.h"

namespace teksdb::server {
namespace {

TEST(LatencyHistogramTest, PercentilesWithinOneBucket) {
  LatencyHistogram histogram;
  EXPECT_EQ(histogram.Percentile(0.5), 0);
  for (uint64_t usec = 1; usec <= 1000; ++usec) histogram.Record(usec);
  EXPECT_EQ(histogram.count(), 1000u);
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double want = q * 1000;
    const double got = histogram.Percentile(q);
    EXPECT_GE(got, want) << q;
    EXPECT_LE(got, want * 1.125 + 1) << q;
  }
}

TEST(LatencyHistogramTest, ExactBelowEightAndBoundedForHugeValues) {
  LatencyHistogram histogram;
  for (int i = 0; i < 99; ++i) histogram.Record(3);
  histogram.Record(uint64_t{1} << 62);
  EXPECT_EQ(histogram.Percentile(0.5), 4);  // the upper edge of [3, 4)
  EXPECT_GE(histogram.Percentile(1.0), static_cast<double>(uint64_t{1} << 62));
}

TEST(ServerStatsTest, CountsCallsAndOpsPerSecond) {
  ServerStats stats(2);
  stats.command(1).Record(10);
  stats.command(1).Record(30);
  EXPECT_EQ(stats.command(1).calls.load(), 2u);
  EXPECT_EQ(stats.command(1).usec.load(), 40u);
  EXPECT_EQ(stats.command(0).calls.load(), 0u);
  // 16 samples 100 ms apart, 500 commands each: 5000 ops/s.
  for (int i = 0; i <= 16; ++i) stats.SampleOps(1000 + 100 * i, 500 * i);
  EXPECT_EQ(stats.OpsPerSecond(), 5000u);
}

}  // namespace
}  // namespace teksdb::server
