// Differential suite: tailing iterators against the stock skip list
// (harness and replay instructions: differential_harness.h).
#include "differential_harness.h"

namespace teksdb {
namespace differential {
namespace {

// Tailing iterators: they read the latest data at every Seek and Next,
// including writes made after they were created, so they are stepped
// between writes. Point writes only: RocksDB's tailing iterator does not
// support range deletions (it reports NotSupported, or misses those written
// since its last renewal, at moments set by background work), which would
// make the answers depend on timing rather than on the memtable.

class TailingIteratorTest : public ::testing::TestWithParam<Config> {};

TEST_P(TailingIteratorTest, SeesLaterWritesLikeSkipList) {
  const Config& config = GetParam();
  const uint64_t seed = SeedFor(config.default_seed);
  SCOPED_TRACE(ReplayHint(seed));
  DifferentialDriver d(config, seed);
  ASSERT_NO_FATAL_FAILURE(d.OpenFresh());
  SingleDeleteContract contract;
  RandomWriter writer(&d, &contract, /*range_deletes=*/false);
  History history;
  std::mt19937_64& rng = d.rng();
  uint64_t op = 0;
  const int rounds = 40 * Scale();
  for (int round = 0; round < rounds; ++round) {
    const size_t cf = d.RandomCf();
    ReadOptions ro;
    ro.tailing = true;
    std::unique_ptr<Iterator> want(d.oracle().db()->NewIterator(ro, d.oracle().cf(cf)));
    std::unique_ptr<Iterator> got(d.subject().db()->NewIterator(ro, d.subject().cf(cf)));
    history.Add("New tailing iterators on cf" + std::to_string(cf));
    for (int step = 0; step < 60; ++step, ++op) {
      SCOPED_TRACE("round " + std::to_string(round) + ", step " + std::to_string(step));
      std::string what;
      switch (rng() % 5) {
        case 0:
        case 1:
          writer.WriteBoth(writer.NextGroup(op, /*batch=*/rng() % 4 == 0), &history);
          continue;
        case 2: {
          const std::string target = d.keys().SeekTarget(rng);
          want->Seek(target);
          got->Seek(target);
          what = "Seek(" + target + ")";
          break;
        }
        case 3:
          want->SeekToFirst();
          got->SeekToFirst();
          what = "SeekToFirst";
          break;
        default:
          if (!want->Valid() || !got->Valid()) continue;
          want->Next();
          got->Next();
          what = "Next";
          break;
      }
      history.Add(what + " -> " + (want->Valid() ? want->key().ToString() : "<end>"));
      ExpectSamePosition(*want, *got, what, d.mutable_stats());
      if (HasFailure()) {
        ADD_FAILURE() << history.Dump();
        return;
      }
    }
  }
  EXPECT_GT(d.stats().iterator_entries, static_cast<uint64_t>(rounds) * 10);
}

// Regression: a tailing iterator positioned before a key that was just
// written must step onto it even before the background linker has linked
// it (keys k1, k4 present; Seek(k4) -> k4; Put(k5); Next() -> k5).
INSTANTIATE_TEST_SUITE_P(
    Memtables, TailingIteratorTest,
    ::testing::Values(Config{"PlainTeksS", Layer::kPlainFactory, Variant("teks-s"),
                             kLargeBuffer, true, 120, 0x7e5d0201},
                      Config{"PlainDefault", Layer::kPlainFactory, TeksTableOptions(),
                             kLargeBuffer, true, 120, 0x7e5d0202},
                      Config{"LayerDefault", Layer::kTeksDB, TeksTableOptions(), kLargeBuffer,
                             true, 120, 0x7e5d0203}),
    PrintConfigName);

}  // namespace
}  // namespace differential
}  // namespace teksdb
