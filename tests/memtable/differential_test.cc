// Differential suite 1: random operations through DB (plain factory) or
// TeksDB (the layer, dropping versions), compared read for read with the
// stock skip list (harness and replay instructions: differential_harness.h).
// The mix: single writes and batches, reads at the latest state and at
// snapshots, iterators held across writes, flushes, compactions, reopens.
#include "differential_harness.h"

namespace teksdb {
namespace differential {
namespace {

class DifferentialTest : public ::testing::TestWithParam<Config> {};

TEST_P(DifferentialTest, RandomOperationsMatchSkipList) {
  const Config& config = GetParam();
  const uint64_t seed = SeedFor(config.default_seed);
  SCOPED_TRACE(ReplayHint(seed));
  DifferentialDriver d(config, seed);
  ASSERT_NO_FATAL_FAILURE(d.OpenFresh());
  SingleDeleteContract contract;
  RandomWriter writer(&d, &contract, /*range_deletes=*/true);
  History history;
  const uint64_t ops = 4000 * static_cast<uint64_t>(Scale());
  uint64_t flushes = 0, reopens = 0;

  enum Op {
    kWrite, kBatch, kRead, kHoldIterators, kUseHeldIterators, kFlush, kCompact, kReopen,
    kCompareAll,
  };
  // With small buffers RocksDB flushes by itself; explicit flushes are rarer.
  const OperationMix<Op> mix = {
      {kWrite, 45},          {kBatch, 8},    {kRead, 29.5},
      {kHoldIterators, 2},   {kUseHeldIterators, 2},
      {kFlush, d.small_buffer() ? 0.1 : 0.6},
      {kCompact, 0.2},       {kReopen, 0.12}, {kCompareAll, 0.3},
  };
  for (uint64_t op = 0; op < ops; ++op) {
    SCOPED_TRACE("operation " + std::to_string(op));
    const Op kind = Pick(d.rng(), mix);
    switch (kind) {
      case kWrite:
      case kBatch:
        writer.WriteBoth(writer.NextGroup(op, /*batch=*/kind == kBatch), &history);
        break;
      case kRead:
        d.RandomRead(&history);
        break;
      case kHoldIterators:
        if (d.num_held_iterators() >= 4) d.UseHeldIterators(&history);
        d.HoldIterators(op, &history);
        break;
      case kUseHeldIterators:
        d.UseHeldIterators(&history);
        break;
      case kFlush:
        d.Flush(&history);
        flushes++;
        break;
      case kCompact:
        d.CompactRange(&history);
        break;
      case kReopen:
        history.Add("Reopen");
        d.Reopen();
        reopens++;
        if (!HasFailure()) d.CompareEverything("after reopen", &history);
        break;
      case kCompareAll:
        d.CompareEverything("mid-run", &history);
        break;
    }
    if (HasFailure()) {
      ADD_FAILURE() << history.Dump();
      return;
    }
  }
  ASSERT_NO_FATAL_FAILURE(d.CompareEverything("at the end", &history));
  history.Add("Final reopen");
  ASSERT_NO_FATAL_FAILURE(d.Reopen());
  ASSERT_NO_FATAL_FAILURE(d.CompareEverything("after the final reopen", &history));
  if (HasFailure()) ADD_FAILURE() << history.Dump();

  // The run must have exercised what it claims to compare: hits and misses,
  // iterator steps, and in small-buffer configurations flushes that RocksDB
  // started by itself mid-run.
  if (d.small_buffer()) {
    EXPECT_GT(d.subject().automatic_flushes(), 0u);
  }
  EXPECT_GT(d.stats().found, ops / 20);
  EXPECT_GT(d.stats().not_found, 0u);
  EXPECT_GT(d.stats().iterator_entries, ops);
  RecordProperty("flushes", static_cast<int>(flushes));
  RecordProperty("reopens", static_cast<int>(reopens));
}

// Large write buffers first: versions pile up in one memtable, and flushes
// happen only when the test asks. Then small ones (64-192 KiB), where
// RocksDB flushes by itself mid-run (and an empty TeksTable must not look
// full: Debian's RocksDB asserts that in MemTable's constructor).
INSTANTIATE_TEST_SUITE_P(
    Memtables, DifferentialTest,
    ::testing::Values(
        // Plain factory: every version kept.
        Config{"PlainTeksS", Layer::kPlainFactory, Variant("teks-s"), kLargeBuffer, true, 300,
               0x7e5d0002},
        // The TeksDB layer: shadowed versions dropped when no reader needs them.
        Config{"LayerLargeBuffer", Layer::kTeksDB, TeksTableOptions(), kLargeBuffer, true, 200,
               0x7e5d0005},
        Config{"LayerHotKeys", Layer::kTeksDB, TeksTableOptions(), kLargeBuffer, true, 24,
               0x7e5d0007},
        // Small buffers.
        Config{"PlainDefault", Layer::kPlainFactory, TeksTableOptions(), 128 * kKiB, false, 300,
               0x7e5d0001},
        Config{"PlainSyncNoShortcut", Layer::kPlainFactory, Custom(false, true, false, true),
               192 * kKiB, true, 400, 0x7e5d0003},
        Config{"LayerDefault", Layer::kTeksDB, TeksTableOptions(), 128 * kKiB, false, 300,
               0x7e5d0004},
        Config{"LayerSyncNoShortcut", Layer::kTeksDB, Custom(false, true, false, true),
               64 * kKiB, true, 300, 0x7e5d0006},
        // RocksDB's checked reads (CheckedReads): TeksTable's GetAndValidate,
        // *AndValidate steps and batched MultiGet where the release calls them.
        Config{"PlainCheckedReads", Layer::kPlainFactory, TeksTableOptions(), kLargeBuffer, true,
               300, 0x7e5d0008, true},
        Config{"LayerCheckedReads", Layer::kTeksDB, TeksTableOptions(), 128 * kKiB, false, 300,
               0x7e5d0009, true}),
    PrintConfigName);

}  // namespace
}  // namespace differential
}  // namespace teksdb
