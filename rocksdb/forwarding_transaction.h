// ForwardingTransaction: a RocksDB Transaction that forwards every call to
// a wrapped transaction it owns, and mirrors the state RocksDB's Transaction
// keeps in non-virtual members (state, id, name, log number) after every call
// that may change it, so GetState()/GetId() answer as the wrapped one would.
// The mechanism under RegisteredTransaction, which adds the registration
// policy; nothing here knows about readers.
//
// Every virtual of ROCKSDB_NAMESPACE::Transaction is overridden here, the
// protected ones included, in each RocksDB release from 7.8.3 to 11.x (the
// ones later releases added under include/teksdb/rocksdb_version.h's
// TEKSDB_ROCKSDB_TXN_* macros): tests/layer/transaction_forwarding_test.cc fails
// when RocksDB adds one this class does not override.
//
// Thread safety: as RocksDB's Transaction: one thread at a time.
//
// Design notes: docs/DESIGN.md §7.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/transaction.h"
#include "teksdb/rocksdb_version.h"

namespace teksdb {

class ForwardingTransaction : public ROCKSDB_NAMESPACE::Transaction {
 public:
  // `inner` may be null only while a subclass rebinds it (see
  // RegisteredTransaction::TakeInner); no call may come meanwhile.
  explicit ForwardingTransaction(std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> inner);
  ~ForwardingTransaction() override;

  // Snapshots.
  void SetSnapshot() override;
  void SetSnapshotOnNextOperation(
      std::shared_ptr<ROCKSDB_NAMESPACE::TransactionNotifier> notifier = nullptr) override;
  const ROCKSDB_NAMESPACE::Snapshot* GetSnapshot() const override;
  std::shared_ptr<const ROCKSDB_NAMESPACE::Snapshot> GetTimestampedSnapshot() const override;
  void ClearSnapshot() override;

  // Two-phase commit. CommitAndTryCreateSnapshot() is not virtual: it calls
  // these.
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
#if TEKSDB_ROCKSDB_TXN_HAS_PINNABLE_GET_FOR_UPDATE_DEFAULT_CF
  ROCKSDB_NAMESPACE::Status GetForUpdate(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                         const ROCKSDB_NAMESPACE::Slice& key,
                                         ROCKSDB_NAMESPACE::PinnableSlice* pinnable_val,
                                         bool exclusive = true,
                                         const bool do_validate = true) override;
#endif
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
#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
  ROCKSDB_NAMESPACE::Status GetEntity(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                      const ROCKSDB_NAMESPACE::Slice& key,
                                      ROCKSDB_NAMESPACE::PinnableWideColumns* columns) override;
  void MultiGetEntity(const ROCKSDB_NAMESPACE::ReadOptions& options,
                      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family, size_t num_keys,
                      const ROCKSDB_NAMESPACE::Slice* keys,
                      ROCKSDB_NAMESPACE::PinnableWideColumns* results,
                      ROCKSDB_NAMESPACE::Status* statuses, bool sorted_input = false) override;
#endif
#if TEKSDB_ROCKSDB_TXN_HAS_GET_ENTITY_FOR_UPDATE
  ROCKSDB_NAMESPACE::Status GetEntityForUpdate(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family, const ROCKSDB_NAMESPACE::Slice& key,
      ROCKSDB_NAMESPACE::PinnableWideColumns* columns, bool exclusive = true,
      bool do_validate = true) override;
#endif
#if TEKSDB_ROCKSDB_TXN_HAS_ATTRIBUTE_GROUP_ITERATOR
  std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator> GetAttributeGroupIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families) override;
#endif
#if TEKSDB_ROCKSDB_TXN_HAS_COALESCING_ITERATOR
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> GetCoalescingIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& read_options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families) override;
#endif

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
#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
  ROCKSDB_NAMESPACE::Status PutEntity(ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                      const ROCKSDB_NAMESPACE::Slice& key,
                                      const ROCKSDB_NAMESPACE::WideColumns& columns,
                                      bool assume_tracked = false) override;
#endif
#if TEKSDB_ROCKSDB_TXN_HAS_COLLAPSE_KEY
  ROCKSDB_NAMESPACE::Status CollapseKey(
      const ROCKSDB_NAMESPACE::ReadOptions& options, const ROCKSDB_NAMESPACE::Slice& key,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family = nullptr) override;
#endif

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
#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
  ROCKSDB_NAMESPACE::Status PutEntityUntracked(
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family, const ROCKSDB_NAMESPACE::Slice& key,
      const ROCKSDB_NAMESPACE::WideColumns& columns) override;
#endif
  void PutLogData(const ROCKSDB_NAMESPACE::Slice& blob) override;
  void DisableIndexing() override;
  void EnableIndexing() override;

  // Statistics and the write batch.
  uint64_t GetNumKeys() const override;
  uint64_t GetNumPuts() const override;
  uint64_t GetNumDeletes() const override;
  uint64_t GetNumMerges() const override;
#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
  uint64_t GetNumPutEntities() const override;
#endif
  uint64_t GetElapsedTime() const override;
  ROCKSDB_NAMESPACE::WriteBatchWithIndex* GetWriteBatch() override;
  void SetLockTimeout(int64_t timeout) override;
#if TEKSDB_ROCKSDB_TXN_HAS_DEADLOCK_TIMEOUT
  void SetDeadlockTimeout(int64_t timeout_ms) override;
#endif
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
#if TEKSDB_ROCKSDB_TXN_HAS_COMMIT_BYPASS_GETTER
  bool GetCommitBypassMemTable() const override;
#endif

 protected:
  // Copies the non-virtual state of inner_ into this object.
  void MirrorState();

  // Forwarded too, through the base class's access (RocksDB's transaction
  // DBs call them on the transactions they create).
  void SetId(uint64_t id) override;
  uint64_t GetLastLogNumber() const override;
#if TEKSDB_ROCKSDB_TXN_HAS_GET_IMPL
  ROCKSDB_NAMESPACE::Status GetImpl(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                    ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                    const ROCKSDB_NAMESPACE::Slice& key,
                                    std::string* value) override;
  ROCKSDB_NAMESPACE::Status GetImpl(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                    ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                    const ROCKSDB_NAMESPACE::Slice& key,
                                    ROCKSDB_NAMESPACE::PinnableSlice* pinnable_val) override;
#endif

  std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> inner_;
};

}  // namespace teksdb
