// ForwardingTransaction implementation: every call forwards to inner_
// unchanged; calls that may change the wrapped transaction's non-virtual
// state mirror it afterwards.
//
// Thread safety: as RocksDB's Transaction: one thread at a time.
#include "forwarding_transaction.h"

#include <utility>

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::Endpoint;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::SliceParts;
using ROCKSDB_NAMESPACE::Snapshot;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::Transaction;
using ROCKSDB_NAMESPACE::TransactionID;
using ROCKSDB_NAMESPACE::TransactionName;
using ROCKSDB_NAMESPACE::TransactionNotifier;
using ROCKSDB_NAMESPACE::TxnTimestamp;
using ROCKSDB_NAMESPACE::WriteBatch;
using ROCKSDB_NAMESPACE::WriteBatchWithIndex;
using ROCKSDB_NAMESPACE::WriteOptions;
#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
using ROCKSDB_NAMESPACE::PinnableWideColumns;
using ROCKSDB_NAMESPACE::WideColumns;
#endif
#if TEKSDB_ROCKSDB_TXN_HAS_ATTRIBUTE_GROUP_ITERATOR
using ROCKSDB_NAMESPACE::AttributeGroupIterator;
#endif

namespace {
// Reaches the protected virtuals of another Transaction object through a
// member pointer named from a subclass (which the access rules allow); the
// call still dispatches virtually.
struct ProtectedAccess : ROCKSDB_NAMESPACE::Transaction {
  static void CallSetId(Transaction* txn, uint64_t id) { (txn->*&ProtectedAccess::SetId)(id); }
  static uint64_t CallGetLastLogNumber(const Transaction* txn) {
    return (txn->*&ProtectedAccess::GetLastLogNumber)();
  }
#if TEKSDB_ROCKSDB_TXN_HAS_GET_IMPL
  template <typename Value>
  static Status CallGetImpl(Transaction* txn, const ReadOptions& options,
                            ColumnFamilyHandle* column_family, const Slice& key, Value* value) {
    Status (Transaction::*get_impl)(const ReadOptions&, ColumnFamilyHandle*, const Slice&,
                                    Value*) = &ProtectedAccess::GetImpl;
    return (txn->*get_impl)(options, column_family, key, value);
  }
#endif
};
}  // namespace

ForwardingTransaction::ForwardingTransaction(std::unique_ptr<Transaction> inner)
    : inner_(std::move(inner)) {
  if (inner_ != nullptr) MirrorState();
}

ForwardingTransaction::~ForwardingTransaction() = default;

void ForwardingTransaction::MirrorState() {
  txn_state_.store(inner_->GetState());
  log_number_ = inner_->GetLogNumber();
  name_ = inner_->GetName();
  // Assigned, not SetId(): that asserts the id was never set.
  id_ = inner_->GetId();
}

// Snapshots.

void ForwardingTransaction::SetSnapshot() { inner_->SetSnapshot(); }

void ForwardingTransaction::SetSnapshotOnNextOperation(
    std::shared_ptr<TransactionNotifier> notifier) {
  inner_->SetSnapshotOnNextOperation(std::move(notifier));
}

const Snapshot* ForwardingTransaction::GetSnapshot() const { return inner_->GetSnapshot(); }

std::shared_ptr<const Snapshot> ForwardingTransaction::GetTimestampedSnapshot() const {
  return inner_->GetTimestampedSnapshot();
}

void ForwardingTransaction::ClearSnapshot() { inner_->ClearSnapshot(); }

// Two-phase commit.

Status ForwardingTransaction::Prepare() {
  const Status s = inner_->Prepare();
  MirrorState();
  return s;
}

Status ForwardingTransaction::Commit() {
  const Status s = inner_->Commit();
  MirrorState();
  return s;
}

Status ForwardingTransaction::Rollback() {
  const Status s = inner_->Rollback();
  MirrorState();
  return s;
}

// Save points.

void ForwardingTransaction::SetSavePoint() { inner_->SetSavePoint(); }

Status ForwardingTransaction::RollbackToSavePoint() { return inner_->RollbackToSavePoint(); }

Status ForwardingTransaction::PopSavePoint() { return inner_->PopSavePoint(); }

// Reads.

Status ForwardingTransaction::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                                  const Slice& key, std::string* value) {
  return inner_->Get(options, column_family, key, value);
}

Status ForwardingTransaction::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                                  const Slice& key, PinnableSlice* pinnable_val) {
  return inner_->Get(options, column_family, key, pinnable_val);
}

Status ForwardingTransaction::Get(const ReadOptions& options, const Slice& key,
                                  std::string* value) {
  return inner_->Get(options, key, value);
}

Status ForwardingTransaction::Get(const ReadOptions& options, const Slice& key,
                                  PinnableSlice* pinnable_val) {
  return inner_->Get(options, key, pinnable_val);
}

std::vector<Status> ForwardingTransaction::MultiGet(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_family,
    const std::vector<Slice>& keys, std::vector<std::string>* values) {
  return inner_->MultiGet(options, column_family, keys, values);
}

std::vector<Status> ForwardingTransaction::MultiGet(const ReadOptions& options,
                                                    const std::vector<Slice>& keys,
                                                    std::vector<std::string>* values) {
  return inner_->MultiGet(options, keys, values);
}

void ForwardingTransaction::MultiGet(const ReadOptions& options,
                                     ColumnFamilyHandle* column_family, const size_t num_keys,
                                     const Slice* keys, PinnableSlice* values, Status* statuses,
                                     const bool sorted_input) {
  inner_->MultiGet(options, column_family, num_keys, keys, values, statuses, sorted_input);
}

Status ForwardingTransaction::GetForUpdate(const ReadOptions& options,
                                           ColumnFamilyHandle* column_family, const Slice& key,
                                           std::string* value, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, column_family, key, value, exclusive, do_validate);
}

Status ForwardingTransaction::GetForUpdate(const ReadOptions& options,
                                           ColumnFamilyHandle* column_family, const Slice& key,
                                           PinnableSlice* pinnable_val, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, column_family, key, pinnable_val, exclusive, do_validate);
}

Status ForwardingTransaction::GetRangeLock(ColumnFamilyHandle* column_family,
                                           const Endpoint& start_endp, const Endpoint& end_endp) {
  return inner_->GetRangeLock(column_family, start_endp, end_endp);
}

Status ForwardingTransaction::GetForUpdate(const ReadOptions& options, const Slice& key,
                                           std::string* value, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, key, value, exclusive, do_validate);
}

std::vector<Status> ForwardingTransaction::MultiGetForUpdate(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_family,
    const std::vector<Slice>& keys, std::vector<std::string>* values) {
  return inner_->MultiGetForUpdate(options, column_family, keys, values);
}

std::vector<Status> ForwardingTransaction::MultiGetForUpdate(const ReadOptions& options,
                                                             const std::vector<Slice>& keys,
                                                             std::vector<std::string>* values) {
  return inner_->MultiGetForUpdate(options, keys, values);
}

Iterator* ForwardingTransaction::GetIterator(const ReadOptions& read_options) {
  return inner_->GetIterator(read_options);
}

Iterator* ForwardingTransaction::GetIterator(const ReadOptions& read_options,
                                             ColumnFamilyHandle* column_family) {
  return inner_->GetIterator(read_options, column_family);
}

#if TEKSDB_ROCKSDB_TXN_HAS_PINNABLE_GET_FOR_UPDATE_DEFAULT_CF
Status ForwardingTransaction::GetForUpdate(const ReadOptions& options, const Slice& key,
                                           PinnableSlice* pinnable_val, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, key, pinnable_val, exclusive, do_validate);
}
#endif

#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
Status ForwardingTransaction::GetEntity(const ReadOptions& options,
                                        ColumnFamilyHandle* column_family, const Slice& key,
                                        PinnableWideColumns* columns) {
  return inner_->GetEntity(options, column_family, key, columns);
}

void ForwardingTransaction::MultiGetEntity(const ReadOptions& options,
                                           ColumnFamilyHandle* column_family, size_t num_keys,
                                           const Slice* keys, PinnableWideColumns* results,
                                           Status* statuses, bool sorted_input) {
  inner_->MultiGetEntity(options, column_family, num_keys, keys, results, statuses,
                         sorted_input);
}
#endif

#if TEKSDB_ROCKSDB_TXN_HAS_GET_ENTITY_FOR_UPDATE
Status ForwardingTransaction::GetEntityForUpdate(const ReadOptions& read_options,
                                                 ColumnFamilyHandle* column_family,
                                                 const Slice& key, PinnableWideColumns* columns,
                                                 bool exclusive, bool do_validate) {
  return inner_->GetEntityForUpdate(read_options, column_family, key, columns, exclusive,
                                    do_validate);
}
#endif

#if TEKSDB_ROCKSDB_TXN_HAS_ATTRIBUTE_GROUP_ITERATOR
std::unique_ptr<AttributeGroupIterator> ForwardingTransaction::GetAttributeGroupIterator(
    const ReadOptions& read_options, const std::vector<ColumnFamilyHandle*>& column_families) {
  return inner_->GetAttributeGroupIterator(read_options, column_families);
}
#endif

#if TEKSDB_ROCKSDB_TXN_HAS_COALESCING_ITERATOR
std::unique_ptr<Iterator> ForwardingTransaction::GetCoalescingIterator(
    const ReadOptions& read_options, const std::vector<ColumnFamilyHandle*>& column_families) {
  return inner_->GetCoalescingIterator(read_options, column_families);
}
#endif

// Writes.

Status ForwardingTransaction::Put(ColumnFamilyHandle* column_family, const Slice& key,
                                  const Slice& value, const bool assume_tracked) {
  return inner_->Put(column_family, key, value, assume_tracked);
}

Status ForwardingTransaction::Put(const Slice& key, const Slice& value) {
  return inner_->Put(key, value);
}

Status ForwardingTransaction::Put(ColumnFamilyHandle* column_family, const SliceParts& key,
                                  const SliceParts& value, const bool assume_tracked) {
  return inner_->Put(column_family, key, value, assume_tracked);
}

Status ForwardingTransaction::Put(const SliceParts& key, const SliceParts& value) {
  return inner_->Put(key, value);
}

Status ForwardingTransaction::Merge(ColumnFamilyHandle* column_family, const Slice& key,
                                    const Slice& value, const bool assume_tracked) {
  return inner_->Merge(column_family, key, value, assume_tracked);
}

Status ForwardingTransaction::Merge(const Slice& key, const Slice& value) {
  return inner_->Merge(key, value);
}

Status ForwardingTransaction::Delete(ColumnFamilyHandle* column_family, const Slice& key,
                                     const bool assume_tracked) {
  return inner_->Delete(column_family, key, assume_tracked);
}

Status ForwardingTransaction::Delete(const Slice& key) { return inner_->Delete(key); }

Status ForwardingTransaction::Delete(ColumnFamilyHandle* column_family, const SliceParts& key,
                                     const bool assume_tracked) {
  return inner_->Delete(column_family, key, assume_tracked);
}

Status ForwardingTransaction::Delete(const SliceParts& key) { return inner_->Delete(key); }

Status ForwardingTransaction::SingleDelete(ColumnFamilyHandle* column_family, const Slice& key,
                                           const bool assume_tracked) {
  return inner_->SingleDelete(column_family, key, assume_tracked);
}

Status ForwardingTransaction::SingleDelete(const Slice& key) { return inner_->SingleDelete(key); }

Status ForwardingTransaction::SingleDelete(ColumnFamilyHandle* column_family,
                                           const SliceParts& key, const bool assume_tracked) {
  return inner_->SingleDelete(column_family, key, assume_tracked);
}

#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
Status ForwardingTransaction::PutEntity(ColumnFamilyHandle* column_family, const Slice& key,
                                        const WideColumns& columns, bool assume_tracked) {
  return inner_->PutEntity(column_family, key, columns, assume_tracked);
}
#endif

#if TEKSDB_ROCKSDB_TXN_HAS_COLLAPSE_KEY
Status ForwardingTransaction::CollapseKey(const ReadOptions& options, const Slice& key,
                                          ColumnFamilyHandle* column_family) {
  return inner_->CollapseKey(options, key, column_family);
}
#endif

Status ForwardingTransaction::SingleDelete(const SliceParts& key) {
  return inner_->SingleDelete(key);
}

// Untracked writes.

Status ForwardingTransaction::PutUntracked(ColumnFamilyHandle* column_family, const Slice& key,
                                           const Slice& value) {
  return inner_->PutUntracked(column_family, key, value);
}

Status ForwardingTransaction::PutUntracked(const Slice& key, const Slice& value) {
  return inner_->PutUntracked(key, value);
}

Status ForwardingTransaction::PutUntracked(ColumnFamilyHandle* column_family,
                                           const SliceParts& key, const SliceParts& value) {
  return inner_->PutUntracked(column_family, key, value);
}

Status ForwardingTransaction::PutUntracked(const SliceParts& key, const SliceParts& value) {
  return inner_->PutUntracked(key, value);
}

Status ForwardingTransaction::MergeUntracked(ColumnFamilyHandle* column_family, const Slice& key,
                                             const Slice& value) {
  return inner_->MergeUntracked(column_family, key, value);
}

Status ForwardingTransaction::MergeUntracked(const Slice& key, const Slice& value) {
  return inner_->MergeUntracked(key, value);
}

Status ForwardingTransaction::DeleteUntracked(ColumnFamilyHandle* column_family,
                                              const Slice& key) {
  return inner_->DeleteUntracked(column_family, key);
}

Status ForwardingTransaction::DeleteUntracked(const Slice& key) {
  return inner_->DeleteUntracked(key);
}

Status ForwardingTransaction::DeleteUntracked(ColumnFamilyHandle* column_family,
                                              const SliceParts& key) {
  return inner_->DeleteUntracked(column_family, key);
}

Status ForwardingTransaction::DeleteUntracked(const SliceParts& key) {
  return inner_->DeleteUntracked(key);
}

Status ForwardingTransaction::SingleDeleteUntracked(ColumnFamilyHandle* column_family,
                                                    const Slice& key) {
  return inner_->SingleDeleteUntracked(column_family, key);
}

Status ForwardingTransaction::SingleDeleteUntracked(const Slice& key) {
  return inner_->SingleDeleteUntracked(key);
}

#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
Status ForwardingTransaction::PutEntityUntracked(ColumnFamilyHandle* column_family,
                                                 const Slice& key, const WideColumns& columns) {
  return inner_->PutEntityUntracked(column_family, key, columns);
}
#endif

void ForwardingTransaction::PutLogData(const Slice& blob) { inner_->PutLogData(blob); }

void ForwardingTransaction::DisableIndexing() { inner_->DisableIndexing(); }

void ForwardingTransaction::EnableIndexing() { inner_->EnableIndexing(); }

// Statistics and the write batch.

uint64_t ForwardingTransaction::GetNumKeys() const { return inner_->GetNumKeys(); }

uint64_t ForwardingTransaction::GetNumPuts() const { return inner_->GetNumPuts(); }

uint64_t ForwardingTransaction::GetNumDeletes() const { return inner_->GetNumDeletes(); }

uint64_t ForwardingTransaction::GetNumMerges() const { return inner_->GetNumMerges(); }

#if TEKSDB_ROCKSDB_TXN_HAS_ENTITIES
uint64_t ForwardingTransaction::GetNumPutEntities() const { return inner_->GetNumPutEntities(); }
#endif

uint64_t ForwardingTransaction::GetElapsedTime() const { return inner_->GetElapsedTime(); }

WriteBatchWithIndex* ForwardingTransaction::GetWriteBatch() { return inner_->GetWriteBatch(); }

void ForwardingTransaction::SetLockTimeout(int64_t timeout) { inner_->SetLockTimeout(timeout); }

#if TEKSDB_ROCKSDB_TXN_HAS_DEADLOCK_TIMEOUT
void ForwardingTransaction::SetDeadlockTimeout(int64_t timeout_ms) {
  inner_->SetDeadlockTimeout(timeout_ms);
}
#endif

WriteOptions* ForwardingTransaction::GetWriteOptions() { return inner_->GetWriteOptions(); }

void ForwardingTransaction::SetWriteOptions(const WriteOptions& write_options) {
  inner_->SetWriteOptions(write_options);
}

void ForwardingTransaction::UndoGetForUpdate(ColumnFamilyHandle* column_family,
                                             const Slice& key) {
  inner_->UndoGetForUpdate(column_family, key);
}

void ForwardingTransaction::UndoGetForUpdate(const Slice& key) { inner_->UndoGetForUpdate(key); }

Status ForwardingTransaction::RebuildFromWriteBatch(WriteBatch* src_batch) {
  return inner_->RebuildFromWriteBatch(src_batch);
}

WriteBatch* ForwardingTransaction::GetCommitTimeWriteBatch() {
  return inner_->GetCommitTimeWriteBatch();
}

// Identity and locking.

void ForwardingTransaction::SetLogNumber(uint64_t log) {
  inner_->SetLogNumber(log);
  MirrorState();
}

uint64_t ForwardingTransaction::GetLogNumber() const { return inner_->GetLogNumber(); }

Status ForwardingTransaction::SetName(const TransactionName& name) {
  const Status s = inner_->SetName(name);
  MirrorState();
  return s;
}

TransactionName ForwardingTransaction::GetName() const { return inner_->GetName(); }

TransactionID ForwardingTransaction::GetID() const { return inner_->GetID(); }

bool ForwardingTransaction::IsDeadlockDetect() const { return inner_->IsDeadlockDetect(); }

std::vector<TransactionID> ForwardingTransaction::GetWaitingTxns(uint32_t* column_family_id,
                                                                 std::string* key) const {
  return inner_->GetWaitingTxns(column_family_id, key);
}

// Timestamps.

Status ForwardingTransaction::SetReadTimestampForValidation(TxnTimestamp ts) {
  return inner_->SetReadTimestampForValidation(ts);
}

// A commit timestamp lets CommitAndTryCreateSnapshot create a timestamped
// snapshot inside RocksDB that outlives every call the layer sees.
Status ForwardingTransaction::SetCommitTimestamp(TxnTimestamp) {
  return Status::NotSupported("TeksTransactionDB does not support commit timestamps",
                              "their snapshots would not be registered readers");
}

TxnTimestamp ForwardingTransaction::GetCommitTimestamp() const {
  return inner_->GetCommitTimestamp();
}

#if TEKSDB_ROCKSDB_TXN_HAS_COMMIT_BYPASS_GETTER
bool ForwardingTransaction::GetCommitBypassMemTable() const {
  return inner_->GetCommitBypassMemTable();
}
#endif

void ForwardingTransaction::SetId(uint64_t id) {
  ProtectedAccess::CallSetId(inner_.get(), id);
  MirrorState();
}

uint64_t ForwardingTransaction::GetLastLogNumber() const {
  return ProtectedAccess::CallGetLastLogNumber(inner_.get());
}

#if TEKSDB_ROCKSDB_TXN_HAS_GET_IMPL
Status ForwardingTransaction::GetImpl(const ReadOptions& options,
                                      ColumnFamilyHandle* column_family, const Slice& key,
                                      std::string* value) {
  return ProtectedAccess::CallGetImpl(inner_.get(), options, column_family, key, value);
}

Status ForwardingTransaction::GetImpl(const ReadOptions& options,
                                      ColumnFamilyHandle* column_family, const Slice& key,
                                      PinnableSlice* pinnable_val) {
  return ProtectedAccess::CallGetImpl(inner_.get(), options, column_family, key, pinnable_val);
}
#endif

}  // namespace teksdb
