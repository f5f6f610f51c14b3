// Concurrency test of OrderedIndex::Splice, meant for ThreadSanitizer:
// writers, each with a splice of its own, insert interleaved ascending runs
// (so every gap a splice remembers is being split by the others), and one
// more inserts random keys, while readers seek. Seeks must land at or after
// their target, and at the end every level must hold exactly the records
// tall enough for it, in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ordered_index.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::MakeRecord;
using test::OrderedKey;
using test::TestArena;

TEST(ConcurrentOrderedIndexSpliceTest, InterleavedRunsAndRandomKeysLinkInPlace) {
  constexpr int kRunWriters = 3;
  const uint64_t per_writer = 20000 * test::Scale();
  const uint64_t seed = test::SeedFor(21);
  SCOPED_TRACE(test::ReplayHint(seed));
  test::InternalKeyOrder order;
  TestArena arena;
  OrderedIndex index(order, &arena);
  // Writer w < kRunWriters inserts keys w, w + kRunWriters, ... above
  // `runs_base`; the last writer inserts a shuffled set below it.
  const uint64_t runs_base = per_writer;
  std::vector<std::vector<KeyRecord*>> records(kRunWriters + 1);
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> random(per_writer);
  for (uint64_t i = 0; i < per_writer; ++i) random[i] = i;
  std::shuffle(random.begin(), random.end(), rng);
  for (int w = 0; w < kRunWriters; ++w) {
    for (uint64_t i = 0; i < per_writer; ++i) {
      records[w].push_back(MakeRecord(&arena, OrderedKey(runs_base + i * kRunWriters + w), 1));
    }
  }
  for (uint64_t k : random) records[kRunWriters].push_back(MakeRecord(&arena, OrderedKey(k), 1));

  std::atomic<int> writers_left{kRunWriters + 1};
  std::vector<std::thread> threads;
  for (int w = 0; w <= kRunWriters; ++w) {
    threads.emplace_back([&, w] {
      OrderedIndex::Splice splice;
      for (KeyRecord* r : records[w]) index.Insert(r, &splice);
      writers_left.fetch_sub(1);
    });
  }
  threads.emplace_back([&] {
    std::mt19937_64 reader_rng(seed + 1);
    while (writers_left.load() > 0) {
      const std::string target = OrderedKey(reader_rng() % (runs_base + per_writer * kRunWriters));
      const KeyRecord* found = index.FindFirstAtOrAfter(InternalKey(target, 1, kEntryValue));
      if (found != nullptr) {
        ASSERT_GE(found->user_key().compare(target), 0);
      }
    }
  });
  for (auto& t : threads) t.join();

  std::vector<const KeyRecord*> all;
  for (const auto& w : records) all.insert(all.end(), w.begin(), w.end());
  test::ExpectEveryLevelSortedAndComplete(index, all);
}

}  // namespace
}  // namespace teksdb
