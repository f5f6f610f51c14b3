// Tests of MultiGetHint (memtable/multiget_hint.h), the keys the TeksDB
// layer leaves for TeksTable during a MultiGet: each rep takes them once, at
// most kMaxKeys of them, only inside the Scope, and an inner Scope gives
// the outer one back; and a MultiGet through the layer (hinted), of more
// keys than a hint holds, present, absent and deleted, in memtables active
// and immutable, answers what Gets answer.
#include "multiget_hint.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "teksdb/teks_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::Slice;

TEST(MultiGetHintTest, EachRepTakesTheKeysOnceAndOnlyInsideTheScope) {
  const Slice* keys = nullptr;
  int rep_a = 0, rep_b = 0;
  EXPECT_EQ(MultiGetHint::Take(&rep_a, &keys), 0u);
  std::vector<Slice> three = {"a", "b", "c"};
  {
    MultiGetHint::Scope scope(three.data(), three.size());
    ASSERT_EQ(MultiGetHint::Take(&rep_a, &keys), 3u);
    EXPECT_EQ(keys, three.data());
    EXPECT_EQ(MultiGetHint::Take(&rep_a, &keys), 0u);
    EXPECT_EQ(MultiGetHint::Take(&rep_b, &keys), 3u);
    EXPECT_EQ(MultiGetHint::Take(&rep_b, &keys), 0u);
    {
      std::vector<Slice> many(MultiGetHint::kMaxKeys + 10, Slice("k"));
      MultiGetHint::Scope inner(many.data(), many.size());
      EXPECT_EQ(MultiGetHint::Take(&rep_b, &keys), MultiGetHint::kMaxKeys);
      EXPECT_EQ(keys, many.data());
    }
    // The outer hint again, as rep_b had left it.
    EXPECT_EQ(MultiGetHint::Take(&rep_b, &keys), 0u);
    EXPECT_EQ(MultiGetHint::Take(&rep_a, &keys), 3u);
    EXPECT_EQ(keys, three.data());
  }
  EXPECT_EQ(MultiGetHint::Take(&rep_b, &keys), 0u);
}

TEST(MultiGetHintTest, HintedMultiGetsAnswerWhatGetsAnswer) {
  test::TempDir dir("teksdb-multiget-hint");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.memtable_factory = NewTeksTableFactory();
  options.max_write_buffer_number = 4;
  std::unique_ptr<TeksDB> db;
  ASSERT_OK(TeksDB::Open(options, dir.path(), &db));
  const ROCKSDB_NAMESPACE::WriteOptions write;
  // Keys in an immutable memtable and in the active one, some deleted or
  // overwritten there.
  for (int i = 0; i < 100; i += 2) ASSERT_OK(db->Put(write, "k" + std::to_string(i), "old"));
  ASSERT_OK(db->PauseBackgroundWork());
  ROCKSDB_NAMESPACE::FlushOptions no_wait;
  no_wait.wait = false;
  ASSERT_OK(db->Flush(no_wait));
  for (int i = 0; i < 100; i += 3) ASSERT_OK(db->Put(write, "k" + std::to_string(i), "new"));
  for (int i = 0; i < 100; i += 10) ASSERT_OK(db->Delete(write, "k" + std::to_string(i)));
  std::vector<std::string> names;
  for (int i = 0; i < 110; ++i) names.push_back("k" + std::to_string(i));
  std::vector<Slice> keys(names.begin(), names.end());
  std::vector<ROCKSDB_NAMESPACE::PinnableSlice> values(keys.size());
  std::vector<ROCKSDB_NAMESPACE::Status> statuses(keys.size());
  db->MultiGet(ROCKSDB_NAMESPACE::ReadOptions(), db->DefaultColumnFamily(), keys.size(),
               keys.data(), values.data(), statuses.data());
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string want;
    const ROCKSDB_NAMESPACE::Status s = db->Get(ROCKSDB_NAMESPACE::ReadOptions(), names[i], &want);
    ASSERT_EQ(statuses[i].code(), s.code()) << names[i];
    if (s.ok()) {
      EXPECT_EQ(values[i].ToString(), want) << names[i];
    }
  }
  ASSERT_OK(db->ContinueBackgroundWork());
}

}  // namespace
}  // namespace teksdb
