// RegisteredTransaction implementation: the registrations around Prepare(),
// Commit() and Rollback() (protocol in registered_transaction.h); every
// other call forwards (forwarding_transaction.cc).
//
// Thread safety: as RocksDB's Transaction: one thread at a time.
#include "registered_transaction.h"

#include <cassert>
#include <utility>

namespace teksdb {

using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::Transaction;

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
    : ForwardingTransaction(std::move(inner)),
      registry_(registry),
      wrappers_(std::move(wrappers)),
      lifetime_(std::move(lifetime)),
      prepare_hold_(std::move(prepare_hold)) {
  wrappers_->Add(inner_.get(), this);
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

void RegisteredTransaction::EndPrepareHold() {
  if (!prepare_hold_.active()) return;
  registry_->HoldUntilReadersReach(std::move(prepare_hold_), registry_->PublishedSequence());
}

void RegisteredTransaction::AbandonPrepareHold() {
  if (!prepare_hold_.active()) return;
  registry_->HoldUntilReadersReach(std::move(prepare_hold_), kMaxSequenceNumber);
}

// Two-phase commit.

Status RegisteredTransaction::Prepare() {
  // Registered before the prepared entries can reach the memtable, so the
  // floor is below their sequence.
  ReaderRegistry::Registration hold = registry_->Register();
  const Status s = ForwardingTransaction::Prepare();
  if (s.ok()) prepare_hold_ = std::move(hold);
  return s;
}

Status RegisteredTransaction::Commit() {
  const Status s = ForwardingTransaction::Commit();
  if (s.ok()) EndPrepareHold();
  return s;
}

Status RegisteredTransaction::Rollback() {
  const Status s = ForwardingTransaction::Rollback();
  if (s.ok()) EndPrepareHold();
  return s;
}

}  // namespace teksdb
