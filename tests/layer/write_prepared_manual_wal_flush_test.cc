// WritePrepared with manual_wal_flush: the sequence behind the crash test's
// "acknowledged write came back older" (docs/RELIABILITY.md, "What the
// crash test found"), step by step, with a SIGKILL stood in for by copying
// the DB's files while it is open (what the kernel holds is what a killed
// process leaves; RocksDB's WAL buffer is not in it).
//
//   1. Put(K, old), FlushWAL: acknowledged and in the WAL file.
//   2. T: Put(K, new), Prepare: the prepared entry goes to the memtable.
//   3. Flush: the memtable switch writes the WAL buffer out (the prepare is
//      in the file), the SST holds K@prepare=new (uncommitted) and K=old.
//   4. T.Commit(): its commit marker waits in the WAL buffer.
//   5. CompactRange: RocksDB's compaction asks the in-memory commit cache,
//      which says K@prepare is committed, so `old` is hidden and dropped.
//   6. Kill (copy the files). The commit marker is lost, so T is recovered
//      prepared; K's `old`, acknowledged at step 1, is gone from the DB.
// RocksDB's own TransactionDB with the SkipList memtable does this (the
// control); TeksTransactionDB refuses the configuration at Open.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rocksdb/utilities/transaction_db.h"
#include "teksdb/teks_transaction_db.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::CompactRangeOptions;
using ROCKSDB_NAMESPACE::FlushOptions;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::Transaction;
using ROCKSDB_NAMESPACE::TransactionDB;
using ROCKSDB_NAMESPACE::TransactionDBOptions;
using ROCKSDB_NAMESPACE::WriteOptions;

Options ManualWalFlushOptions() {
  Options options;
  options.create_if_missing = true;
  options.manual_wal_flush = true;
  options.disable_auto_compactions = true;
  return options;
}

TransactionDBOptions WritePrepared() {
  TransactionDBOptions txn_db_options;
  txn_db_options.write_policy = ROCKSDB_NAMESPACE::WRITE_PREPARED;
  return txn_db_options;
}

// What a SIGKILL leaves: every file as the kernel has it now.
void CopyAsAKillLeavesIt(const std::string& from, const std::string& to) {
  std::filesystem::create_directories(to);
  for (const auto& entry : std::filesystem::directory_iterator(from)) {
    std::filesystem::copy_file(entry.path(), to + "/" + entry.path().filename().string());
  }
}

// Steps 1-6 above on `db`, which writes to `dir`; `crashed` gets the files
// a kill after step 5 leaves.
void RunSequence(TransactionDB* db, const std::string& crashed_dir, const std::string& dir) {
  ASSERT_OK(db->Put(WriteOptions(), "K", "old"));
  ASSERT_OK(db->FlushWAL(false));
  std::unique_ptr<Transaction> txn(db->BeginTransaction(WriteOptions()));
  ASSERT_OK(txn->SetName("T"));
  ASSERT_OK(txn->Put("K", "new"));
  ASSERT_OK(txn->Prepare());
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(txn->Commit());
  CompactRangeOptions compact;  // rewrite the file, never a trivial move
  compact.bottommost_level_compaction = ROCKSDB_NAMESPACE::BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(compact, nullptr, nullptr));
  CopyAsAKillLeavesIt(dir, crashed_dir);
}

// After the kill T is prepared (its commit marker was lost), so K must
// read `old`, and still `old` once T is rolled back. Returns what K reads
// after the rollback ("<none>" if nothing).
std::string RecoverAndRollBack(const std::string& crashed_dir) {
  TransactionDB* raw = nullptr;
  Options options = ManualWalFlushOptions();
  options.create_if_missing = false;
  Status s = TransactionDB::Open(options, WritePrepared(), crashed_dir, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return "<open failed>";
  std::unique_ptr<TransactionDB> db(raw);
  std::vector<Transaction*> prepared;
  db->GetAllPreparedTransactions(&prepared);
  EXPECT_EQ(prepared.size(), 1u) << "T's commit marker was in the lost WAL buffer";
  for (Transaction* txn : prepared) {
    EXPECT_TRUE(txn->Rollback().ok());
    delete txn;
  }
  std::string value;
  s = db->Get(ReadOptions(), "K", &value);
  return s.ok() ? value : "<none>";
}

// The control: RocksDB alone. If this fails, the RocksDB built against no
// longer drops an acknowledged version on the strength of a commit that is
// not in the WAL yet, and TeksTransactionDB's refusal may be lifted for it.
TEST(WritePreparedManualWalFlushTest, RocksDBAloneLosesTheAcknowledgedValue) {
  test::TempDir tmp("teksdb-wp-manual-wal");
  const std::string dir = tmp.path() + "/db";
  const std::string crashed = tmp.path() + "/crashed";
  {
    TransactionDB* raw = nullptr;
    ASSERT_OK(TransactionDB::Open(ManualWalFlushOptions(), WritePrepared(), dir, &raw));
    std::unique_ptr<TransactionDB> db(raw);
    RunSequence(db.get(), crashed, dir);
  }
  EXPECT_NE(RecoverAndRollBack(crashed), "old")
      << "RocksDB " << ROCKSDB_MAJOR << "." << ROCKSDB_MINOR
      << " keeps the acknowledged value here: see docs/RELIABILITY.md";
}

// The same sequence with the WAL written at every write: T's commit is in
// the file, T recovers committed, K reads `new`. The sequence itself is
// sound; only the lost commit marker breaks it.
TEST(WritePreparedManualWalFlushTest, WithTheWalWrittenAtEachWriteTheCommitSurvives) {
  test::TempDir tmp("teksdb-wp-auto-wal");
  const std::string dir = tmp.path() + "/db";
  const std::string crashed = tmp.path() + "/crashed";
  Options options = ManualWalFlushOptions();
  options.manual_wal_flush = false;
  {
    std::unique_ptr<TeksTransactionDB> db;
    ASSERT_OK(TeksTransactionDB::Open(options, WritePrepared(), dir, &db));
    RunSequence(db.get(), crashed, dir);
  }
  TransactionDB* raw = nullptr;
  options.create_if_missing = false;
  ASSERT_OK(TransactionDB::Open(options, WritePrepared(), crashed, &raw));
  std::unique_ptr<TransactionDB> db(raw);
  std::vector<Transaction*> prepared;
  db->GetAllPreparedTransactions(&prepared);
  EXPECT_TRUE(prepared.empty());
  std::string value;
  ASSERT_OK(db->Get(ReadOptions(), "K", &value));
  EXPECT_EQ(value, "new");
}

TEST(WritePreparedManualWalFlushTest, TeksTransactionDBRefusesIt) {
  test::TempDir tmp("teksdb-wp-refused");
  std::unique_ptr<TeksTransactionDB> db;
  const Status s =
      TeksTransactionDB::Open(ManualWalFlushOptions(), WritePrepared(), tmp.path() + "/db", &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("manual_wal_flush"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("WRITE_PREPARED"), std::string::npos) << s.ToString();
  EXPECT_EQ(db, nullptr);
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/db/CURRENT")) << "refused before creating";
}

TEST(WritePreparedManualWalFlushTest, TeksTransactionDBTakesManualWalFlushWithWriteCommitted) {
  test::TempDir tmp("teksdb-wc-manual-wal");
  TransactionDBOptions txn_db_options;
  txn_db_options.write_policy = ROCKSDB_NAMESPACE::WRITE_COMMITTED;
  std::unique_ptr<TeksTransactionDB> db;
  ASSERT_OK(TeksTransactionDB::Open(ManualWalFlushOptions(), txn_db_options,
                                    tmp.path() + "/db", &db));
  ASSERT_OK(db->Put(WriteOptions(), "K", "v"));
  ASSERT_OK(db->FlushWAL(false));
}

}  // namespace
}  // namespace teksdb
