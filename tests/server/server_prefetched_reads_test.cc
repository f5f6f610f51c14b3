// Tests of the read-ahead of pipelined GETs (prefetched_meta.h,
// Keyspace::Prefetch) and of reads without a copy (Keyspace::ReadView), on
// a real RocksDB: what was read ahead answers found and absent keys alike,
// a value past the read-ahead's byte limit is read on its own, a write in
// the view drops what was read ahead so the next read sees the write, an
// expired key reads absent, a key found replaced (Unchanged) drops it, and
// a copy of a view or a new run keeps nothing of the last.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "keyspace.h"
#include "prefetched_meta.h"
#include "rocksdb/db.h"
#include "storage_format.h"
#include "server_test_support.h"
#include "test_support.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

TEST(PrefetchedMetaTest, FindsWhatWasReadAndNothingElse) {
  PrefetchedMeta kept;
  const std::vector<Slice> keys = {"found", "absent", "cut-short"};
  kept.Prepare(0, keys);
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept.records()[0], storage_format::MetaKey(0, "found"));
  kept.values()[0].PinSelf("bytes");
  kept.statuses()[0] = Status::OK();
  kept.statuses()[1] = Status::NotFound();
  // statuses()[2] stays as Prepare left it: not read.
  bool found = false;
  Slice bytes;
  ASSERT_TRUE(kept.Find("found", &found, &bytes));
  EXPECT_TRUE(found);
  EXPECT_EQ(bytes, "bytes");
  ASSERT_TRUE(kept.Find("absent", &found, &bytes));
  EXPECT_FALSE(found);
  EXPECT_FALSE(kept.Find("cut-short", &found, &bytes));
  EXPECT_FALSE(kept.Find("other", &found, &bytes));

  PrefetchedMeta copy(kept);
  EXPECT_EQ(copy.size(), 0u);
  EXPECT_FALSE(copy.Find("found", &found, &bytes));

  // A shorter run reuses the buffers and forgets the longer one's keys.
  kept.Prepare(0, {Slice("absent")});
  EXPECT_FALSE(kept.Find("found", &found, &bytes));
  EXPECT_FALSE(kept.Find("absent", &found, &bytes));  // not read yet
  kept.Clear();
  EXPECT_EQ(kept.size(), 0u);
}

class PrefetchedReadsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(OpenPreparedDB(ROCKSDB_NAMESPACE::Options(), dir_.path(), &db_).ok());
    keyspace_ = std::make_unique<Keyspace>(db_.get(), false);
  }

  void PutString(Keyspace* view, const std::string& key, const std::string& value,
                 int64_t expire_ms = 0) {
    Keyspace::Batch batch;
    batch.Put(key, Keyspace::Value{Keyspace::kString, expire_ms, value});
    ASSERT_TRUE(view->Commit(&batch).ok());
  }

  // What ReadView answers for `key` in `view`: its payload, or nullopt.
  std::optional<std::string> ReadString(const Keyspace& view, const std::string& key) {
    PinnableSlice held;
    std::optional<storage_format::MetaView> meta;
    EXPECT_TRUE(view.ReadView(key, &held, &meta).ok());
    if (!meta) return std::nullopt;
    return meta->payload.ToString();
  }

  test::TempDir dir_{"teksdb-prefetched-reads"};
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
  std::unique_ptr<Keyspace> keyspace_;
};

TEST_F(PrefetchedReadsTest, AnswersARunOfGetsAsOfTheReadAhead) {
  const std::string big(2 * Keyspace::kPrefetchBytes, 'v');
  PutString(keyspace_.get(), "a", "1");
  PutString(keyspace_.get(), "big", big);
  PutString(keyspace_.get(), "b", "2");
  PutString(keyspace_.get(), "gone", "x", Keyspace::NowMs() - 1);

  keyspace_->Prefetch({Slice("a"), Slice("missing"), Slice("big"), Slice("b"), Slice("gone")});
  // Another writer's change after the read-ahead is not seen by the run...
  Keyspace other = *keyspace_;
  PutString(&other, "a", "changed");
  EXPECT_EQ(ReadString(*keyspace_, "a"), "1");
  EXPECT_EQ(ReadString(*keyspace_, "missing"), std::nullopt);
  EXPECT_EQ(ReadString(*keyspace_, "big"), big);  // past the byte limit: read on its own
  EXPECT_EQ(ReadString(*keyspace_, "b"), "2");
  EXPECT_EQ(ReadString(*keyspace_, "gone"), std::nullopt);
  EXPECT_EQ(ReadString(*keyspace_, "not-in-run"), std::nullopt);
  // ...nor by a copy of the view, which reads the database afresh.
  EXPECT_EQ(ReadString(other, "a"), "changed");

  // The view's own write drops the read-ahead: its next read sees the write.
  PutString(keyspace_.get(), "b", "3");
  EXPECT_EQ(ReadString(*keyspace_, "a"), "changed");
  EXPECT_EQ(ReadString(*keyspace_, "b"), "3");

  // Read, the copying read, agrees with ReadView.
  std::optional<Keyspace::Value> value;
  ASSERT_TRUE(keyspace_->Read("big", &value).ok());
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(value->payload, big);
  ASSERT_TRUE(keyspace_->Read("gone", &value).ok());
  EXPECT_FALSE(value.has_value());
}

// A read that meets fewer members than it expected asks Unchanged; that
// asks the database, not the read-ahead, and a key found replaced drops
// the read-ahead, so the read's rerun meets the new version.
TEST_F(PrefetchedReadsTest, AKeyFoundReplacedDropsTheReadAhead) {
  uint64_t old_version = 0, new_version = 0;
  ASSERT_TRUE(keyspace_->NewVersion(&old_version).ok());
  ASSERT_TRUE(keyspace_->NewVersion(&new_version).ok());
  Keyspace::Batch first;
  first.PutNew("h", Keyspace::Value{Keyspace::kHash, 0, "", old_version});
  ASSERT_TRUE(keyspace_->Commit(&first).ok());

  keyspace_->Prefetch({Slice("h"), Slice("s")});
  Keyspace other = *keyspace_;
  Keyspace::Batch replace;
  replace.PutNew("h", Keyspace::Value{Keyspace::kHash, 0, "", new_version});
  ASSERT_TRUE(other.Commit(&replace).ok());
  PutString(&other, "s", "written after the read-ahead");

  std::optional<Keyspace::Value> value;
  ASSERT_TRUE(keyspace_->Read("h", &value).ok());
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(value->version, old_version);  // as of the read-ahead
  bool unchanged = true;
  ASSERT_TRUE(keyspace_->Unchanged("h", old_version, &unchanged).ok());
  EXPECT_FALSE(unchanged);
  ASSERT_TRUE(keyspace_->Read("h", &value).ok());
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(value->version, new_version);
  EXPECT_EQ(ReadString(*keyspace_, "s"), "written after the read-ahead");
  ASSERT_TRUE(keyspace_->Unchanged("h", new_version, &unchanged).ok());
  EXPECT_TRUE(unchanged);
  ASSERT_TRUE(keyspace_->Unchanged("absent", new_version, &unchanged).ok());
  EXPECT_FALSE(unchanged);
}

TEST_F(PrefetchedReadsTest, AReadAheadOfNothingKeepsNothing) {
  PutString(keyspace_.get(), "a", "1");
  keyspace_->Prefetch({Slice("a")});
  keyspace_->Prefetch({});
  Keyspace other = *keyspace_;
  PutString(&other, "a", "2");
  EXPECT_EQ(ReadString(*keyspace_, "a"), "2");
}

}  // namespace
}  // namespace teksdb::server
