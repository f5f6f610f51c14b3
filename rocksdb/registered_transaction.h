// RegisteredTransaction: a RocksDB Transaction that keeps the TeksDB
// layer's ReaderRegistry informed, so TeksTable never drops a version the
// transaction, or a reader racing its commit, still needs.
//
// WritePrepared transactions read through WritePreparedTxnDB's internals,
// not through any StackableDB, so their reads cannot be registered one by
// one. Instead:
//   - `lifetime_` is registered before the transaction began and held until
//     it is destroyed: every read, snapshot and iterator of the transaction
//     reads at or above that floor.
//   - From just before Prepare() until its Commit() or Rollback() is
//     published, `prepare_hold_` keeps a floor below the prepare sequence:
//     the prepared entries are in the memtable but uncommitted, so they must
//     not shadow (and so drop) the versions readers still see. After the
//     commit (or rollback) a reader registered earlier may still read below
//     the commit sequence, and so still need those versions: the hold goes
//     to the registry (HoldUntilReadersReach) until every reader has moved
//     past the sequence published when the commit returned.
//
// Everything else forwards to the wrapped transaction, which this object
// owns. State RocksDB's Transaction keeps in non-virtual members (state,
// id, name, log number) is copied from the wrapped one after every call that
// may change it, so GetState()/GetId() answer as the wrapped one would.
//
// Thread safety: as RocksDB's Transaction: one thread at a time.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <string>
#include <vector>

#include "rocksdb/utilities/transaction.h"
#include "teksdb/reader_registry.h"

namespace teksdb {

class RegisteredTransaction;

// The wrappers alive over one TransactionDB, by wrapped transaction, so
// that lookups by name return the wrapper the application holds; and the
// prepare holds of transactions recovered at open that no wrapper has taken
// yet (held from open, released with this object at close).
// Thread safety: all methods take `mu_`.
class TransactionWrappers {
 public:
  RegisteredTransaction* Find(ROCKSDB_NAMESPACE::Transaction* inner);
  void Add(ROCKSDB_NAMESPACE::Transaction* inner, RegisteredTransaction* wrapper);
  void Remove(ROCKSDB_NAMESPACE::Transaction* inner);

  // Keeps `hold` for the recovered prepared transaction `inner`.
  void AddRecoveredHold(ROCKSDB_NAMESPACE::Transaction* inner,
                        ReaderRegistry::Registration hold);
  // The hold kept for `inner`, now the caller's; inactive if none.
  ReaderRegistry::Registration TakeRecoveredHold(ROCKSDB_NAMESPACE::Transaction* inner);

 private:
  std::mutex mu_;
  std::unordered_map<ROCKSDB_NAMESPACE::Transaction*, RegisteredTransaction*> by_inner_;
  std::unordered_map<ROCKSDB_NAMESPACE::Transaction*, ReaderRegistry::Registration>
      recovered_holds_;
};

class RegisteredTransaction : public ROCKSDB_NAMESPACE::Transaction {
 public:
  // `lifetime` must have been registered before `inner` began. A
  // transaction recovered in the prepared state passes its prepare hold.
  RegisteredTransaction(std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> inner,
                        ReaderRegistry* registry, std::shared_ptr<TransactionWrappers> wrappers,
                        ReaderRegistry::Registration lifetime,
                        ReaderRegistry::Registration prepare_hold = {});
  ~RegisteredTransaction() override;

  // For BeginTransaction's reuse of this object: gives up the wrapped
  // transaction (to be reused by RocksDB) and the registrations; Rebind()
  // must follow with what RocksDB returned. A transaction still prepared is
  // abandoned by the reuse, its entries left uncommitted (as when it is
  // deleted): its hold stays with the registry while the DB is open.
  ROCKSDB_NAMESPACE::Transaction* TakeInner();
  void Rebind(ROCKSDB_NAMESPACE::Transaction* inner, ReaderRegistry::Registration lifetime);

  // Every virtual of ROCKSDB_NAMESPACE::Transaction (7.8.3) is overridden
  // and forwards to inner_ (declarations below, grouped as in transaction.h).

  // Snapshots.
  void SetSnapshot() override;
  void SetSnapshotOnNextOperation(
      std::shared_ptr<ROCKSDB_NAMESPACE::TransactionNotifier> notifier = nullptr) override;
  const ROCKSDB_NAMESPACE::Snapshot* GetSnapshot() const override;
  std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot> GetTimestampedSnapshot() const override;
  void ClearSnapshot() override;

  // Two-phase commit. Prepare() registers prepare_hold_ first; a successful
  // Commit() or Rollback() hands it to the registry (EndPrepareHold).
  // CommitAndTryCreateSnapshot() is not virtual: it calls these.
  ROCKSDB_NAMESPACE::Status Prepare() override;
  ROCKSDB_NAMESPACE::Status Commit() override;
  ROCKSDB_NAMESPACE::Status Rollback() override;

  // Save points.
  void SetSavePoint() override;
  ROCKSDB_NAMESPACE::Status RollbackToSavePoint() override;
  ROCKSDB_NAMESPACE::Status PopSavePoint() override;

  // Reads.
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key, std::string* value) override;
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* pinnable_val) override;
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                const ROCKSDB_NAMESPACE::Slice& key, std::string* value) override;
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* pinnable_val) override;
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGet(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_family,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys, std::vector<std::string>* values) override;
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGet(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys, std::vector<std::string>* values) override;
  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& options,
                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family, const size_t num_keys,
                const ROCKSDB_NAMESPACE::Slice* keys, ROCKSDB_NAMESPACE::PinnableSlice* values,
                ROCKSDB_NAMESPACE::Status* statuses, const bool sorted_input = false) override;
  ROCKSDB_NAMESPACE::Status GetForUpdate(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                         ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::Slice& key, std::string* value,
                                         bool exclusive = true,
                                         const bool do_validate = true) override;
  ROCKSDB_NAMESPACE::Status GetForUpdate(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                         ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::Slice& key,
                                         ROCKSDB_NAMESPACE::PinnableSlice* pinnable_val,
                                         bool exclusive = true,
                                         const bool do_validate = true) override;
  ROCKSDB_NAMESPACE::Status GetRangeLock(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::Endpoint& start_endp,
                                         const ROCKSDB_NAMESPACE::Endpoint& end_endp) override;
  ROCKSDB_NAMESPACE::Status GetForUpdate(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                         const ROCKSDB_NAMESPACE::Slice& key, std::string* value,
                                         bool exclusive = true,
                                         const bool do_validate = true) override;
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGetForUpdate(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_family,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys, std::vector<std::string>* values) override;
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGetForUpdate(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys, std::vector<std::string>* values) override;
  ROCKSDB_NAMESPACE::Iterator* GetIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options) override;
  ROCKSDB_NAMESPACE::Iterator* GetIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family) override;

  // Writes.
  ROCKSDB_NAMESPACE::Status Put(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                const ROCKSDB_NAMESPACE::Slice& value,
                                const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status Put(const ROCKSDB_NAMESPACE::Slice& key,
                                const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status Put(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::SliceParts& key,
                                const ROCKSDB_NAMESPACE::SliceParts& value,
                                const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status Put(const ROCKSDB_NAMESPACE::SliceParts& key,
                                const ROCKSDB_NAMESPACE::SliceParts& value) override;
  ROCKSDB_NAMESPACE::Status Merge(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                  const ROCKSDB_NAMESPACE::Slice& key,
                                  const ROCKSDB_NAMESPACE::Slice& value,
                                  const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status Merge(const ROCKSDB_NAMESPACE::Slice& key,
                                  const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status Delete(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                   const ROCKSDB_NAMESPACE::Slice& key,
                                   const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status Delete(const ROCKSDB_NAMESPACE::Slice& key) override;
  ROCKSDB_NAMESPACE::Status Delete(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                   const ROCKSDB_NAMESPACE::SliceParts& key,
                                   const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status Delete(const ROCKSDB_NAMESPACE::SliceParts& key) override;
  ROCKSDB_NAMESPACE::Status SingleDelete(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::Slice& key,
                                         const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status SingleDelete(const ROCKSDB_NAMESPACE::Slice& key) override;
  ROCKSDB_NAMESPACE::Status SingleDelete(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::SliceParts& key,
                                         const bool assume_tracked = false) override;
  ROCKSDB_NAMESPACE::Status SingleDelete(const ROCKSDB_NAMESPACE::SliceParts& key) override;

  // Untracked writes.
  ROCKSDB_NAMESPACE::Status PutUntracked(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::Slice& key,
                                         const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status PutUntracked(const ROCKSDB_NAMESPACE::Slice& key,
                                         const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status PutUntracked(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                         const ROCKSDB_NAMESPACE::SliceParts& key,
                                         const ROCKSDB_NAMESPACE::SliceParts& value) override;
  ROCKSDB_NAMESPACE::Status PutUntracked(const ROCKSDB_NAMESPACE::SliceParts& key,
                                         const ROCKSDB_NAMESPACE::SliceParts& value) override;
  ROCKSDB_NAMESPACE::Status MergeUntracked(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                           const ROCKSDB_NAMESPACE::Slice& key,
                                           const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status MergeUntracked(const ROCKSDB_NAMESPACE::Slice& key,
                                           const ROCKSDB_NAMESPACE::Slice& value) override;
  ROCKSDB_NAMESPACE::Status DeleteUntracked(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                            const ROCKSDB_NAMESPACE::Slice& key) override;
  ROCKSDB_NAMESPACE::Status DeleteUntracked(const ROCKSDB_NAMESPACE::Slice& key) override;
  ROCKSDB_NAMESPACE::Status DeleteUntracked(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                            const ROCKSDB_NAMESPACE::SliceParts& key) override;
  ROCKSDB_NAMESPACE::Status DeleteUntracked(const ROCKSDB_NAMESPACE::SliceParts& key) override;
  ROCKSDB_NAMESPACE::Status SingleDeleteUntracked(
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::Slice& key) override;
  ROCKSDB_NAMESPACE::Status SingleDeleteUntracked(const ROCKSDB_NAMESPACE::Slice& key) override;
  void PutLogData(const ROCKSDB_NAMESPACE::Slice& blob) override;
  void DisableIndexing() override;
  void EnableIndexing() override;

  // Statistics and the write batch.
  uint64_t GetNumKeys() const override;
  uint64_t GetNumPuts() const override;
  uint64_t GetNumDeletes() const override;
  uint64_t GetNumMerges() const override;
  uint64_t GetElapsedTime() const override;
  ROCKSDB_NAMESPACE::WriteBatchWithIndex* GetWriteBatch() override;
  void SetLockTimeout(int64_t timeout) override;
  ROCKSDB_NAMESPACE::WriteOptions* GetWriteOptions() override;
  void SetWriteOptions(const ROCKSDB_NAMESPACE::WriteOptions& write_options) override;
  void UndoGetForUpdate(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                        const ROCKSDB_NAMESPACE::Slice& key) override;
  void UndoGetForUpdate(const ROCKSDB_NAMESPACE::Slice& key) override;
  ROCKSDB_NAMESPACE::Status RebuildFromWriteBatch(
      ROCKSDB_NAMESPACE::WriteBatch* src_batch) override;
  ROCKSDB_NAMESPACE::WriteBatch* GetCommitTimeWriteBatch() override;

  // Identity and locking; the setters mirror the new state.
  void SetLogNumber(uint64_t log) override;
  uint64_t GetLogNumber() const override;
  ROCKSDB_NAMESPACE::Status SetName(const ROCKSDB_NAMESPACE::TransactionName& name) override;
  ROCKSDB_NAMESPACE::TransactionName GetName() const override;
  ROCKSDB_NAMESPACE::TransactionID GetID() const override;
  bool IsDeadlockDetect() const override;
  std::vector<ROCKSDB_NAMESPACE::TransactionID> GetWaitingTxns(uint32_t* column_family_id,
                                                               std::string* key) const override;

  // Timestamps.
  ROCKSDB_NAMESPACE::Status SetReadTimestampForValidation(
      ROCKSDB_NAMESPACE::TxnTimestamp ts) override;
  ROCKSDB_NAMESPACE::Status SetCommitTimestamp(ROCKSDB_NAMESPACE::TxnTimestamp ts) override;
  ROCKSDB_NAMESPACE::TxnTimestamp GetCommitTimestamp() const override;

 private:
  // Copies the non-virtual state of inner_ into this object.
  void MirrorState();
  // After a successful Commit()/Rollback(): hand the prepare hold over.
  void EndPrepareHold();
  // When the wrapped transaction is given up while prepared: its entries
  // stay uncommitted until recovery, so the hold stays as long as the DB is
  // open.
  void AbandonPrepareHold();

  std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> inner_;
  ReaderRegistry* const registry_;
  const std::shared_ptr<TransactionWrappers> wrappers_;
  ReaderRegistry::Registration lifetime_;
  ReaderRegistry::Registration prepare_hold_;
};

}  // namespace teksdb
