// TeksTransactionDB implementation: open through the layer's options, wrap
// transactions in RegisteredTransaction, forward the rest.
#include "teksdb/teks_transaction_db.h"

#include "registered_transaction.h"
#include "teks_layer_setup.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::Transaction;
using ROCKSDB_NAMESPACE::TransactionDB;

Status TeksTransactionDB::Open(const ROCKSDB_NAMESPACE::Options& options,
                               const ROCKSDB_NAMESPACE::TransactionDBOptions& txn_db_options,
                               const std::string& path,
                               std::unique_ptr<TeksTransactionDB>* db) {
  std::vector<ColumnFamilyDescriptor> cfs = {
      ColumnFamilyDescriptor(ROCKSDB_NAMESPACE::kDefaultColumnFamilyName,
                             ROCKSDB_NAMESPACE::ColumnFamilyOptions(options))};
  std::vector<ColumnFamilyHandle*> handles;
  Status s = Open(DBOptions(options), txn_db_options, path, cfs, &handles, db);
  if (s.ok()) {
    // The default column family's handle is owned by the DB itself.
    delete handles[0];
  }
  return s;
}

Status TeksTransactionDB::Open(const DBOptions& db_options,
                               const ROCKSDB_NAMESPACE::TransactionDBOptions& txn_db_options,
                               const std::string& path,
                               const std::vector<ColumnFamilyDescriptor>& column_families,
                               std::vector<ColumnFamilyHandle*>* handles,
                               std::unique_ptr<TeksTransactionDB>* db) {
  if (txn_db_options.write_policy == ROCKSDB_NAMESPACE::WRITE_UNPREPARED) {
    return Status::InvalidArgument(
        "TeksTransactionDB does not support write_policy=WRITE_UNPREPARED",
        "its transactions write uncommitted entries before Prepare");
  }
  if (txn_db_options.write_policy == ROCKSDB_NAMESPACE::WRITE_PREPARED &&
      db_options.manual_wal_flush) {
    // RocksDB's compactions take a prepared transaction's commit from the
    // in-memory commit cache while its commit marker may still be in the
    // WAL buffer: a crash then recovers the transaction prepared, with the
    // versions its commit hid already compacted away (docs/RELIABILITY.md).
    return Status::InvalidArgument(
        "TeksTransactionDB does not support write_policy=WRITE_PREPARED with "
        "manual_wal_flush=true",
        "RocksDB can compact away versions on the strength of a commit still in the WAL "
        "buffer, and a crash then brings back an older value; use WRITE_COMMITTED, or "
        "manual_wal_flush=false");
  }
  auto registry = std::make_shared<ReaderRegistry>();
  DBOptions options;
  std::vector<ColumnFamilyDescriptor> cfs;
  Status s = PrepareTeksOpen(db_options, column_families, registry, &options, &cfs);
  if (!s.ok()) return s;
  TransactionDB* inner = nullptr;
  s = TransactionDB::Open(options, txn_db_options, path, cfs, handles, &inner);
  if (!s.ok()) return s;
  // Transactions recovered in the prepared state: their sequences are
  // unknown here, so each holds every drop until it commits or rolls back.
  // Held before the registry is attached, so before any drop can happen.
  std::vector<Transaction*> recovered;
  inner->GetAllPreparedTransactions(&recovered);
  std::vector<ReaderRegistry::Registration> holds;
  for (size_t i = 0; i < recovered.size(); ++i) holds.push_back(registry->Register(0));
  auto* teks = new TeksTransactionDB(std::move(registry), inner);
  for (size_t i = 0; i < recovered.size(); ++i) {
    teks->wrappers_->AddRecoveredHold(recovered[i], std::move(holds[i]));
  }
  db->reset(teks);
  return s;
}

TeksTransactionDB::TeksTransactionDB(std::shared_ptr<ReaderRegistry> registry,
                                     TransactionDB* inner)
    : TeksLayer(std::move(registry), inner), wrappers_(std::make_shared<TransactionWrappers>()) {}

TransactionDB* TeksTransactionDB::inner() const { return static_cast<TransactionDB*>(db_); }

Status TeksTransactionDB::Write(
    const ROCKSDB_NAMESPACE::WriteOptions& options,
    const ROCKSDB_NAMESPACE::TransactionDBWriteOptimizations& optimizations,
    ROCKSDB_NAMESPACE::WriteBatch* updates) {
  return inner()->Write(options, optimizations, updates);
}

Transaction* TeksTransactionDB::BeginTransaction(
    const ROCKSDB_NAMESPACE::WriteOptions& write_options,
    const ROCKSDB_NAMESPACE::TransactionOptions& txn_options, Transaction* old_txn) {
  // Registered before the transaction can take any sequence.
  auto lifetime = registry_->Register();
  auto* reused = static_cast<RegisteredTransaction*>(old_txn);
  Transaction* txn = inner()->BeginTransaction(write_options, txn_options,
                                               reused != nullptr ? reused->TakeInner() : nullptr);
  if (reused != nullptr) {
    reused->Rebind(txn, std::move(lifetime));
    return reused;
  }
  return new RegisteredTransaction(std::unique_ptr<Transaction>(txn), registry_.get(),
                                   wrappers_, std::move(lifetime));
}

Transaction* TeksTransactionDB::Wrapped(Transaction* txn) {
  if (txn == nullptr) return nullptr;
  if (Transaction* held = wrappers_->Find(txn)) return held;
  // Recovered at open, prepared: it takes over the hold taken at Open.
  return new RegisteredTransaction(std::unique_ptr<Transaction>(txn), registry_.get(),
                                   wrappers_, registry_->Register(),
                                   wrappers_->TakeRecoveredHold(txn));
}

Transaction* TeksTransactionDB::GetTransactionByName(
    const ROCKSDB_NAMESPACE::TransactionName& name) {
  return Wrapped(inner()->GetTransactionByName(name));
}

void TeksTransactionDB::GetAllPreparedTransactions(std::vector<Transaction*>* transactions) {
  inner()->GetAllPreparedTransactions(transactions);
  for (Transaction*& txn : *transactions) txn = Wrapped(txn);
}

std::unordered_multimap<uint32_t, ROCKSDB_NAMESPACE::KeyLockInfo>
TeksTransactionDB::GetLockStatusData() {
  return inner()->GetLockStatusData();
}

std::vector<ROCKSDB_NAMESPACE::DeadlockPath> TeksTransactionDB::GetDeadlockInfoBuffer() {
  return inner()->GetDeadlockInfoBuffer();
}

void TeksTransactionDB::SetDeadlockInfoBufferSize(uint32_t target_size) {
  inner()->SetDeadlockInfoBufferSize(target_size);
}

std::pair<Status, std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot>>
TeksTransactionDB::CreateTimestampedSnapshot(ROCKSDB_NAMESPACE::TxnTimestamp) {
  return {Status::NotSupported("TeksTransactionDB does not support timestamped snapshots",
                               "the layer cannot see when they are released"),
          nullptr};
}

std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot> TeksTransactionDB::GetTimestampedSnapshot(
    ROCKSDB_NAMESPACE::TxnTimestamp ts) const {
  return inner()->GetTimestampedSnapshot(ts);
}

void TeksTransactionDB::ReleaseTimestampedSnapshotsOlderThan(ROCKSDB_NAMESPACE::TxnTimestamp ts) {
  inner()->ReleaseTimestampedSnapshotsOlderThan(ts);
}

Status TeksTransactionDB::GetTimestampedSnapshots(
    ROCKSDB_NAMESPACE::TxnTimestamp ts_lb, ROCKSDB_NAMESPACE::TxnTimestamp ts_ub,
    std::vector<std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot>>& timestamped_snapshots)
    const {
  return inner()->GetTimestampedSnapshots(ts_lb, ts_ub, timestamped_snapshots);
}

}  // namespace teksdb
