// TeksTransactionDB: RocksDB's pessimistic TransactionDB (WriteCommitted or
// WritePrepared) with TeksTable memtables and the TeksDB layer's version
// dropping (see teks_db.h for the layer's rules).
//
//   std::unique_ptr<teksdb::TeksTransactionDB> db;
//   rocksdb::TransactionDBOptions txn_options;
//   txn_options.write_policy = rocksdb::WRITE_PREPARED;
//   teksdb::TeksTransactionDB::Open(options, txn_options, "/path", &db);
//   rocksdb::Transaction* txn = db->BeginTransaction(rocksdb::WriteOptions());
//
// Reads through this object are registered one by one (TeksLayer).
// Transactions are RegisteredTransactions: registered for their whole life,
// since WritePrepared transactions read past every StackableDB; and from
// before Prepare() until readers have moved past their commit (or
// rollback), their uncommitted entries never count as shadowing older
// versions. Transactions recovered in the prepared state stop all version
// dropping from Open() until they are committed or rolled back (through the
// object GetTransactionByName or GetAllPreparedTransactions returns; one
// never asked for holds until the DB is closed).
//
// A transaction deleted while still prepared, or whose object is reused by
// BeginTransaction while still prepared (RocksDB then abandons it, its
// entries left uncommitted), stops version dropping until the DB is
// reopened.
//
// Differences from RocksDB's TransactionDB:
//   - BeginTransaction's `old_txn` must be a transaction this DB returned.
//   - WRITE_UNPREPARED is refused at Open (InvalidArgument): its
//     transactions put uncommitted entries in the memtable before Prepare.
//   - WRITE_PREPARED with DBOptions::manual_wal_flush is refused at Open
//     (InvalidArgument): RocksDB's compactions may act on a commit whose
//     marker is still in the WAL buffer, and a crash then brings back an
//     older value (docs/RELIABILITY.md, "What the crash test found").
//   - CreateTimestampedSnapshot and Transaction::SetCommitTimestamp return
//     NotSupported: such snapshots live beyond any call the layer can see.
//
// Design notes: docs/DESIGN.md §5.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/transaction_db.h"
#include "teksdb/teks_layer.h"

namespace teksdb {

class TransactionWrappers;

// Defined in rocksdb/teks_layer.cc.
extern template class TeksLayer<ROCKSDB_NAMESPACE::TransactionDB>;

class TeksTransactionDB : public TeksLayer<ROCKSDB_NAMESPACE::TransactionDB> {
 public:
  static ROCKSDB_NAMESPACE::Status Open(
      const ROCKSDB_NAMESPACE::Options& options,
      const ROCKSDB_NAMESPACE::TransactionDBOptions& txn_db_options, const std::string& path,
      std::unique_ptr<TeksTransactionDB>* db);
  static ROCKSDB_NAMESPACE::Status Open(
      const ROCKSDB_NAMESPACE::DBOptions& db_options,
      const ROCKSDB_NAMESPACE::TransactionDBOptions& txn_db_options, const std::string& path,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
      std::unique_ptr<TeksTransactionDB>* db);

  using TransactionDB::Write;
  ROCKSDB_NAMESPACE::Status Write(
      const ROCKSDB_NAMESPACE::WriteOptions& options,
      const ROCKSDB_NAMESPACE::TransactionDBWriteOptimizations& optimizations,
      ROCKSDB_NAMESPACE::WriteBatch* updates) override;

  ROCKSDB_NAMESPACE::Transaction* BeginTransaction(
      const ROCKSDB_NAMESPACE::WriteOptions& write_options,
      const ROCKSDB_NAMESPACE::TransactionOptions& txn_options =
          ROCKSDB_NAMESPACE::TransactionOptions(),
      ROCKSDB_NAMESPACE::Transaction* old_txn = nullptr) override;
  ROCKSDB_NAMESPACE::Transaction* GetTransactionByName(
      const ROCKSDB_NAMESPACE::TransactionName& name) override;
  void GetAllPreparedTransactions(
      std::vector<ROCKSDB_NAMESPACE::Transaction*>* transactions) override;

  std::unordered_multimap<uint32_t, ROCKSDB_NAMESPACE::KeyLockInfo> GetLockStatusData()
      override;
  std::vector<ROCKSDB_NAMESPACE::DeadlockPath> GetDeadlockInfoBuffer() override;
  void SetDeadlockInfoBufferSize(uint32_t target_size) override;

  std::pair<ROCKSDB_NAMESPACE::Status, std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot>>
  CreateTimestampedSnapshot(ROCKSDB_NAMESPACE::TxnTimestamp ts) override;
  std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot> GetTimestampedSnapshot(
      ROCKSDB_NAMESPACE::TxnTimestamp ts) const override;
  void ReleaseTimestampedSnapshotsOlderThan(ROCKSDB_NAMESPACE::TxnTimestamp ts) override;
  ROCKSDB_NAMESPACE::Status GetTimestampedSnapshots(
      ROCKSDB_NAMESPACE::TxnTimestamp ts_lb, ROCKSDB_NAMESPACE::TxnTimestamp ts_ub,
      std::vector<std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot>>& timestamped_snapshots)
      const override;

 private:
  TeksTransactionDB(std::shared_ptr<ReaderRegistry> registry,
                    ROCKSDB_NAMESPACE::TransactionDB* inner);
  ROCKSDB_NAMESPACE::TransactionDB* inner() const;
  // The wrapper the application holds for `txn`, or a new one (which the
  // caller owns) for a transaction recovered at open.
  ROCKSDB_NAMESPACE::Transaction* Wrapped(ROCKSDB_NAMESPACE::Transaction* txn);

  const std::shared_ptr<TransactionWrappers> wrappers_;
};

}  // namespace teksdb
