// Tests of teksdb-server's storage format (storage_format.h), its version
// allocator (version_allocator.h) and its stale member filter
// (stale_member_filter.h), on a real RocksDB: a database is stamped with
// its format and one of another format is refused, naming what it holds;
// versions are never handed out twice, across reopens and ceiling raises;
// a compaction removes exactly the records of versions no meta record
// names (deleted, replaced, expired and swept collections), counted, and
// keeps a live collection's, also one whose version moved to another key
// or database; SELECT's databases are apart, and SWAPDB's exchange of two
// of them outlives a reopen.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "keyspace.h"
#include "rocksdb/db.h"
#include "stale_member_filter.h"
#include "storage_format.h"
#include "teksdb/open_db.h"
#include "server_test_support.h"
#include "test_support.h"
#include "version_allocator.h"
#include "write_group.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

class StorageFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    ROCKSDB_NAMESPACE::Options options;
    options.create_if_missing = true;
    options.compaction_filter_factory = filter_;
    ASSERT_TRUE(teksdb::OpenDB(options, dir_.path(), &db_).ok());
  }

  void Reopen() {
    keyspace_.reset();
    filter_->Detach();
    ASSERT_TRUE(db_->Close().ok());
    db_.reset();
    Open();
  }

  // Prepares the database and attaches the filter, as teksdb-server does.
  void StartServer() {
    ASSERT_TRUE(storage_format::Prepare(db_.get()).ok());
    filter_->Attach(db_.get());
    keyspace_ = std::make_unique<Keyspace>(db_.get(), false);
  }

  // A new collection `key` of `type` with `members` members (and score
  // index entries for a sorted set); its version.
  uint64_t PutCollection(const std::string& key, char type, int members, int64_t expire_ms = 0) {
    uint64_t version = 0;
    EXPECT_TRUE(keyspace_->NewVersion(&version).ok());
    Keyspace::Batch batch;
    for (int i = 0; i < members; ++i) {
      batch.PutMember(version, "m" + std::to_string(i), "v");
      if (type == Keyspace::kZSet) batch.PutIndex(version, "score" + std::to_string(i));
    }
    std::string count;
    storage_format::AppendU64(&count, static_cast<uint64_t>(members));
    batch.PutNew(key, Keyspace::Value{type, expire_ms, count, version});
    EXPECT_TRUE(keyspace_->Commit(&batch).ok());
    return version;
  }

  int CountMembers(uint64_t version) {
    int n = 0;
    EXPECT_TRUE(keyspace_->ForEachMember(version, [&](const std::string&, const std::string&) {
      ++n;
      return true;
    }).ok());
    return n;
  }

  int CountDataRecords() { return DataRecordsIn(db_.get()); }
  void CompactAll() { ASSERT_TRUE(CompactToLastLevel(db_.get()).ok()); }

  void Delete(const std::string& key) {
    Keyspace::Batch batch;
    batch.Delete(key);
    ASSERT_TRUE(keyspace_->Commit(&batch).ok());
  }

  test::TempDir dir_{"teksdb-storage-format"};
  std::shared_ptr<StaleMemberFilterFactory> filter_ = std::make_shared<StaleMemberFilterFactory>();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
  std::unique_ptr<Keyspace> keyspace_;
};

TEST_F(StorageFormatTest, StampsANewDatabaseAndAcceptsItAgain) {
  ASSERT_TRUE(storage_format::Prepare(db_.get()).ok());
  std::string format;
  ASSERT_TRUE(db_->Get({}, storage_format::FormatKey(), &format).ok());
  EXPECT_EQ(format, "teksdb-server format " + std::to_string(storage_format::kFormat));
  Reopen();
  EXPECT_TRUE(storage_format::Prepare(db_.get()).ok());
}

TEST_F(StorageFormatTest, RefusesFormatOneDataSayingWhatItHolds) {
  // Format 1 had meta records and no format record.
  ASSERT_TRUE(db_->Put({}, "Mkey", std::string("s") + std::string(8, '\0') + "value").ok());
  const Status s = storage_format::Prepare(db_.get());
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("format 1"), std::string::npos) << s.ToString();
  std::string format;
  EXPECT_TRUE(db_->Get({}, storage_format::FormatKey(), &format).IsNotFound());
}

TEST_F(StorageFormatTest, RefusesAnotherFormatNamingIt) {
  ASSERT_TRUE(db_->Put({}, storage_format::FormatKey(), "teksdb-server format 99").ok());
  const Status s = storage_format::Prepare(db_.get());
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("format 99"), std::string::npos) << s.ToString();
}

TEST_F(StorageFormatTest, MetaRecordsRoundTripAndGarbageIsRefused) {
  const Keyspace::Value hash{Keyspace::kHash, 1234, "payload", 0x0102030405060708ULL};
  Keyspace::Value decoded;
  ASSERT_TRUE(storage_format::DecodeMeta(storage_format::EncodeMeta(hash), &decoded));
  EXPECT_EQ(decoded.type, hash.type);
  EXPECT_EQ(decoded.expire_ms, hash.expire_ms);
  EXPECT_EQ(decoded.version, hash.version);
  EXPECT_EQ(decoded.payload, hash.payload);
  const Keyspace::Value text{Keyspace::kString, 0, "v", 0};
  ASSERT_TRUE(storage_format::DecodeMeta(storage_format::EncodeMeta(text), &decoded));
  EXPECT_EQ(decoded.payload, "v");
  EXPECT_EQ(decoded.version, 0u);
  EXPECT_FALSE(storage_format::DecodeMeta("x" + std::string(8, '\0'), &decoded));  // type
  EXPECT_FALSE(storage_format::DecodeMeta("h" + std::string(8, '\0'), &decoded));  // no version
  EXPECT_FALSE(storage_format::DecodeMeta("s", &decoded));
}

TEST_F(StorageFormatTest, DeadlineRecordsParseAndSortByDeadline) {
  const std::string early = storage_format::DueKey(1000, 7, "field\xff");
  const std::string late = storage_format::DueKey(256000, 3, "a");
  EXPECT_LT(early, late);  // deadline order, whatever the versions
  EXPECT_TRUE(Slice(early).starts_with(storage_format::DuePrefix()));
  int64_t deadline;
  uint64_t version;
  Slice field;
  ASSERT_TRUE(storage_format::ParseDueKey(early, &deadline, &version, &field));
  EXPECT_EQ(deadline, 1000);
  EXPECT_EQ(version, 7u);
  EXPECT_EQ(field.ToString(), "field\xff");
  EXPECT_FALSE(storage_format::ParseDueKey("T1234", &deadline, &version, &field));
  char tag;
  ASSERT_TRUE(storage_format::ParseVersionedKey(early, &tag, &version));
  EXPECT_EQ(tag, storage_format::kDueTag);
  EXPECT_EQ(version, 7u);
  ASSERT_TRUE(storage_format::ParseVersionedKey(storage_format::DeadlinePrefix(9) + "f", &tag,
                                                &version));
  EXPECT_EQ(tag, storage_format::kDeadlineTag);
  EXPECT_EQ(version, 9u);
  // A hash's count, with and without its flags byte.
  EXPECT_EQ(storage_format::CountPayload(5).size(), 8u);
  const std::string flagged = storage_format::CountPayload(5, storage_format::kHashDeadlines);
  EXPECT_EQ(storage_format::PayloadCount(flagged), 5);
  EXPECT_EQ(storage_format::PayloadHashFlags(flagged), storage_format::kHashDeadlines);
  EXPECT_EQ(storage_format::PayloadHashFlags(storage_format::CountPayload(5)), 0);
}

TEST_F(StorageFormatTest, VersionsAreNeverHandedOutTwiceAcrossReopensAndCeilings) {
  StartServer();
  std::set<uint64_t> seen;
  uint64_t highest = 0;
  for (int run = 0; run < 3; ++run) {
    VersionAllocator versions(db_.get());
    // More than a block, so the ceiling is raised while running too.
    const uint64_t n = run == 0 ? VersionAllocator::kBlock + 5 : 1000;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t v = 0;
      ASSERT_TRUE(versions.Next(&v).ok());
      ASSERT_NE(v, 0u);
      ASSERT_GT(v, highest) << "run " << run << ", allocation " << i;
      highest = v;
      seen.insert(v);
    }
    Reopen();
    StartServer();
  }
  EXPECT_EQ(seen.size(), VersionAllocator::kBlock + 5 + 2000);
}

TEST_F(StorageFormatTest, CompactionRemovesExactlyTheStaleVersionsRecords) {
  StartServer();
  const uint64_t deleted = PutCollection("deleted", Keyspace::kHash, 50);
  const uint64_t replaced = PutCollection("replaced", Keyspace::kZSet, 20);
  const uint64_t retyped = PutCollection("retyped", Keyspace::kSet, 10);
  const uint64_t live = PutCollection("live", Keyspace::kList, 30);
  const uint64_t moved = PutCollection("before-rename", Keyspace::kHash, 7);
  ASSERT_TRUE(db_->Flush({}).ok());

  Delete("deleted");
  const uint64_t replacement = PutCollection("replaced", Keyspace::kZSet, 3);
  {
    Keyspace::Batch batch;
    batch.Put("retyped", Keyspace::Value{Keyspace::kString, 0, "now a string", 0});
    ASSERT_TRUE(keyspace_->Commit(&batch).ok());
  }
  {
    // A rename: the version moves to another key, in one batch.
    std::optional<Keyspace::Value> meta;
    ASSERT_TRUE(keyspace_->Read("before-rename", &meta).ok());
    Keyspace::Batch batch;
    batch.Delete("before-rename");
    batch.PutNew("after-rename", *meta);
    ASSERT_TRUE(keyspace_->Commit(&batch).ok());
  }
  // Invisible before any compaction: reads go through the meta's version.
  std::optional<Keyspace::Value> meta;
  ASSERT_TRUE(keyspace_->Read("replaced", &meta).ok());
  EXPECT_EQ(meta->version, replacement);
  EXPECT_EQ(CountMembers(replacement), 3);

  CompactAll();
  EXPECT_EQ(CountMembers(deleted), 0);
  EXPECT_EQ(CountMembers(replaced), 0);
  EXPECT_EQ(CountMembers(retyped), 0);
  EXPECT_EQ(CountMembers(live), 30);
  EXPECT_EQ(CountMembers(moved), 7);
  EXPECT_EQ(CountMembers(replacement), 3);
  // Removed: members and owner records of the three dead versions (a
  // sorted set's index entries too).
  EXPECT_EQ(filter_->dropped(), (50 + 1) + (20 + 20 + 1) + (10 + 1));
  // Left: live (meta, owner, 30), replacement (meta, owner, 3 + 3 index),
  // retyped's string, after-rename (meta, owner, 7).
  EXPECT_EQ(CountDataRecords(), (2 + 30) + (2 + 6) + 1 + (2 + 7));
}

TEST_F(StorageFormatTest, ExpiredAndSweptCollectionsGoWithTheNextCompaction) {
  StartServer();
  const uint64_t expired = PutCollection("expired", Keyspace::kHash, 12, Keyspace::NowMs() - 1);
  const uint64_t later = PutCollection("later", Keyspace::kHash, 4, Keyspace::NowMs() + 3600000);
  bool reclaimed = false;
  ASSERT_TRUE(keyspace_->ReclaimIfExpired("expired", &reclaimed).ok());
  ASSERT_TRUE(reclaimed);
  ASSERT_TRUE(keyspace_->ReclaimIfExpired("later", &reclaimed).ok());
  ASSERT_FALSE(reclaimed);
  CompactAll();
  EXPECT_EQ(CountMembers(expired), 0);
  EXPECT_EQ(CountMembers(later), 4);
  EXPECT_EQ(filter_->dropped(), 12u + 1);
}

TEST_F(StorageFormatTest, AFilterNotYetAttachedKeepsEverything) {
  ASSERT_TRUE(storage_format::Prepare(db_.get()).ok());
  keyspace_ = std::make_unique<Keyspace>(db_.get(), false);
  const uint64_t version = PutCollection("hash", Keyspace::kHash, 5);
  Delete("hash");
  CompactAll();
  EXPECT_EQ(CountMembers(version), 5);
  EXPECT_EQ(filter_->dropped(), 0u);
}

TEST_F(StorageFormatTest, FlushAllKeepsTheServerRecords) {
  StartServer();
  PutCollection("hash", Keyspace::kHash, 3);
  ASSERT_TRUE(keyspace_->Clear().ok());
  EXPECT_EQ(CountDataRecords(), 0);
  EXPECT_TRUE(storage_format::Prepare(db_.get()).ok());
  uint64_t v = 0;
  ASSERT_TRUE(keyspace_->NewVersion(&v).ok());
  std::string ceiling;
  EXPECT_TRUE(db_->Get({}, storage_format::VersionCeilingKey(), &ceiling).ok());
}

// A string value `text` under `key`, through `view`.
void PutString(Keyspace view, const std::string& key, const std::string& text) {
  Keyspace::Batch batch;
  batch.Put(key, Keyspace::Value{Keyspace::kString, 0, text, 0});
  ASSERT_TRUE(view.Commit(&batch).ok());
}

std::string GetString(const Keyspace& view, const std::string& key) {
  std::optional<Keyspace::Value> value;
  EXPECT_TRUE(view.Read(key, &value).ok());
  return value ? value->payload : "(absent)";
}

TEST_F(StorageFormatTest, DatabasesAreApartAndFlushDbEmptiesOne) {
  StartServer();
  Keyspace db5 = keyspace_->InDatabase(5);
  PutString(*keyspace_, "k", "zero");
  PutString(db5, "k", "five");
  EXPECT_EQ(GetString(*keyspace_, "k"), "zero");
  EXPECT_EQ(GetString(db5, "k"), "five");
  EXPECT_EQ(GetString(keyspace_->InDatabase(6), "k"), "(absent)");
  ASSERT_TRUE(db5.ClearDatabase().ok());
  EXPECT_EQ(GetString(db5, "k"), "(absent)");
  EXPECT_EQ(GetString(*keyspace_, "k"), "zero");
}

TEST_F(StorageFormatTest, SwapDbExchangesTwoDatabasesAndOutlivesAReopen) {
  StartServer();
  const uint64_t version = PutCollection("hash", Keyspace::kHash, 4);
  PutString(keyspace_->InDatabase(3), "k", "three");
  {
    std::string out;
    WriteGroup group(&out);
    Keyspace view = keyspace_->InGroup(&group);
    view.BeginTransaction({}, /*whole_keyspace=*/true);
    ASSERT_TRUE(view.SwapDatabases(0, 3).ok());
    view.EndTransaction();
    ASSERT_TRUE(view.FlushGroup().ok());
  }
  EXPECT_EQ(GetString(*keyspace_, "k"), "three");
  std::optional<Keyspace::Value> hash;
  ASSERT_TRUE(keyspace_->InDatabase(3).Read("hash", &hash).ok());
  ASSERT_TRUE(hash.has_value());
  EXPECT_EQ(hash->version, version);
  // The swapped collection is live for the stale member filter.
  CompactAll();
  EXPECT_EQ(CountMembers(version), 4);
  Reopen();
  StartServer();
  ASSERT_TRUE(keyspace_->LoadDatabases().ok());
  EXPECT_EQ(GetString(*keyspace_, "k"), "three");
  EXPECT_EQ(GetString(keyspace_->InDatabase(3), "k"), "(absent)");
  ASSERT_TRUE(keyspace_->InDatabase(3).Read("hash", &hash).ok());
  EXPECT_TRUE(hash.has_value());
}

TEST_F(StorageFormatTest, AMovedCollectionStaysLiveAndGoesWithItsNewDatabase) {
  StartServer();
  const uint64_t version = PutCollection("hash", Keyspace::kHash, 3);
  std::optional<Keyspace::Value> hash;
  ASSERT_TRUE(keyspace_->Read("hash", &hash).ok());
  Keyspace::Batch move;  // MOVE hash 7
  move.Delete("hash");
  move.PutNewIn(7, "hash", *hash);
  ASSERT_TRUE(keyspace_->Commit(&move).ok());
  CompactAll();
  EXPECT_EQ(CountMembers(version), 3);
  ASSERT_TRUE(keyspace_->InDatabase(7).ClearDatabase().ok());
  CompactAll();
  EXPECT_EQ(CountMembers(version), 0);
}

TEST_F(StorageFormatTest, ADamagedSlotRecordIsRefused) {
  StartServer();
  ASSERT_TRUE(db_->Put({}, storage_format::DatabaseSlotsKey(), std::string(16, '\0')).ok());
  const Status s = keyspace_->LoadDatabases();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

}  // namespace
}  // namespace teksdb::server
