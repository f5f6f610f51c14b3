// Tests of teksdb-server's StagedWrites (staged_writes.h) on a real RocksDB:
// randomized, against a std::map holding the database's records with the
// staged writes (Puts, Deletes, Merges with their values) applied over
// them, Get, MultiGet and iterators (bounded ones too, asked for before,
// between and after stages, so the index is built at every point of a
// group's life) see exactly the model, and so does the database after the
// batch is written; Clear forgets everything staged; writes a group never
// stages (a Merge without its value among them) are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/write_batch.h"
#include "staged_writes.h"
#include "teksdb/open_db.h"
#include "test_support.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;

// The database's merge operator: operands appended to the value.
class AppendMerge : public ROCKSDB_NAMESPACE::MergeOperator {
 public:
  const char* Name() const override { return "AppendMerge"; }
  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    out->new_value = in.existing_value != nullptr ? in.existing_value->ToString() : "";
    for (const Slice& operand : in.operand_list) out->new_value.append(operand.data(), operand.size());
    return true;
  }
};

class StagedWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ROCKSDB_NAMESPACE::Options options;
    options.create_if_missing = true;
    options.merge_operator = std::make_shared<AppendMerge>();
    ASSERT_TRUE(teksdb::OpenDB(options, dir_.path(), &db_).ok());
  }

  // Keys from a small space, so stages overwrite each other and the
  // database's records often.
  static std::string RandomKey(std::mt19937_64& rng) {
    return "k" + std::to_string(rng() % 60);
  }

  // A random batch of Puts, Deletes and Merges, applied to `model` too;
  // *merged: the Merges' values, as StagedWrites::Add takes them.
  static WriteBatch RandomWrites(std::mt19937_64& rng, std::map<std::string, std::string>* model,
                                 std::vector<std::string>* merged) {
    WriteBatch writes;
    const int n = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      const std::string key = RandomKey(rng);
      const int kind = static_cast<int>(rng() % 4);
      if (kind == 0) {
        EXPECT_TRUE(writes.Delete(key).ok());
        model->erase(key);
      } else if (kind == 1) {
        const std::string operand(1 + rng() % 5, static_cast<char>('A' + rng() % 26));
        EXPECT_TRUE(writes.Merge(key, operand).ok());
        (*model)[key] += operand;
        merged->push_back((*model)[key]);
      } else {
        const std::string value(rng() % 40, static_cast<char>('a' + rng() % 26));
        EXPECT_TRUE(writes.Put(key, value).ok());
        (*model)[key] = value;
      }
    }
    return writes;
  }

  // Checks every read of `staged` against `model`.
  void ExpectReadsMatch(StagedWrites& staged, const std::map<std::string, std::string>& model,
                        std::mt19937_64& rng, uint64_t seed) {
    SCOPED_TRACE(test::ReplayHint(seed));
    std::vector<std::string> keys;
    for (int i = 0; i < 8; ++i) keys.push_back(RandomKey(rng));
    for (const std::string& key : keys) {
      PinnableSlice value;
      const Status s = staged.Get(db_.get(), ReadOptions(), key, &value);
      const auto it = model.find(key);
      if (it == model.end()) {
        EXPECT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
        EXPECT_EQ(value.ToString(), it->second) << key;
      }
    }
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::vector<PinnableSlice> values(keys.size());
    std::vector<Status> statuses(keys.size());
    staged.MultiGet(db_.get(), ReadOptions(), keys.size(), slices.data(), values.data(),
                    statuses.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      const auto it = model.find(keys[i]);
      if (it == model.end()) {
        EXPECT_TRUE(statuses[i].IsNotFound()) << keys[i] << ": " << statuses[i].ToString();
      } else {
        ASSERT_TRUE(statuses[i].ok()) << keys[i] << ": " << statuses[i].ToString();
        EXPECT_EQ(values[i].ToString(), it->second) << keys[i];
      }
    }
    // A scan of [lower, upper), upper also the iterator's bound, both ways.
    std::string lower = RandomKey(rng), upper = RandomKey(rng);
    if (upper < lower) std::swap(lower, upper);
    const Slice upper_slice(upper);
    ReadOptions read;
    read.iterate_upper_bound = &upper_slice;
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it = staged.NewIterator(db_.get(), read);
    std::vector<std::pair<std::string, std::string>> got, want;
    // Staged records past the bound may show (staged_writes.h): the scan
    // stops there itself, as the server's scans do.
    for (it->Seek(lower); it->Valid() && it->key().compare(upper) < 0; it->Next()) {
      got.emplace_back(it->key().ToString(), it->value().ToString());
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    for (auto m = model.lower_bound(lower); m != model.end() && m->first < upper; ++m) {
      want.emplace_back(*m);
    }
    EXPECT_EQ(got, want) << "forward scan of [" << lower << ", " << upper << ")";
    got.clear();
    for (it->SeekForPrev(upper); it->Valid() && it->key().compare(lower) >= 0; it->Prev()) {
      if (it->key().compare(upper) < 0) got.emplace_back(it->key().ToString(), it->value().ToString());
    }
    std::reverse(want.begin(), want.end());
    EXPECT_EQ(got, want) << "backward scan of [" << lower << ", " << upper << ")";
  }

  test::TempDir dir_{"teksdb-staged-writes"};
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
};

TEST_F(StagedWritesTest, ReadsSeeTheStagedWritesOverTheDatabaseInEveryOrder) {
  const uint64_t seed = test::SeedFor(26);
  std::mt19937_64 rng(seed);
  StagedWrites staged;
  std::map<std::string, std::string> in_db;
  for (int group = 0; group < 60; ++group) {
    // What the database holds: earlier groups, written as Flush writes them.
    std::map<std::string, std::string> model = in_db;
    const int stages = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < stages; ++i) {
      std::vector<std::string> merged;
      const WriteBatch writes = RandomWrites(rng, &model, &merged);
      ASSERT_TRUE(staged.Add(writes, std::move(merged)).ok());
      EXPECT_FALSE(staged.empty());
      if (rng() % 2 == 0) ExpectReadsMatch(staged, model, rng, seed);
    }
    ExpectReadsMatch(staged, model, rng, seed);
    if (rng() % 4 == 0) {  // a group that is dropped: its writes never show
      staged.Clear();
      ExpectReadsMatch(staged, in_db, rng, seed);
      continue;
    }
    ASSERT_TRUE(db_->Write(ROCKSDB_NAMESPACE::WriteOptions(), staged.batch()).ok());
    staged.Clear();
    EXPECT_TRUE(staged.empty());
    in_db = model;
    ExpectReadsMatch(staged, in_db, rng, seed);  // the database merged as the stage said
  }
}

TEST_F(StagedWritesTest, WritesAGroupNeverStagesAreRefused) {
  StagedWrites staged;
  WriteBatch merge, single_delete, range;
  ASSERT_TRUE(merge.Merge("k", "v").ok());
  ASSERT_TRUE(single_delete.SingleDelete("k").ok());
  ASSERT_TRUE(range.DeleteRange("a", "b").ok());
  for (const WriteBatch* writes : {&merge, &single_delete, &range}) {
    const Status s = staged.Add(*writes);
    EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
    EXPECT_TRUE(staged.empty());
  }
}

}  // namespace
}  // namespace teksdb::server
