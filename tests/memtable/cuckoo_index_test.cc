// Unit tests of CuckooIndex (memtable/cuckoo_index.h), single-threaded:
// lookups, one record per key, growth by resizing into one table that never
// loses a key, the keyed hash, and the bounded overflow for keys that share
// one hash. concurrent_cuckoo_index_test.cc races displacement, resizing and
// overflow against readers and inserters.
#include "cuckoo_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace teksdb {
namespace {

using test::HashIndexHarness;
using test::ScopedForcedHash;

std::string Key(int i) { return "key" + std::to_string(i); }

TEST(CuckooIndexTest, FindsWhatWasInsertedAndNothingElse) {
  HashIndexHarness h(1024);
  std::vector<KeyRecord*> records;
  for (int i = 0; i < 500; ++i) records.push_back(h.Insert(Key(i)));
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(h.Find(Key(i)), records[i]) << Key(i);
    EXPECT_EQ(records[i]->state(), KeyRecord::kLive);
  }
  for (int i = 500; i < 1000; ++i) EXPECT_EQ(h.Find(Key(i)), nullptr) << Key(i);
  EXPECT_EQ(h.won(), 500u);
}

TEST(CuckooIndexTest, ASecondRecordForAKeyGetsTheFirst) {
  HashIndexHarness h(64);
  KeyRecord* first = h.Insert("same", 1);
  EXPECT_EQ(h.Insert("same", 2), first);
  EXPECT_EQ(h.won(), 1u);
}

TEST(CuckooIndexTest, GrowsByResizingOneTableAndLosesNoKey) {
  HashIndexHarness h(16);
  const size_t initial_capacity = h.index.Capacity();
  std::vector<KeyRecord*> records;
  for (int i = 0; i < 20000; ++i) records.push_back(h.Insert(Key(i)));
  EXPECT_GE(h.index.Capacity(), 20000u);
  EXPECT_GT(h.index.Capacity(), initial_capacity);
  // Resized only when half full: at most 4 slots per key, one table probed.
  EXPECT_LE(h.index.Capacity(), 4 * 20000u);
  EXPECT_EQ(h.index.NumOverflowed(), 0u);
  for (int i = 0; i < 20000; ++i) ASSERT_EQ(h.Find(Key(i)), records[i]) << Key(i);
  for (int i = 20000; i < 21000; ++i) ASSERT_EQ(h.Find(Key(i)), nullptr) << Key(i);
}

TEST(CuckooIndexTest, FillsMostOfATableBeforeGrowing) {
  HashIndexHarness h(4096);
  const size_t initial_capacity = h.index.Capacity();
  int inserted = 0;
  while (h.index.Capacity() == initial_capacity) h.Insert(Key(inserted++));
  // Cuckoo displacement should use most slots (4-way buckets reach ~95%).
  EXPECT_GT(inserted, 4096 * 8 / 10);
}

TEST(CuckooIndexTest, SerializedInsertsBehaveTheSame) {
  HashIndexHarness h(16, /*serialize_inserts=*/true);
  for (int i = 0; i < 3000; ++i) h.Insert(Key(i));
  for (int i = 0; i < 3000; ++i) ASSERT_NE(h.Find(Key(i)), nullptr) << Key(i);
}

TEST(CuckooIndexTest, EachIndexHashesWithItsOwnSecretSeed) {
  HashIndexHarness a(64), b(64);
  int same = 0;
  for (int i = 0; i < 64; ++i) same += a.index.Hash(Key(i)) == b.index.Hash(Key(i));
  EXPECT_EQ(same, 0);
  EXPECT_EQ(a.index.Hash("k"), a.index.Hash("k"));
}

TEST(CuckooIndexTest, KeysSharingOneHashOverflowToTheSkipListAndStayFindable) {
  ScopedForcedHash one_hash;
  HashIndexHarness h(1024);
  const size_t capacity = h.index.Capacity();
  const size_t memory = h.index.MemoryUsage();
  constexpr int kKeys = 20000;
  std::vector<KeyRecord*> records;
  for (int i = 0; i < kKeys; ++i) records.push_back(h.Insert(Key(i)));
  // Two buckets of four slots hold 8 keys; the rest overflow, and the table
  // does not grow for them.
  EXPECT_EQ(h.index.NumOverflowed(), kKeys - 2u * CuckooIndex::kSlotsPerBucket);
  EXPECT_EQ(h.index.Capacity(), capacity);
  EXPECT_EQ(h.index.MemoryUsage(), memory);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(h.Find(Key(i)), records[i]) << Key(i);
    ASSERT_TRUE(records[i]->linked()) << Key(i);
    ASSERT_EQ(h.Insert(Key(i), 2), records[i]) << "an update finds the one record";
  }
  for (int i = kKeys; i < kKeys + 100; ++i) ASSERT_EQ(h.Find(Key(i)), nullptr) << Key(i);
  EXPECT_EQ(h.won(), 2u * CuckooIndex::kSlotsPerBucket);
}

}  // namespace
}  // namespace teksdb
