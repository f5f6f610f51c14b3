// Tests of OrderedIndex::Splice, the remembered position of the last insert:
// keys arriving in order, or nearly, cost a few comparisons each instead of
// a search (counted through a comparator that counts its calls), and
// whatever the splice remembers, however stale, every insert lands in the
// right place on every level.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <string>
#include <vector>

#include "ordered_index.h"
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

// Inserts the keys numbered `order` into a fresh index (with anchors when
// `anchors`), through one splice unless `use_splice` is false; checks the
// result and returns the comparisons per insert.
double InsertAndCount(const std::vector<uint64_t>& order, bool use_splice, bool anchors) {
  CountingOrder counting;
  TestArena arena;
  OrderedIndex index(counting, anchors ? &arena : nullptr);
  OrderedIndex::Splice splice;
  std::vector<const KeyRecord*> records;
  std::vector<KeyRecord*> made;
  for (uint64_t i : order) made.push_back(MakeRecord(&arena, OrderedKey(i), 1));
  counting.calls = 0;
  for (KeyRecord* r : made) {
    index.Insert(r, use_splice ? &splice : nullptr);
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
    const double with_splice = InsertAndCount(Ascending(kKeys), true, anchors);
    const double without = InsertAndCount(Ascending(kKeys), false, anchors);
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
  const double with_splice = InsertAndCount(order, true, false);
  const double without = InsertAndCount(order, false, false);
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
    InsertAndCount(random, true, anchors);
    InsertAndCount(descending, true, anchors);
    InsertAndCount(NearlyAscending(kKeys, 64, rng), true, anchors);
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

}  // namespace
}  // namespace teksdb
