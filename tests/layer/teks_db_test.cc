// Tests of the TeksDB layer itself (include/teksdb/teks_db.h): what it
// refuses, and that it really drops versions no reader needs while keeping
// the ones a live snapshot or iterator still reads. Read-for-read equality
// with stock RocksDB is the differential suites' job (differential_harness.h).
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_transaction_db.h"
#include "teksdb/rocksdb_version.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "rocksdb/comparator.h"
#include "rocksdb/utilities/debug.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::Status;

Options BasicOptions() {
  Options options;
  options.create_if_missing = true;
  return options;
}

TEST(TeksDBTest, RefusesOptionsUnderWhichDropsWouldBeUnsafe) {
  for (int which = 0; which < 2; ++which) {
    test::TempDir dir("teksdb-refuse");
    Options options = BasicOptions();
    if (which == 0) {
      options.unordered_write = true;
    } else {
      options.two_write_queues = true;
    }
    std::unique_ptr<TeksDB> db;
    const Status s = TeksDB::Open(options, dir.path(), &db);
    ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(which == 0 ? "unordered_write" : "two_write_queues"),
              std::string::npos);
  }
}

TEST(TeksDBTest, ValidatesColumnFamiliesCreatedAfterOpen) {
  test::TempDir dir("teksdb-cf");
  std::unique_ptr<TeksDB> db;
  ASSERT_TRUE(TeksDB::Open(BasicOptions(), dir.path(), &db).ok());
  test::TimestampedComparator cmp;
  ROCKSDB_NAMESPACE::ColumnFamilyOptions cf_options;
  cf_options.comparator = &cmp;
  ROCKSDB_NAMESPACE::ColumnFamilyHandle* handle = nullptr;
  const Status s = db->CreateColumnFamily(cf_options, "ts", &handle);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("timestamp"), std::string::npos);
  EXPECT_EQ(handle, nullptr);
  ASSERT_TRUE(db->CreateColumnFamily({}, "plain", &handle).ok());
  EXPECT_STREQ(db->GetOptions(handle).memtable_factory->Name(), kTeksTableFactoryName);
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
}

// How many versions of `key` the memtable holds (utilities/debug.h walks
// RocksDB's internal iterator, which sees every entry the memtable yields).
size_t VersionsInMemtable(ROCKSDB_NAMESPACE::DB* db, const std::string& key) {
  std::vector<ROCKSDB_NAMESPACE::KeyVersion> versions;
  EXPECT_TRUE(ROCKSDB_NAMESPACE::GetAllKeyVersions(db->GetRootDB(), key, key, 100000,
                                                   &versions)
                  .ok());
  return versions.size();
}

TEST(TeksDBTest, DropsVersionsNoReaderNeedsAndKeepsSnapshotsWhole) {
  test::TempDir dir("teksdb-drop");
  std::unique_ptr<TeksDB> db;
  ASSERT_TRUE(TeksDB::Open(BasicOptions(), dir.path(), &db).ok());
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
  // A snapshot pins version 49 of "hot" ...
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> held(db->NewIterator({}));
  for (int i = 100; i < 200; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
  ROCKSDB_NAMESPACE::ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string value;
  ASSERT_TRUE(db->Get(at_snapshot, "hot", &value).ok());
  EXPECT_EQ(value, "99");
  held->Seek("hot");
  ASSERT_TRUE(held->Valid());
  EXPECT_EQ(held->value().ToString(), "99");
  held.reset();
  db->ReleaseSnapshot(snapshot);
  // ... and once they are gone, the next update drops everything older.
  ASSERT_TRUE(db->Put({}, "hot", "last").ok());
  // The update's own sequence is not yet published while it is inserted,
  // so the version before it stays until the next update of the key.
  EXPECT_EQ(VersionsInMemtable(db.get(), "hot"), 2u);
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value().ToString(), "last");
}

// Under the layer, updates reuse the memory of the versions they drop, so
// a memtable holding every key absorbs them without filling; the WAL it
// keeps alive (every write since it was created) is bounded by
// max_wal_write_buffers: past that it fills and is flushed.
TEST(TeksDBTest, UpdatesReuseMemoryAndTheWalStaysBounded) {
  constexpr size_t kWriteBuffer = 1 << 20;
  constexpr int kKeys = 500;
  constexpr int kWrites = 40000;
  const std::string value(200, 'v');
  const size_t write_bytes = 16 + value.size();  // a WAL record's key and value
  uint64_t flushes[2];
  for (const uint32_t bound : {1u, 3u}) {
    test::TempDir dir("teksdb-wal-bound");
    Options options = BasicOptions();
    options.write_buffer_size = kWriteBuffer;
    TeksTableOptions teks;
    teks.max_wal_write_buffers = bound;
    options.memtable_factory = NewTeksTableFactory(teks);
    auto counter = std::make_shared<test::AutomaticFlushCounter>();
    options.listeners.push_back(counter);
    std::unique_ptr<TeksDB> db;
    ASSERT_OK(TeksDB::Open(options, dir.path(), &db));
    uint64_t most_entries = 0;
    for (int i = 0; i < kWrites; ++i) {
      char key[17];
      std::snprintf(key, sizeof(key), "key%013d", i % kKeys);
      ASSERT_OK(db->Put({}, key, value));
      if (i % 100 == 0) {
        uint64_t active = 0;
        ASSERT_TRUE(db->GetIntProperty("rocksdb.num-entries-active-mem-table", &active));
        most_entries = std::max(most_entries, active);
      }
    }
    // The active memtable's entries are the writes since its WAL began.
    EXPECT_LE(most_entries * write_bytes, (bound + 1) * kWriteBuffer) << "bound " << bound;
    flushes[bound > 1] = counter->count();
    std::string got;
    ASSERT_OK(db->Get({}, "key0000000000007", &got));
    EXPECT_EQ(got, value);
  }
  // kKeys fit one memtable: without the bound it would never flush.
  EXPECT_GE(flushes[true], 2u);
  EXPECT_LE(flushes[true] * 2, flushes[false]) << "reuse flushes at most half as often";
}

// RocksDB returns a long list of merge operands (>= 32 KiB) pinned in the
// memtable rather than copied; the versions they live in may be dropped,
// and their memory reused, as soon as the call's reader is gone. So the
// layer hands back copies, which stay whole through later updates.
TEST(TeksDBTest, MergeOperandsOutliveTheirVersions) {
  test::TempDir dir("teksdb-operands");
  Options options = BasicOptions();
  options.merge_operator = std::make_shared<test::AppendOperator>();
  std::unique_ptr<TeksDB> db;
  ASSERT_OK(TeksDB::Open(options, dir.path(), &db));
  auto value_of = [](int i) { return std::string(300, static_cast<char>('a' + i % 26)); };
  ASSERT_OK(db->Put({}, "k", "first"));
  ASSERT_OK(db->Put({}, "k", value_of(0)));  // the base, a version of its own
  constexpr int kOperands = 200;
  for (int i = 1; i <= kOperands; ++i) ASSERT_OK(db->Merge({}, "k", value_of(i)));
  std::vector<ROCKSDB_NAMESPACE::PinnableSlice> got(kOperands + 1);
  ROCKSDB_NAMESPACE::GetMergeOperandsOptions merge_options;
  merge_options.expected_max_number_of_operands = kOperands + 1;
  int count = 0;
  ASSERT_OK(db->GetMergeOperands({}, db->DefaultColumnFamily(), "k", got.data(), &merge_options,
                                 &count));
  ASSERT_EQ(count, kOperands + 1);
  // Every version of "k" dropped, and updates of the same size that reuse
  // memory; none of it may touch what the call returned.
  for (int round = 0; round < 50; ++round) {
    for (const char* key : {"k", "j"}) ASSERT_OK(db->Put({}, key, std::string(300, 'Z')));
  }
  for (int i = 0; i <= kOperands; ++i) {
    EXPECT_FALSE(got[i].IsPinned()) << i;
    EXPECT_EQ(got[i].ToString(), value_of(i)) << i;
  }
}

TEST(TeksDBTest, KeepsVersionsAHeldSnapshotNeeds) {
  test::TempDir dir("teksdb-keep");
  std::unique_ptr<TeksDB> db;
  ASSERT_TRUE(TeksDB::Open(BasicOptions(), dir.path(), &db).ok());
  ASSERT_TRUE(db->Put({}, "hot", "old").ok());
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
  // A version goes once no reader reads between it and its successor: the
  // snapshot keeps the version it reads, the newest stays, and so does its
  // predecessor until a newer write is published (snapshot stripes).
  EXPECT_EQ(VersionsInMemtable(db.get(), "hot"), 3u);
  ROCKSDB_NAMESPACE::ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string value;
  ASSERT_TRUE(db->Get(at_snapshot, "hot", &value).ok());
  EXPECT_EQ(value, "old");
  db->ReleaseSnapshot(snapshot);
  ASSERT_TRUE(db->Put({}, "hot", "after").ok());
  EXPECT_EQ(VersionsInMemtable(db.get(), "hot"), 2u);
}

TEST(TeksDBTest, APlainFactoryKeepsEveryVersion) {
  test::TempDir dir("teksdb-plain");
  Options options = BasicOptions();
  options.memtable_factory = NewTeksTableFactory();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, dir.path(), &db).ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
  std::vector<ROCKSDB_NAMESPACE::KeyVersion> versions;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::GetAllKeyVersions(db.get(), "hot", "hot", 100, &versions).ok());
  EXPECT_EQ(versions.size(), 10u);
}

std::unique_ptr<TeksTransactionDB> OpenWritePrepared(const std::string& path) {
  ROCKSDB_NAMESPACE::TransactionDBOptions txn_options;
  txn_options.write_policy = ROCKSDB_NAMESPACE::WRITE_PREPARED;
  std::unique_ptr<TeksTransactionDB> db;
  EXPECT_TRUE(TeksTransactionDB::Open(BasicOptions(), txn_options, path, &db).ok());
  return db;
}

TEST(TeksTransactionDBTest, DropsVersionsOfCommittedWrites) {
  test::TempDir dir("teksdb-txn-drop");
  auto db = OpenWritePrepared(dir.path());
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
  ROCKSDB_NAMESPACE::Transaction* txn = db->BeginTransaction({});
  ASSERT_TRUE(txn->SetName("t1").ok());
  ASSERT_TRUE(txn->Put("hot", "txn").ok());
  ASSERT_TRUE(txn->Prepare().ok());
  ASSERT_TRUE(txn->Commit().ok());
  delete txn;
  ASSERT_TRUE(db->Put({}, "hot", "after").ok());
  ASSERT_TRUE(db->Put({}, "hot", "last").ok());
  std::vector<ROCKSDB_NAMESPACE::KeyVersion> versions;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::GetAllKeyVersions(db->GetRootDB(), "hot", "hot", 100,
                                                   &versions)
                  .ok());
  EXPECT_LE(versions.size(), 2u);
}

// A snapshot taken while a transaction is prepared does not see its write,
// even after the commit: the prepared version must not shadow (and so drop)
// the one the snapshot reads, whatever is written later.
TEST(TeksTransactionDBTest, APreparedWriteNeverShadowsWhatOlderReadersSee) {
  test::TempDir dir("teksdb-txn-hold");
  auto db = OpenWritePrepared(dir.path());
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Put({}, "k", "old").ok());
  ROCKSDB_NAMESPACE::Transaction* txn = db->BeginTransaction({});
  ASSERT_TRUE(txn->SetName("t1").ok());
  ASSERT_TRUE(txn->Put("k", "prepared").ok());
  ASSERT_TRUE(txn->Prepare().ok());
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
  ASSERT_TRUE(txn->Commit().ok());
  delete txn;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(db->Put({}, "k", "newer" + std::to_string(i)).ok());
  ROCKSDB_NAMESPACE::ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string value;
  ASSERT_TRUE(db->Get(at_snapshot, "k", &value).ok());
  EXPECT_EQ(value, "old");
  std::string latest;
  ASSERT_TRUE(db->Get({}, "k", &latest).ok());
  EXPECT_EQ(latest, "newer4");
  db->ReleaseSnapshot(snapshot);
  ASSERT_TRUE(db->Put({}, "k", "final").ok());
  std::vector<ROCKSDB_NAMESPACE::KeyVersion> versions;
  ASSERT_TRUE(
      ROCKSDB_NAMESPACE::GetAllKeyVersions(db->GetRootDB(), "k", "k", 100, &versions).ok());
  EXPECT_LE(versions.size(), 2u);  // once the snapshot is gone, so are they
}

#if TEKSDB_ROCKSDB_HAS_COMMIT_BYPASS_MEMTABLE
// A WriteCommitted transaction with commit_bypass_memtable commits into a
// memtable of its own (RocksDB ingests its write batch as an immutable
// memtable), never through the rep: what it wrote reads back, shadows
// older versions for new readers only, and later writes shadow it.
TEST(TeksTransactionDBTest, ACommitThatBypassesTheMemtableReadsBackInOrder) {
  test::TempDir dir("teksdb-txn-bypass");
  std::unique_ptr<TeksTransactionDB> db;
  ASSERT_TRUE(TeksTransactionDB::Open(BasicOptions(), ROCKSDB_NAMESPACE::TransactionDBOptions(),
                                      dir.path(), &db)
                  .ok());
  ASSERT_TRUE(db->Put({}, "k", "old").ok());
  const ROCKSDB_NAMESPACE::Snapshot* before = db->GetSnapshot();
  ROCKSDB_NAMESPACE::TransactionOptions bypass;
  bypass.commit_bypass_memtable = true;
  std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> txn(db->BeginTransaction({}, bypass));
  ASSERT_TRUE(txn->SetName("bypass").ok());
  ASSERT_TRUE(txn->Put("k", "bypassed").ok());
  ASSERT_TRUE(txn->Put("only-in-txn", "v").ok());
  ASSERT_TRUE(txn->Prepare().ok());
  ASSERT_TRUE(txn->Commit().ok());
  txn.reset();
  std::string value;
  ASSERT_TRUE(db->Get({}, "k", &value).ok());
  EXPECT_EQ(value, "bypassed");
  ASSERT_TRUE(db->Get({}, "only-in-txn", &value).ok());
  EXPECT_EQ(value, "v");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(db->Put({}, "k", "newer" + std::to_string(i)).ok());
  ASSERT_TRUE(db->Get({}, "k", &value).ok());
  EXPECT_EQ(value, "newer4");
  ROCKSDB_NAMESPACE::ReadOptions at_before;
  at_before.snapshot = before;
  ASSERT_TRUE(db->Get(at_before, "k", &value).ok());
  EXPECT_EQ(value, "old");
  EXPECT_TRUE(db->Get(at_before, "only-in-txn", &value).IsNotFound());
  db->ReleaseSnapshot(before);
  ASSERT_TRUE(db->Flush({}).ok());
  ASSERT_TRUE(db->Get({}, "k", &value).ok());
  EXPECT_EQ(value, "newer4");
  ASSERT_TRUE(db->Get({}, "only-in-txn", &value).ok());
  EXPECT_EQ(value, "v");
}
#endif

TEST(TeksTransactionDBTest, ReusesTheTransactionObjectItWasGiven) {
  test::TempDir dir("teksdb-txn-reuse");
  auto db = OpenWritePrepared(dir.path());
  ASSERT_NE(db, nullptr);
  ROCKSDB_NAMESPACE::Transaction* txn = db->BeginTransaction({});
  ASSERT_TRUE(txn->Put("a", "1").ok());
  ASSERT_TRUE(txn->Commit().ok());
  ROCKSDB_NAMESPACE::Transaction* again = db->BeginTransaction({}, {}, txn);
  EXPECT_EQ(again, txn);
  ASSERT_TRUE(again->SetName("second").ok());
  ASSERT_TRUE(again->Put("b", "2").ok());
  ASSERT_TRUE(again->Prepare().ok());
  EXPECT_EQ(db->GetTransactionByName("second"), again);
  ASSERT_TRUE(again->Commit().ok());
  delete again;
  std::string value;
  ASSERT_TRUE(db->Get({}, "b", &value).ok());
  EXPECT_EQ(value, "2");
}

std::string ReadAt(TeksTransactionDB* db, const ROCKSDB_NAMESPACE::Snapshot* snapshot,
                   const std::string& key) {
  ROCKSDB_NAMESPACE::ReadOptions options;
  options.snapshot = snapshot;
  std::string value;
  const Status s = db->Get(options, key, &value);
  return s.ok() ? value : s.ToString();
}

// Reusing a handle whose transaction is still prepared abandons that
// transaction (RocksDB leaves its entries prepared until recovery decides),
// so its entries must go on never shadowing what older readers see. Runs in
// EXPECT_EXIT's child process, which reports the read and ends without
// closing the DB: a WritePrepared DB asserts at close that no transaction
// is left prepared, and the abandoned one can no longer be resolved.
[[noreturn]] void ReusePreparedTransactionThenExit() {
  std::string report;
  {
    test::TempDir dir("teksdb-txn-reuse-prepared");
    auto db = OpenWritePrepared(dir.path());
    ROCKSDB_NAMESPACE::Transaction* txn = db->BeginTransaction({});
    if (!db->Put({}, "k", "v1").ok() || !txn->SetName("t1").ok() ||
        !txn->Put("k", "v2").ok() || !txn->Prepare().ok()) {
      report = "setup failed";
    } else {
      const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
      const bool reused = db->BeginTransaction({}, {}, txn) == txn;
      const bool written = db->Put({}, "k", "v3").ok() && db->Put({}, "k", "v4").ok();
      report = !reused    ? "not reused"
               : !written ? "put failed"
                          : "at the snapshot: " + ReadAt(db.get(), snapshot, "k");
    }
    db.release();  // never closed (see above); `dir` goes
  }
  std::fprintf(stderr, "%s\n", report.c_str());
  std::fflush(stderr);
  std::_Exit(0);
}

TEST(TeksTransactionDBTest, ReusingAPreparedTransactionKeepsItsPrepareHold) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Stock TransactionDB reads v1 there too.
  EXPECT_EXIT(ReusePreparedTransactionThenExit(), ::testing::ExitedWithCode(0),
              "at the snapshot: v1\n");
}

// A transaction recovered in the prepared state stops every drop from the
// moment the DB is open (teks_transaction_db.h), whether or not the
// application has asked for it yet, until it is committed or rolled back.
// (RocksDB 7.8.3 flushes at the end of a 2PC recovery, so its entries are in
// L0 by then; the hold does not rely on that.)
TEST(TeksTransactionDBTest, RecoveredPreparedTransactionsHoldDropsFromOpen) {
  test::TempDir dir("teksdb-txn-recovered");
  test::TempDir crashed("teksdb-txn-recovered-crash");
  {
    // A copy of the files while "t1" is prepared is what a crash leaves.
    auto db = OpenWritePrepared(dir.path());
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->Put({}, "k", "v1").ok());
    std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> txn(db->BeginTransaction({}));
    ASSERT_TRUE(txn->SetName("t1").ok());
    ASSERT_TRUE(txn->Put("k", "v2").ok());
    ASSERT_TRUE(txn->Prepare().ok());
    std::filesystem::copy(dir.path(), crashed.path(),
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing);
    ASSERT_TRUE(txn->Rollback().ok());
  }
  auto db = OpenWritePrepared(crashed.path());
  ASSERT_NE(db, nullptr);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
  EXPECT_EQ(VersionsInMemtable(db.get(), "hot"), 10u);
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = db->GetSnapshot();
  // The recovered transaction holds the lock on "k": write around it.
  ROCKSDB_NAMESPACE::TransactionDBWriteOptimizations no_locks;
  no_locks.skip_concurrency_control = true;
  for (const char* v : {"v3", "v4"}) {
    ROCKSDB_NAMESPACE::WriteBatch batch;
    ASSERT_TRUE(batch.Put("k", v).ok());
    ASSERT_TRUE(db->Write({}, no_locks, &batch).ok());
  }
  EXPECT_EQ(ReadAt(db.get(), snapshot, "k"), "v1");  // stock TransactionDB: v1
  db->ReleaseSnapshot(snapshot);
  // Committed through the wrapper: its hold goes, and drops resume.
  ROCKSDB_NAMESPACE::Transaction* recovered = db->GetTransactionByName("t1");
  ASSERT_NE(recovered, nullptr);
  ASSERT_TRUE(recovered->Commit().ok());
  delete recovered;
  EXPECT_EQ(ReadAt(db.get(), nullptr, "k"), "v4");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(db->Put({}, "hot", "last" + std::to_string(i)).ok());
  EXPECT_LE(VersionsInMemtable(db.get(), "hot"), 2u);
}

TEST(TeksTransactionDBTest, RefusesTimestampedSnapshotsAndCommitTimestamps) {
  test::TempDir dir("teksdb-txn-ts");
  auto db = OpenWritePrepared(dir.path());
  ASSERT_NE(db, nullptr);
  EXPECT_TRUE(db->CreateTimestampedSnapshot(1).first.IsNotSupported());
  std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> txn(db->BeginTransaction({}));
  const Status s = txn->SetCommitTimestamp(7);
  ASSERT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("commit timestamps"), std::string::npos);
}

// WriteUnprepared transactions put uncommitted entries in the memtable
// before Prepare, which the layer cannot hold back.
TEST(TeksTransactionDBTest, RefusesWriteUnprepared) {
  test::TempDir dir("teksdb-txn-unprepared");
  ROCKSDB_NAMESPACE::TransactionDBOptions txn_options;
  txn_options.write_policy = ROCKSDB_NAMESPACE::WRITE_UNPREPARED;
  std::unique_ptr<TeksTransactionDB> db;
  const Status s = TeksTransactionDB::Open(BasicOptions(), txn_options, dir.path(), &db);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("WRITE_UNPREPARED"), std::string::npos);
  EXPECT_EQ(db, nullptr);
}

}  // namespace
}  // namespace teksdb
