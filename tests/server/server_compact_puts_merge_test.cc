// CompactPutsMerge (server/storage/compact_puts_merge.h) in a real RocksDB,
// on TeksTable under the TeksDB layer (as the server opens it: old versions
// dropped in place) and on the skip list, with and without a bound on
// successive merges: random puts into compact collections written as merge operands
// (some keys rewritten whole or deleted between them, as commands do), read
// by Get, MultiGet and iterators against a std::map model, across flushes
// and compactions; and a merge that cannot be applied (no record below it,
// a record of another kind, a damaged operand) reads as Corruption.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compact_members.h"
#include "compact_puts_merge.h"
#include "rocksdb/db.h"
#include "storage_format.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using Members = std::map<std::string, std::string>;

std::string Record(char type, int64_t expire_ms, const Members& members) {
  std::string payload = compact_members::Empty(compact_members::kListpack);
  for (const auto& [m, v] : members) compact_members::Put(&payload, m, v);
  return storage_format::EncodeMeta(storage_format::Meta{type, expire_ms, payload, 0});
}

struct Setup {
  const char* memtable;
  size_t max_successive_merges;
};

class CompactPutsMergeTest : public ::testing::TestWithParam<Setup> {
 protected:
  void SetUp() override {
    ROCKSDB_NAMESPACE::Options options;
    options.create_if_missing = true;
    options.merge_operator = NewCompactPutsMerge();
    options.max_successive_merges = GetParam().max_successive_merges;
    if (std::string(GetParam().memtable) == "teks") {
      options.memtable_factory = NewTeksTableFactory();
      std::unique_ptr<TeksDB> teks;
      ASSERT_TRUE(TeksDB::Open(options, dir_.path(), &teks).ok());
      db_ = std::move(teks);
    } else {
      ASSERT_TRUE(OpenDB(options, dir_.path(), &db_).ok());
    }
  }

  test::TempDir dir_{"teksdb-compact-puts-merge"};
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
};

TEST_P(CompactPutsMergeTest, ReadsSeeEveryPutInOrderAcrossFlushesAndCompactions) {
  const uint64_t seed = test::SeedFor(41);
  SCOPED_TRACE(test::ReplayHint(seed));
  std::mt19937_64 rng(seed);
  const char types[] = {storage_format::kHash, storage_format::kSet, storage_format::kZSet};
  std::map<std::string, std::pair<char, Members>> model;
  const ROCKSDB_NAMESPACE::WriteOptions write;
  for (int step = 0; step < 10000; ++step) {
    const std::string key = "M" + std::to_string(rng() % 20);
    auto it = model.find(key);
    const int kind = static_cast<int>(rng() % 10);
    if (it == model.end() || kind == 0) {  // a whole record (a new collection)
      const char type = types[rng() % 3];
      Members members;
      for (int i = static_cast<int>(rng() % 4); i > 0; --i) members["m" + std::to_string(rng() % 30)] = "v";
      ASSERT_TRUE(db_->Put(write, key, Record(type, 0, members)).ok());
      model[key] = {type, members};
    } else if (kind == 1) {
      ASSERT_TRUE(db_->Delete(write, key).ok());
      model.erase(it);
    } else {  // puts as one operand
      Members puts;
      for (int i = 1 + static_cast<int>(rng() % 3); i > 0; --i) {
        puts["m" + std::to_string(rng() % 30)] = std::to_string(rng() % 1000);
      }
      std::string operand = compact_members::Empty(compact_members::kListpack);
      for (const auto& [m, v] : puts) compact_members::Put(&operand, m, v);
      ASSERT_TRUE(db_->Merge(write, key, operand).ok());
      for (const auto& [m, v] : puts) it->second.second[m] = v;
    }
    if (step % 700 == 699) {
      ASSERT_TRUE(db_->Flush(ROCKSDB_NAMESPACE::FlushOptions()).ok());
    }
    if (step % 2500 == 2499) {
      ASSERT_TRUE(db_->CompactRange(ROCKSDB_NAMESPACE::CompactRangeOptions(), nullptr, nullptr).ok());
    }
    if (step % 50 != 49) continue;
    // Every key, by Get, MultiGet and a scan.
    std::vector<std::string> keys;
    for (int k = 0; k < 20; ++k) keys.push_back("M" + std::to_string(k));
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::vector<std::string> values;
    const std::vector<Status> statuses = db_->MultiGet({}, slices, &values);
    std::map<std::string, std::string> scanned;
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> scan(db_->NewIterator({}));
    for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
      scanned[scan->key().ToString()] = scan->value().ToString();
    }
    ASSERT_TRUE(scan->status().ok()) << scan->status().ToString();
    for (size_t k = 0; k < keys.size(); ++k) {
      std::string got;
      const Status s = db_->Get({}, keys[k], &got);
      const auto m = model.find(keys[k]);
      if (m == model.end()) {
        EXPECT_TRUE(s.IsNotFound()) << keys[k] << " at step " << step;
        EXPECT_TRUE(statuses[k].IsNotFound());
        EXPECT_EQ(scanned.count(keys[k]), 0u);
        continue;
      }
      const std::string want = Record(m->second.first, 0, m->second.second);
      ASSERT_TRUE(s.ok()) << keys[k] << ": " << s.ToString();
      EXPECT_EQ(got, want) << keys[k] << " at step " << step;
      EXPECT_EQ(values[k], want) << keys[k];
      EXPECT_EQ(scanned[keys[k]], want) << keys[k];
    }
  }
}

TEST_P(CompactPutsMergeTest, AMergeThatCannotApplyIsCorruption) {
  const ROCKSDB_NAMESPACE::WriteOptions write;
  std::string operand = compact_members::Empty(compact_members::kListpack);
  compact_members::Put(&operand, "f", "v");
  // No record below the operand.
  ASSERT_TRUE(db_->Merge(write, "alone", operand).ok());
  // A string's record, and a collection's of the per-member layout.
  ASSERT_TRUE(db_->Put(write, "string",
                       storage_format::EncodeMeta({storage_format::kString, 0, "x", 0})).ok());
  ASSERT_TRUE(db_->Merge(write, "string", operand).ok());
  std::string count(8, '\0');
  ASSERT_TRUE(db_->Put(write, "versioned",
                       storage_format::EncodeMeta({storage_format::kHash, 0, count, 7})).ok());
  ASSERT_TRUE(db_->Merge(write, "versioned", operand).ok());
  // A damaged operand over a good record.
  ASSERT_TRUE(db_->Put(write, "damaged", Record(storage_format::kHash, 0, {{"a", "1"}})).ok());
  ASSERT_TRUE(db_->Merge(write, "damaged", operand.substr(0, operand.size() - 1)).ok());
  for (const char* key : {"alone", "string", "versioned", "damaged"}) {
    std::string value;
    const Status s = db_->Get({}, key, &value);
    EXPECT_TRUE(s.IsCorruption()) << key << ": " << s.ToString();
  }
}

TEST_P(CompactPutsMergeTest, TheRecordKeepsItsTypeAndExpiry) {
  const ROCKSDB_NAMESPACE::WriteOptions write;
  ASSERT_TRUE(db_->Put(write, "k", Record(storage_format::kZSet, 123456, {{"b", "2"}})).ok());
  std::string operand = compact_members::Empty(compact_members::kListpack);
  compact_members::Put(&operand, "a", "1");
  ASSERT_TRUE(db_->Merge(write, "k", operand).ok());
  std::string value;
  ASSERT_TRUE(db_->Get({}, "k", &value).ok());
  EXPECT_EQ(value, Record(storage_format::kZSet, 123456, {{"a", "1"}, {"b", "2"}}));
}

INSTANTIATE_TEST_SUITE_P(Memtables, CompactPutsMergeTest,
                         ::testing::Values(Setup{"teks", 0}, Setup{"teks", 3},
                                           Setup{"skip_list", 0}, Setup{"skip_list", 3}),
                         [](const ::testing::TestParamInfo<Setup>& info) {
                           return std::string(info.param.memtable == std::string("teks")
                                                  ? "TeksTable"
                                                  : "SkipList") +
                                  (info.param.max_successive_merges > 0 ? "Folded" : "Unbounded");
                         });

}  // namespace
}  // namespace teksdb::server
