// Tests of OrderedIndex::Splice, the remembered position of the last insert:
// keys arriving in order, or nearly, cost a few comparisons each instead of
// a search (counted through a comparator that counts its calls), and
// whatever the splice remembers, however stale, every insert lands in the
// right place on every level. StreamSplices (the linker's splices) keep that
// cost for several ordered streams interleaved with random keys, and for
// keys nearly in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "ordered_index.h"
#include "stream_splices.h"
#include "test_support.h"

namespace teksdb {
namespace {

using test::MakeRecord;
using test::OrderedKey;
using test::TestArena;

// The test order, counting its comparisons.
class CountingOrder : public test::InternalKeyOrder {
 public:
  int operator()(const char* a, const char* b) const override {
    calls.fetch_add(1, std::memory_order_relaxed);
    return InternalKeyOrder::operator()(a, b);
  }
  int operator()(const char* a, const Slice& internal_key) const override {
    calls.fetch_add(1, std::memory_order_relaxed);
    return InternalKeyOrder::operator()(a, internal_key);
  }
  mutable std::atomic<uint64_t> calls{0};
};

// What inserts go through: no splice, one, or the linker's StreamSplices.
enum class Splices { kNone, kOne, kStreams };

// Inserts the keys numbered `order` into a fresh index (with anchors when
// `anchors`), through `splices`; checks the result and returns the
// comparisons per insert (those StreamSplices makes to choose included).
double InsertAndCount(const std::vector<uint64_t>& order, Splices splices, bool anchors) {
  CountingOrder counting;
  TestArena arena;
  OrderedIndex index(counting, anchors ? &arena : nullptr);
  OrderedIndex::Splice splice;
  StreamSplices streams;
  std::vector<const KeyRecord*> records;
  std::vector<KeyRecord*> made;
  for (uint64_t i : order) made.push_back(MakeRecord(&arena, OrderedKey(i), 1));
  counting.calls = 0;
  for (KeyRecord* r : made) {
    switch (splices) {
      case Splices::kNone: index.Insert(r); break;
      case Splices::kOne: index.Insert(r, &splice); break;
      case Splices::kStreams: index.Insert(r, streams.For(index, r)); break;
    }
    records.push_back(r);
  }
  const double per_insert = static_cast<double>(counting.calls) / order.size();
  test::ExpectEveryLevelSortedAndComplete(index, records);
  for (uint64_t i = 0; i < order.size(); i += 101) {
    const KeyRecord* r = index.FindUserKey(InternalKey(OrderedKey(order[i]), 1, kEntryValue));
    EXPECT_NE(r, nullptr) << OrderedKey(order[i]);
  }
  return per_insert;
}

std::vector<uint64_t> Ascending(uint64_t n) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Ascending, with each window of `window` keys shuffled.
std::vector<uint64_t> NearlyAscending(uint64_t n, uint64_t window, std::mt19937_64& rng) {
  std::vector<uint64_t> v = Ascending(n);
  for (uint64_t i = 0; i < n; i += window) {
    std::shuffle(v.begin() + i, v.begin() + std::min(n, i + window), rng);
  }
  return v;
}

constexpr uint64_t kKeys = 100000;

TEST(OrderedIndexSpliceTest, KeysInOrderCostAFewComparisonsEach) {
  for (bool anchors : {false, true}) {
    SCOPED_TRACE(anchors ? "with anchors" : "without anchors");
    const double with_splice = InsertAndCount(Ascending(kKeys), Splices::kOne, anchors);
    const double without = InsertAndCount(Ascending(kKeys), Splices::kNone, anchors);
    // One comparison with the next record up (usually none: the list ends)
    // and the splice's own check; a search needs one per level at least.
    EXPECT_LT(with_splice, 3.0);
    EXPECT_GT(without, 8.0);
  }
}

TEST(OrderedIndexSpliceTest, KeysNearlyInOrderCostFewComparisonsToo) {
  std::mt19937_64 rng(test::SeedFor(11));
  SCOPED_TRACE(test::ReplayHint(test::SeedFor(11)));
  const std::vector<uint64_t> order = NearlyAscending(kKeys, 8, rng);
  const double with_splice = InsertAndCount(order, Splices::kOne, false);
  const double without = InsertAndCount(order, Splices::kNone, false);
  EXPECT_LT(with_splice, 10.0);
  EXPECT_LT(with_splice * 2, without);
}

TEST(OrderedIndexSpliceTest, AnySpliceGivesTheSameList) {
  std::mt19937_64 rng(test::SeedFor(12));
  SCOPED_TRACE(test::ReplayHint(test::SeedFor(12)));
  std::vector<uint64_t> random = Ascending(kKeys);
  std::shuffle(random.begin(), random.end(), rng);
  std::vector<uint64_t> descending = Ascending(kKeys);
  std::reverse(descending.begin(), descending.end());
  for (bool anchors : {false, true}) {
    InsertAndCount(random, Splices::kOne, anchors);
    InsertAndCount(descending, Splices::kOne, anchors);
    InsertAndCount(NearlyAscending(kKeys, 64, rng), Splices::kOne, anchors);
  }
}

TEST(OrderedIndexSpliceTest, StaleSplicesStillLinkInPlace) {
  // Two splices taking turns over two interleaved ascending runs (each
  // always finds its gap split by the other's inserts), a third over random
  // keys, and inserts without a splice, all into one index with anchors.
  std::mt19937_64 rng(test::SeedFor(13));
  SCOPED_TRACE(test::ReplayHint(test::SeedFor(13)));
  test::InternalKeyOrder order;
  TestArena arena;
  OrderedIndex index(order, &arena);
  OrderedIndex::Splice even, odd, scattered;
  std::vector<const KeyRecord*> records;
  auto insert = [&](uint64_t i, OrderedIndex::Splice* splice) {
    KeyRecord* r = MakeRecord(&arena, OrderedKey(i), 1);
    index.Insert(r, splice);
    records.push_back(r);
  };
  // Random keys below the runs' (2 * kKeys and up), each drawn once.
  std::vector<uint64_t> random = Ascending(2 * kKeys);
  std::shuffle(random.begin(), random.end(), rng);
  for (uint64_t i = 0; i < kKeys; i += 2) {
    insert(2 * kKeys + i, &even);
    insert(2 * kKeys + i + 1, &odd);
    insert(random[i / 2], rng() % 2 == 0 ? &scattered : nullptr);
  }
  test::ExpectEveryLevelSortedAndComplete(index, records);
  for (const KeyRecord* r : records) {
    ASSERT_EQ(index.FindUserKey(r->internal_key()), r) << r->user_key().ToString();
  }
}

TEST(StreamSplicesTest, InterleavedOrderedStreamsKeepTheirSplices) {
  // What pipelined HSETs of new hashes write: a key in random order, then
  // one of an ascending run, then five of another (kKeys and up, and 2 *
  // kKeys and up; the random keys lie below both).
  std::mt19937_64 rng(test::SeedFor(14));
  SCOPED_TRACE(test::ReplayHint(test::SeedFor(14)));
  std::vector<uint64_t> random = Ascending(kKeys);
  std::shuffle(random.begin(), random.end(), rng);
  std::vector<uint64_t> order;
  for (uint64_t i = 0; order.size() + 7 <= kKeys; ++i) {
    order.push_back(random[i]);
    order.push_back(kKeys + i);
    for (uint64_t f = 0; f < 5; ++f) order.push_back(2 * kKeys + 5 * i + f);
  }
  for (bool anchors : {false, true}) {
    SCOPED_TRACE(anchors ? "with anchors" : "without anchors");
    const double streams = InsertAndCount(order, Splices::kStreams, anchors);
    const double one = InsertAndCount(order, Splices::kOne, anchors);
    // One search in seven inserts, against three through one splice.
    EXPECT_LT(streams * 1.5, one) << streams << " against " << one;
    std::printf("interleaved streams, %s: %.1f comparisons an insert, %.1f through one splice\n",
                anchors ? "anchors" : "no anchors", streams, one);
  }
}

TEST(StreamSplicesTest, KeysInOrderOrNearlyCostNoMoreThanThroughOneSplice) {
  std::mt19937_64 rng(test::SeedFor(15));
  SCOPED_TRACE(test::ReplayHint(test::SeedFor(15)));
  EXPECT_LT(InsertAndCount(Ascending(kKeys), Splices::kStreams, false), 3.0);
  const std::vector<uint64_t> nearly = NearlyAscending(kKeys, 8, rng);
  const double streams = InsertAndCount(nearly, Splices::kStreams, false);
  const double one = InsertAndCount(nearly, Splices::kOne, false);
  // Choosing costs a few comparisons, with records the last insert read.
  EXPECT_LT(streams, one + 4) << streams << " against " << one;
}

TEST(StreamSplicesTest, KeysInRandomOrderCostLittleMoreThanASearch) {
  // A key far from every splice is searched for from the anchors, as
  // without a splice; choosing adds comparisons with the splices' records.
  std::mt19937_64 rng(test::SeedFor(16));
  SCOPED_TRACE(test::ReplayHint(test::SeedFor(16)));
  std::vector<uint64_t> random = Ascending(kKeys);
  std::shuffle(random.begin(), random.end(), rng);
  for (bool anchors : {false, true}) {
    SCOPED_TRACE(anchors ? "with anchors" : "without anchors");
    const double streams = InsertAndCount(random, Splices::kStreams, anchors);
    const double none = InsertAndCount(random, Splices::kNone, anchors);
    EXPECT_LT(streams, none * 2) << streams << " against " << none;
  }
}

}  // namespace
}  // namespace teksdb
