// RegisteredTransaction implementation: the registrations around Prepare(),
// Commit() and Rollback() (protocol in registered_transaction.h); every
// other call forwards to the wrapped transaction unchanged.
//
// Thread safety: as RocksDB's Transaction: one thread at a time.
#include "registered_transaction.h"

#include <cassert>
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

RegisteredTransaction* TransactionWrappers::Find(Transaction* inner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_inner_.find(inner);
  return it != by_inner_.end() ? it->second : nullptr;
}

void TransactionWrappers::Add(Transaction* inner, RegisteredTransaction* wrapper) {
  std::lock_guard<std::mutex> lock(mu_);
  by_inner_[inner] = wrapper;
}

void TransactionWrappers::Remove(Transaction* inner) {
  std::lock_guard<std::mutex> lock(mu_);
  by_inner_.erase(inner);
}

void TransactionWrappers::AddRecoveredHold(Transaction* inner,
                                           ReaderRegistry::Registration hold) {
  std::lock_guard<std::mutex> lock(mu_);
  recovered_holds_[inner] = std::move(hold);
}

ReaderRegistry::Registration TransactionWrappers::TakeRecoveredHold(Transaction* inner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = recovered_holds_.find(inner);
  if (it == recovered_holds_.end()) return {};
  ReaderRegistry::Registration hold = std::move(it->second);
  recovered_holds_.erase(it);
  return hold;
}

RegisteredTransaction::RegisteredTransaction(std::unique_ptr<Transaction> inner,
                                             ReaderRegistry* registry,
                                             std::shared_ptr<TransactionWrappers> wrappers,
                                             ReaderRegistry::Registration lifetime,
                                             ReaderRegistry::Registration prepare_hold)
    : inner_(std::move(inner)),
      registry_(registry),
      wrappers_(std::move(wrappers)),
      lifetime_(std::move(lifetime)),
      prepare_hold_(std::move(prepare_hold)) {
  wrappers_->Add(inner_.get(), this);
  MirrorState();
}

RegisteredTransaction::~RegisteredTransaction() {
  // A transaction deleted while prepared leaves its entries uncommitted in
  // the memtable for good (until recovery decides): they must never shadow
  // anything, so its hold stays as long as the DB is open.
  const bool still_prepared = inner_ != nullptr && inner_->GetState() == PREPARED;
  // The wrapped transaction may still read until it is gone; only then may
  // the registrations (members) release their floors.
  if (inner_ != nullptr) wrappers_->Remove(inner_.get());
  inner_.reset();
  if (still_prepared) AbandonPrepareHold();
}

Transaction* RegisteredTransaction::TakeInner() {
  wrappers_->Remove(inner_.get());
  if (inner_->GetState() == PREPARED) {
    AbandonPrepareHold();
  } else {
    prepare_hold_.Release();
  }
  lifetime_.Release();
  return inner_.release();
}

void RegisteredTransaction::Rebind(Transaction* inner, ReaderRegistry::Registration lifetime) {
  assert(inner_ == nullptr);  // TakeInner() came first
  inner_.reset(inner);
  lifetime_ = std::move(lifetime);
  wrappers_->Add(inner_.get(), this);
  MirrorState();
}

void RegisteredTransaction::MirrorState() {
  txn_state_.store(inner_->GetState());
  log_number_ = inner_->GetLogNumber();
  name_ = inner_->GetName();
  // Assigned, not SetId(): that asserts the id was never set.
  id_ = inner_->GetId();
}

void RegisteredTransaction::EndPrepareHold() {
  if (!prepare_hold_.active()) return;
  registry_->HoldUntilReadersReach(std::move(prepare_hold_), registry_->PublishedSequence());
}

void RegisteredTransaction::AbandonPrepareHold() {
  if (!prepare_hold_.active()) return;
  registry_->HoldUntilReadersReach(std::move(prepare_hold_), kMaxSequenceNumber);
}

// Snapshots.

void RegisteredTransaction::SetSnapshot() { inner_->SetSnapshot(); }

void RegisteredTransaction::SetSnapshotOnNextOperation(
    std::shared_ptr<TransactionNotifier> notifier) {
  inner_->SetSnapshotOnNextOperation(std::move(notifier));
}

const Snapshot* RegisteredTransaction::GetSnapshot() const { return inner_->GetSnapshot(); }

std::shared_ptr<const Snapshot> RegisteredTransaction::GetTimestampedSnapshot() const {
  return inner_->GetTimestampedSnapshot();
}

void RegisteredTransaction::ClearSnapshot() { inner_->ClearSnapshot(); }

// Two-phase commit.

Status RegisteredTransaction::Prepare() {
  // Registered before the prepared entries can reach the memtable, so the
  // floor is below their sequence.
  ReaderRegistry::Registration hold = registry_->Register();
  const Status s = inner_->Prepare();
  if (s.ok()) prepare_hold_ = std::move(hold);
  MirrorState();
  return s;
}

Status RegisteredTransaction::Commit() {
  const Status s = inner_->Commit();
  if (s.ok()) EndPrepareHold();
  MirrorState();
  return s;
}

Status RegisteredTransaction::Rollback() {
  const Status s = inner_->Rollback();
  if (s.ok()) EndPrepareHold();
  MirrorState();
  return s;
}

// Save points.

void RegisteredTransaction::SetSavePoint() { inner_->SetSavePoint(); }

Status RegisteredTransaction::RollbackToSavePoint() { return inner_->RollbackToSavePoint(); }

Status RegisteredTransaction::PopSavePoint() { return inner_->PopSavePoint(); }

// Reads.

Status RegisteredTransaction::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                                  const Slice& key, std::string* value) {
  return inner_->Get(options, column_family, key, value);
}

Status RegisteredTransaction::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                                  const Slice& key, PinnableSlice* pinnable_val) {
  return inner_->Get(options, column_family, key, pinnable_val);
}

Status RegisteredTransaction::Get(const ReadOptions& options, const Slice& key,
                                  std::string* value) {
  return inner_->Get(options, key, value);
}

Status RegisteredTransaction::Get(const ReadOptions& options, const Slice& key,
                                  PinnableSlice* pinnable_val) {
  return inner_->Get(options, key, pinnable_val);
}

std::vector<Status> RegisteredTransaction::MultiGet(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_family,
    const std::vector<Slice>& keys, std::vector<std::string>* values) {
  return inner_->MultiGet(options, column_family, keys, values);
}

std::vector<Status> RegisteredTransaction::MultiGet(const ReadOptions& options,
                                                    const std::vector<Slice>& keys,
                                                    std::vector<std::string>* values) {
  return inner_->MultiGet(options, keys, values);
}

void RegisteredTransaction::MultiGet(const ReadOptions& options,
                                     ColumnFamilyHandle* column_family, const size_t num_keys,
                                     const Slice* keys, PinnableSlice* values, Status* statuses,
                                     const bool sorted_input) {
  inner_->MultiGet(options, column_family, num_keys, keys, values, statuses, sorted_input);
}

Status RegisteredTransaction::GetForUpdate(const ReadOptions& options,
                                           ColumnFamilyHandle* column_family, const Slice& key,
                                           std::string* value, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, column_family, key, value, exclusive, do_validate);
}

Status RegisteredTransaction::GetForUpdate(const ReadOptions& options,
                                           ColumnFamilyHandle* column_family, const Slice& key,
                                           PinnableSlice* pinnable_val, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, column_family, key, pinnable_val, exclusive, do_validate);
}

Status RegisteredTransaction::GetRangeLock(ColumnFamilyHandle* column_family,
                                           const Endpoint& start_endp, const Endpoint& end_endp) {
  return inner_->GetRangeLock(column_family, start_endp, end_endp);
}

Status RegisteredTransaction::GetForUpdate(const ReadOptions& options, const Slice& key,
                                           std::string* value, bool exclusive,
                                           const bool do_validate) {
  return inner_->GetForUpdate(options, key, value, exclusive, do_validate);
}

std::vector<Status> RegisteredTransaction::MultiGetForUpdate(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_family,
    const std::vector<Slice>& keys, std::vector<std::string>* values) {
  return inner_->MultiGetForUpdate(options, column_family, keys, values);
}

std::vector<Status> RegisteredTransaction::MultiGetForUpdate(const ReadOptions& options,
                                                             const std::vector<Slice>& keys,
                                                             std::vector<std::string>* values) {
  return inner_->MultiGetForUpdate(options, keys, values);
}

Iterator* RegisteredTransaction::GetIterator(const ReadOptions& read_options) {
  return inner_->GetIterator(read_options);
}

Iterator* RegisteredTransaction::GetIterator(const ReadOptions& read_options,
                                             ColumnFamilyHandle* column_family) {
  return inner_->GetIterator(read_options, column_family);
}

// Writes.

Status RegisteredTransaction::Put(ColumnFamilyHandle* column_family, const Slice& key,
                                  const Slice& value, const bool assume_tracked) {
  return inner_->Put(column_family, key, value, assume_tracked);
}

Status RegisteredTransaction::Put(const Slice& key, const Slice& value) {
  return inner_->Put(key, value);
}

Status RegisteredTransaction::Put(ColumnFamilyHandle* column_family, const SliceParts& key,
                                  const SliceParts& value, const bool assume_tracked) {
  return inner_->Put(column_family, key, value, assume_tracked);
}

Status RegisteredTransaction::Put(const SliceParts& key, const SliceParts& value) {
  return inner_->Put(key, value);
}

Status RegisteredTransaction::Merge(ColumnFamilyHandle* column_family, const Slice& key,
                                    const Slice& value, const bool assume_tracked) {
  return inner_->Merge(column_family, key, value, assume_tracked);
}

Status RegisteredTransaction::Merge(const Slice& key, const Slice& value) {
  return inner_->Merge(key, value);
}

Status RegisteredTransaction::Delete(ColumnFamilyHandle* column_family, const Slice& key,
                                     const bool assume_tracked) {
  return inner_->Delete(column_family, key, assume_tracked);
}

Status RegisteredTransaction::Delete(const Slice& key) { return inner_->Delete(key); }

Status RegisteredTransaction::Delete(ColumnFamilyHandle* column_family, const SliceParts& key,
                                     const bool assume_tracked) {
  return inner_->Delete(column_family, key, assume_tracked);
}

Status RegisteredTransaction::Delete(const SliceParts& key) { return inner_->Delete(key); }

Status RegisteredTransaction::SingleDelete(ColumnFamilyHandle* column_family, const Slice& key,
                                           const bool assume_tracked) {
  return inner_->SingleDelete(column_family, key, assume_tracked);
}

Status RegisteredTransaction::SingleDelete(const Slice& key) { return inner_->SingleDelete(key); }

Status RegisteredTransaction::SingleDelete(ColumnFamilyHandle* column_family,
                                           const SliceParts& key, const bool assume_tracked) {
  return inner_->SingleDelete(column_family, key, assume_tracked);
}

Status RegisteredTransaction::SingleDelete(const SliceParts& key) {
  return inner_->SingleDelete(key);
}

// Untracked writes.

Status RegisteredTransaction::PutUntracked(ColumnFamilyHandle* column_family, const Slice& key,
                                           const Slice& value) {
  return inner_->PutUntracked(column_family, key, value);
}

Status RegisteredTransaction::PutUntracked(const Slice& key, const Slice& value) {
  return inner_->PutUntracked(key, value);
}

Status RegisteredTransaction::PutUntracked(ColumnFamilyHandle* column_family,
                                           const SliceParts& key, const SliceParts& value) {
  return inner_->PutUntracked(column_family, key, value);
}

Status RegisteredTransaction::PutUntracked(const SliceParts& key, const SliceParts& value) {
  return inner_->PutUntracked(key, value);
}

Status RegisteredTransaction::MergeUntracked(ColumnFamilyHandle* column_family, const Slice& key,
                                             const Slice& value) {
  return inner_->MergeUntracked(column_family, key, value);
}

Status RegisteredTransaction::MergeUntracked(const Slice& key, const Slice& value) {
  return inner_->MergeUntracked(key, value);
}

Status RegisteredTransaction::DeleteUntracked(ColumnFamilyHandle* column_family,
                                              const Slice& key) {
  return inner_->DeleteUntracked(column_family, key);
}

Status RegisteredTransaction::DeleteUntracked(const Slice& key) {
  return inner_->DeleteUntracked(key);
}

Status RegisteredTransaction::DeleteUntracked(ColumnFamilyHandle* column_family,
                                              const SliceParts& key) {
  return inner_->DeleteUntracked(column_family, key);
}

Status RegisteredTransaction::DeleteUntracked(const SliceParts& key) {
  return inner_->DeleteUntracked(key);
}

Status RegisteredTransaction::SingleDeleteUntracked(ColumnFamilyHandle* column_family,
                                                    const Slice& key) {
  return inner_->SingleDeleteUntracked(column_family, key);
}

Status RegisteredTransaction::SingleDeleteUntracked(const Slice& key) {
  return inner_->SingleDeleteUntracked(key);
}

void RegisteredTransaction::PutLogData(const Slice& blob) { inner_->PutLogData(blob); }

void RegisteredTransaction::DisableIndexing() { inner_->DisableIndexing(); }

void RegisteredTransaction::EnableIndexing() { inner_->EnableIndexing(); }

// Statistics and the write batch.

uint64_t RegisteredTransaction::GetNumKeys() const { return inner_->GetNumKeys(); }

uint64_t RegisteredTransaction::GetNumPuts() const { return inner_->GetNumPuts(); }

uint64_t RegisteredTransaction::GetNumDeletes() const { return inner_->GetNumDeletes(); }

uint64_t RegisteredTransaction::GetNumMerges() const { return inner_->GetNumMerges(); }

uint64_t RegisteredTransaction::GetElapsedTime() const { return inner_->GetElapsedTime(); }

WriteBatchWithIndex* RegisteredTransaction::GetWriteBatch() { return inner_->GetWriteBatch(); }

void RegisteredTransaction::SetLockTimeout(int64_t timeout) { inner_->SetLockTimeout(timeout); }

WriteOptions* RegisteredTransaction::GetWriteOptions() { return inner_->GetWriteOptions(); }

void RegisteredTransaction::SetWriteOptions(const WriteOptions& write_options) {
  inner_->SetWriteOptions(write_options);
}

void RegisteredTransaction::UndoGetForUpdate(ColumnFamilyHandle* column_family,
                                             const Slice& key) {
  inner_->UndoGetForUpdate(column_family, key);
}

void RegisteredTransaction::UndoGetForUpdate(const Slice& key) { inner_->UndoGetForUpdate(key); }

Status RegisteredTransaction::RebuildFromWriteBatch(WriteBatch* src_batch) {
  return inner_->RebuildFromWriteBatch(src_batch);
}

WriteBatch* RegisteredTransaction::GetCommitTimeWriteBatch() {
  return inner_->GetCommitTimeWriteBatch();
}

// Identity and locking.

void RegisteredTransaction::SetLogNumber(uint64_t log) {
  inner_->SetLogNumber(log);
  MirrorState();
}

uint64_t RegisteredTransaction::GetLogNumber() const { return inner_->GetLogNumber(); }

Status RegisteredTransaction::SetName(const TransactionName& name) {
  const Status s = inner_->SetName(name);
  MirrorState();
  return s;
}

TransactionName RegisteredTransaction::GetName() const { return inner_->GetName(); }

TransactionID RegisteredTransaction::GetID() const { return inner_->GetID(); }

bool RegisteredTransaction::IsDeadlockDetect() const { return inner_->IsDeadlockDetect(); }

std::vector<TransactionID> RegisteredTransaction::GetWaitingTxns(uint32_t* column_family_id,
                                                                 std::string* key) const {
  return inner_->GetWaitingTxns(column_family_id, key);
}

// Timestamps.

Status RegisteredTransaction::SetReadTimestampForValidation(TxnTimestamp ts) {
  return inner_->SetReadTimestampForValidation(ts);
}

// A commit timestamp lets CommitAndTryCreateSnapshot create a timestamped
// snapshot inside RocksDB that outlives every call the layer sees.
Status RegisteredTransaction::SetCommitTimestamp(TxnTimestamp) {
  return Status::NotSupported("TeksTransactionDB does not support commit timestamps",
                              "their snapshots would not be registered readers");
}

TxnTimestamp RegisteredTransaction::GetCommitTimestamp() const {
  return inner_->GetCommitTimestamp();
}

}  // namespace teksdb
