// Unit tests of CuckooIndex (memtable/cuckoo_index.h), single-threaded:
// lookups, one record per key, and growth that never loses a key.
// concurrent_cuckoo_index_test.cc races displacement against readers and
// inserters.
#include "cuckoo_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace teksdb {
namespace {

std::string Key(int i) { return "key" + std::to_string(i); }

KeyRecord* Insert(CuckooIndex* index, test::TestArena* arena, const std::string& key,
                  SequenceNumber seq = 1) {
  KeyRecord* candidate = test::MakeRecord(arena, key, seq);
  return index->FindOrInsert(key, CuckooIndex::Hash(key), candidate);
}

TEST(CuckooIndexTest, FindsWhatWasInsertedAndNothingElse) {
  test::TestArena arena;
  CuckooIndex index(1024, false);
  std::vector<KeyRecord*> records;
  for (int i = 0; i < 500; ++i) records.push_back(Insert(&index, &arena, Key(i)));
  for (int i = 0; i < 500; ++i) {
    EXPECT_EQ(index.FindLive(Key(i), CuckooIndex::Hash(Key(i))), records[i]) << Key(i);
    EXPECT_EQ(records[i]->state(), KeyRecord::kLive);
  }
  for (int i = 500; i < 1000; ++i) {
    EXPECT_EQ(index.FindLive(Key(i), CuckooIndex::Hash(Key(i))), nullptr) << Key(i);
  }
}

TEST(CuckooIndexTest, ASecondRecordForAKeyGetsTheFirst) {
  test::TestArena arena;
  CuckooIndex index(64, false);
  KeyRecord* first = Insert(&index, &arena, "same", 1);
  KeyRecord* second_candidate = test::MakeRecord(&arena, "same", 2);
  EXPECT_EQ(index.FindOrInsert("same", CuckooIndex::Hash("same"), second_candidate), first);
  EXPECT_NE(second_candidate->state(), KeyRecord::kLive);
}

TEST(CuckooIndexTest, GrowsByChainingTablesAndLosesNoKey) {
  test::TestArena arena;
  CuckooIndex index(16, false);
  const size_t initial_memory = index.MemoryUsage();
  std::vector<KeyRecord*> records;
  for (int i = 0; i < 20000; ++i) records.push_back(Insert(&index, &arena, Key(i)));
  EXPECT_GT(index.NumTables(), 1u);
  EXPECT_GT(index.MemoryUsage(), initial_memory);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(index.FindLive(Key(i), CuckooIndex::Hash(Key(i))), records[i]) << Key(i);
  }
}

TEST(CuckooIndexTest, FillsMostOfATableBeforeGrowing) {
  test::TestArena arena;
  CuckooIndex index(4096, false);
  int inserted = 0;
  while (index.NumTables() == 1) Insert(&index, &arena, Key(inserted++));
  // Cuckoo displacement should use most slots (4-way buckets reach ~95%).
  EXPECT_GT(inserted, 4096 * 8 / 10);
}

TEST(CuckooIndexTest, SerializedInsertsBehaveTheSame) {
  test::TestArena arena;
  CuckooIndex index(16, true);
  for (int i = 0; i < 3000; ++i) Insert(&index, &arena, Key(i));
  for (int i = 0; i < 3000; ++i) {
    ASSERT_NE(index.FindLive(Key(i), CuckooIndex::Hash(Key(i))), nullptr) << Key(i);
  }
}

}  // namespace
}  // namespace teksdb
