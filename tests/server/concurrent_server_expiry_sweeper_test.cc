// Tests of teksdb-server's ExpirySweeper, whose thread runs beside the
// test's own writes (so also under ThreadSanitizer): expired keys of every
// type are deleted (their meta records; the next compaction removes their
// members and score index, stale_member_filter.h), keys without an expiry
// or not yet expired are left alone, a keyspace larger than one tick is
// swept whole, and a sweep that found nothing to do wakes again when an
// expiry is written. Hash fields past their deadline (field_deadlines.h)
// are reclaimed, the hash with its last field; due entries that no longer
// match their field are dropped without touching it, one whose hash moved
// under the sweep waits for it; a compaction removes the deadline records
// of a hash deleted whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "compact_members.h"
#include "expiry_sweeper.h"
#include "field_deadlines.h"
#include "keyspace.h"
#include "rocksdb/db.h"
#include "stale_member_filter.h"
#include "server_test_support.h"
#include "test_support.h"

namespace teksdb::server {
namespace {

class ExpirySweeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ROCKSDB_NAMESPACE::Options options;
    options.compaction_filter_factory = filter_;
    ASSERT_TRUE(OpenPreparedDB(options, dir_.path(), &db_).ok());
    filter_->Attach(db_.get());
    keyspace_ = std::make_unique<Keyspace>(db_.get(), false);
  }

  // Writes `key` as a collection of `type` with `members` members (and
  // score index entries for a sorted set), expiring at `expire_ms`.
  void PutCollection(const std::string& key, char type, int members, int64_t expire_ms) {
    uint64_t version = 0;
    ASSERT_TRUE(keyspace_->NewVersion(&version).ok());
    Keyspace::Batch batch;
    for (int i = 0; i < members; ++i) {
      batch.PutMember(version, "m" + std::to_string(i), "v");
      if (type == Keyspace::kZSet) batch.PutIndex(version, "score" + std::to_string(i));
    }
    batch.PutNew(key, Keyspace::Value{type, expire_ms, std::string(8, '\0'), version});
    ASSERT_TRUE(keyspace_->Commit(&batch).ok());
  }

  // Writes `key` as a hash with field deadlines: each field's deadline
  // (0: none). Returns its version.
  uint64_t PutHashWithDeadlines(const std::string& key,
                                const std::vector<std::pair<std::string, int64_t>>& fields) {
    uint64_t version = 0;
    EXPECT_TRUE(keyspace_->NewVersion(&version).ok());
    Keyspace::Batch batch;
    for (const auto& [field, deadline] : fields) {
      batch.PutMember(version, field, "v");
      if (deadline != 0) batch.PutDeadline(version, field, deadline);
    }
    const std::string payload = storage_format::CountPayload(
        static_cast<int64_t>(fields.size()), storage_format::kHashDeadlines);
    batch.PutNew(key, Keyspace::Value{Keyspace::kHash, 0, payload, version});
    EXPECT_TRUE(keyspace_->Commit(&batch).ok());
    return version;
  }

  // Writes `key` as a listpackex (compact_members.h): each field's
  // deadline (0: none) inside the record, their due entries beside it.
  void PutListpackEx(const std::string& key,
                     const std::vector<std::pair<std::string, int64_t>>& fields) {
    uint64_t due_version = 0;
    ASSERT_TRUE(keyspace_->NewVersion(&due_version).ok());
    std::string payload = compact_members::WithDeadlines(
        compact_members::Empty(compact_members::kListpack), due_version);
    Keyspace::Batch batch;
    for (const auto& [field, deadline] : fields) {
      compact_members::Put(&payload, field, compact_members::Stored(deadline, "v"));
      if (deadline != 0) batch.PutDue(deadline, due_version, field);
    }
    batch.PutNew(key, Keyspace::Value{Keyspace::kHash, 0, payload, 0});
    ASSERT_TRUE(keyspace_->Commit(&batch).ok());
  }

  // How many due entries are due now; *any: whether there is any at all.
  int DueNow(bool* any) {
    int due = 0;
    EXPECT_TRUE(keyspace_
                    ->ForEachDue(Keyspace::NowMs(),
                                 [&](int64_t, uint64_t, const std::string&) {
                                   ++due;
                                   return true;
                                 },
                                 any)
                    .ok());
    return due;
  }

  // The field count a hash's meta record says, or -1 if the key is gone.
  int64_t HashCount(const std::string& key) {
    std::optional<Keyspace::Value> value;
    EXPECT_TRUE(keyspace_->Read(key, &value).ok());
    if (!value) return -1;
    char encoding;
    int64_t count = storage_format::PayloadCount(value->payload);
    if (value->version == 0) {
      EXPECT_TRUE(compact_members::ReadHeader(value->payload, &encoding, &count));
    }
    return count;
  }

  void PutString(const std::string& key, int64_t expire_ms) {
    Keyspace::Batch batch;
    batch.Put(key, Keyspace::Value{Keyspace::kString, expire_ms, "value"});
    ASSERT_TRUE(keyspace_->Commit(&batch).ok());
  }

  int CountRecords() { return DataRecordsIn(db_.get()); }
  void CompactAll() { ASSERT_TRUE(CompactToLastLevel(db_.get()).ok()); }

  // Waits up to 10 s for `done`.
  template <typename Done>
  bool Eventually(Done done) {
    for (int i = 0; i < 1000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return done();
  }

  test::TempDir dir_{"teksdb-sweeper"};
  std::shared_ptr<StaleMemberFilterFactory> filter_ = std::make_shared<StaleMemberFilterFactory>();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
  std::unique_ptr<Keyspace> keyspace_;
};

TEST_F(ExpirySweeperTest, DeletesExpiredKeysWhoseRecordsTheNextCompactionRemoves) {
  const int64_t past = Keyspace::NowMs() - 1;
  const int64_t future = Keyspace::NowMs() + 3600 * 1000;
  PutString("gone-string", past);
  PutCollection("gone-hash", Keyspace::kHash, 5, past);
  PutCollection("gone-zset", Keyspace::kZSet, 5, past);
  PutString("kept-forever", 0);
  PutCollection("kept-later", Keyspace::kSet, 3, future);
  // Meta, owner and members (and index entries) each.
  ASSERT_EQ(CountRecords(), 1 + 7 + 12 + 1 + 5);

  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed() == 3; }));
  EXPECT_EQ(CountRecords(), 6 + 11 + 1 + 5);  // only the meta records went
  CompactAll();
  EXPECT_EQ(CountRecords(), 1 + 5);
  EXPECT_EQ(filter_->dropped(), 6u + 11);
  std::optional<Keyspace::Value> value;
  ASSERT_TRUE(keyspace_->Read("kept-later", &value).ok());
  EXPECT_TRUE(value.has_value());
}

TEST_F(ExpirySweeperTest, SweepsAKeyspaceLargerThanOneTick) {
  const int keys = ExpirySweeper::kBatchKeys * 3 + 17;
  const int64_t past = Keyspace::NowMs() - 1;
  for (int i = 0; i < keys; ++i) PutString("key" + std::to_string(i), i % 2 == 0 ? past : 0);
  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed() == static_cast<uint64_t>((keys + 1) / 2); }));
  EXPECT_EQ(CountRecords(), keys / 2);
}

TEST_F(ExpirySweeperTest, WakesWhenAnExpiryIsWrittenAfterAnIdlePass) {
  PutString("plain", 0);
  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return sweeper.idle(); }));
  PutString("soon", Keyspace::NowMs() + 50);
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed() == 1; }));
  EXPECT_EQ(CountRecords(), 1);
}

TEST_F(ExpirySweeperTest, ReclaimIfExpiredLeavesALiveKey) {
  PutCollection("live", Keyspace::kHash, 2, Keyspace::NowMs() + 3600 * 1000);
  bool reclaimed = true;
  ASSERT_TRUE(keyspace_->ReclaimIfExpired("live", &reclaimed).ok());
  EXPECT_FALSE(reclaimed);
  ASSERT_TRUE(keyspace_->ReclaimIfExpired("absent", &reclaimed).ok());
  EXPECT_FALSE(reclaimed);
  EXPECT_EQ(CountRecords(), 4);
}

TEST_F(ExpirySweeperTest, ReclaimsFieldsPastTheirDeadlineAndTheHashWithItsLastField) {
  const int64_t past = Keyspace::NowMs() - 1;
  const int64_t future = Keyspace::NowMs() + 3600 * 1000;
  PutHashWithDeadlines("mixed", {{"a", past}, {"b", 0}, {"c", past}});
  PutHashWithDeadlines("all-due", {{"x", past}});
  PutHashWithDeadlines("later", {{"y", future}});
  std::mutex mu;
  std::vector<std::pair<std::string, bool>> told;
  ExpirySweeper sweeper(keyspace_.get(), nullptr, [&](int db, const std::string& key, bool deleted) {
    EXPECT_EQ(db, 0);
    std::lock_guard<std::mutex> lock(mu);
    told.emplace_back(key, deleted);
  });
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed_fields() == 3; }));
  sweeper.Pause(true);
  EXPECT_EQ(HashCount("mixed"), 1);
  EXPECT_EQ(HashCount("all-due"), -1);
  EXPECT_EQ(HashCount("later"), 1);
  std::sort(told.begin(), told.end());
  const std::vector<std::pair<std::string, bool>> want = {
      {"all-due", true}, {"mixed", false}, {"mixed", false}};
  EXPECT_EQ(told, want);
  // What is left: mixed's meta, owner and field b; all-due's owner and
  // field-less version (its meta went; the compaction takes the rest);
  // later's meta, owner, field, deadline and due entry.
  EXPECT_EQ(CountRecords(), 3 + 1 + 5);
  CompactAll();
  EXPECT_EQ(CountRecords(), 3 + 5);
}

TEST_F(ExpirySweeperTest, DropsDueEntriesThatNoLongerMatchTheirField) {
  const int64_t past = Keyspace::NowMs() - 1;
  const int64_t future = Keyspace::NowMs() + 3600 * 1000;
  // A field given a later deadline by a write that left its old due entry.
  const uint64_t moved = PutHashWithDeadlines("moved", {{"f", past}});
  Keyspace::Batch later;
  later.PutDeadline(moved, "f", future);
  ASSERT_TRUE(keyspace_->Commit(&later).ok());
  // A hash replaced by another version under the same key.
  PutHashWithDeadlines("replaced", {{"g", past}});
  PutHashWithDeadlines("replaced", {{"g", 0}});
  bool any = false;
  ASSERT_EQ(DueNow(&any), 2);
  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return DueNow(&any) == 0; }));
  sweeper.Pause(true);
  EXPECT_EQ(sweeper.reclaimed_fields(), 0u);
  EXPECT_EQ(HashCount("moved"), 1);
  EXPECT_EQ(HashCount("replaced"), 1);
  EXPECT_TRUE(any);  // moved's own entry, not due yet
}

TEST_F(ExpirySweeperTest, ReclaimsAListpackExsFieldsAndACompactionItsDueEntriesOnceItIsGone) {
  const int64_t past = Keyspace::NowMs() - 1;
  const int64_t future = Keyspace::NowMs() + 3600 * 1000;
  PutListpackEx("small", {{"a", past}, {"b", 0}, {"c", future}});
  PutListpackEx("gone", {{"x", past}});
  PutListpackEx("deleted", {{"y", future}});
  Keyspace::Batch del;
  del.Delete("deleted");
  ASSERT_TRUE(keyspace_->Commit(&del).ok());
  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed_fields() == 2; }));
  sweeper.Pause(true);
  EXPECT_EQ(HashCount("small"), 2);
  EXPECT_EQ(HashCount("gone"), -1);
  // Left: small's meta, owner and due entry (c); gone's owner; deleted's
  // owner and due entry (y), which no meta record names: the compaction
  // takes those three.
  EXPECT_EQ(CountRecords(), 3 + 1 + 2);
  CompactAll();
  EXPECT_EQ(CountRecords(), 3);
}

TEST_F(ExpirySweeperTest, ADueEntryWhoseHashMovedAfterTheSweepFoundItsOwnerWaitsForIt) {
  const int64_t past = Keyspace::NowMs() - 1;
  const uint64_t version = PutHashWithDeadlines("before", {{"f", past}, {"g", 0}});
  // RENAME before -> after, between the sweep's read of the owner record
  // (which named "before") and its lock of that key.
  std::optional<Keyspace::Value> value;
  ASSERT_TRUE(keyspace_->Read("before", &value).ok() && value);
  Keyspace::Batch rename;
  rename.Delete("before");
  rename.PutNew("after", *value);
  ASSERT_TRUE(keyspace_->Commit(&rename).ok());
  bool reclaimed, key_deleted;
  ASSERT_TRUE(field_deadlines::ReclaimField(*keyspace_, "before", "f", version, past, &reclaimed,
                                            &key_deleted)
                  .ok());
  EXPECT_FALSE(reclaimed);
  bool any;
  EXPECT_EQ(DueNow(&any), 1);  // kept: the next tick finds the hash under its new name
  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed_fields() == 1; }));
  EXPECT_EQ(HashCount("after"), 1);
}

TEST_F(ExpirySweeperTest, ReclaimDueStartsWhereItStoppedAndLooksFromTheFirstOnceItFindsNone) {
  const int64_t past = Keyspace::NowMs() - 1000;
  PutHashWithDeadlines("a", {{"f", past}});
  PutHashWithDeadlines("b", {{"f", past + 1}});
  PutHashWithDeadlines("c", {{"f", past + 2}});
  const auto step = [&](std::string* from, bool* any) {
    uint64_t reclaimed = 0;
    EXPECT_TRUE(field_deadlines::ReclaimDue(*keyspace_, 2, nullptr, [] { return false; }, any,
                                            &reclaimed, from)
                    .ok());
    return reclaimed;
  };
  std::string from;
  bool any = false;
  EXPECT_EQ(step(&from, &any), 2u);
  EXPECT_FALSE(from.empty());
  // An entry below where the step stopped (an earlier deadline written
  // since): not seen until a walk from the first entry.
  PutHashWithDeadlines("early", {{"f", past - 1}});
  EXPECT_EQ(step(&from, &any), 1u);  // c
  EXPECT_TRUE(any);
  EXPECT_EQ(step(&from, &any), 0u);  // none from there: look from the first next
  EXPECT_TRUE(any);
  EXPECT_TRUE(from.empty());
  EXPECT_EQ(step(&from, &any), 1u);  // early
  EXPECT_EQ(HashCount("early"), -1);
  from.clear();
  EXPECT_EQ(step(&from, &any), 0u);
  EXPECT_FALSE(any);
}

TEST_F(ExpirySweeperTest, StaysAwakeWhileAFieldDeadlineIsPending) {
  PutString("plain", 0);
  PutHashWithDeadlines("soon", {{"f", Keyspace::NowMs() + 300}, {"g", 0}});
  ExpirySweeper sweeper(keyspace_.get());
  ASSERT_TRUE(Eventually([&] { return sweeper.reclaimed_fields() == 1; }));
  EXPECT_EQ(HashCount("soon"), 1);
}

}  // namespace
}  // namespace teksdb::server
