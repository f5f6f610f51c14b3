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
// owns (ForwardingTransaction, forwarding_transaction.h).
//
// Thread safety: as RocksDB's Transaction: one thread at a time.
//
// Design notes: docs/DESIGN.md §5.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>

#include "forwarding_transaction.h"
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

class RegisteredTransaction : public ForwardingTransaction {
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

  // Two-phase commit. Prepare() registers prepare_hold_ first; a successful
  // Commit() or Rollback() hands it to the registry (EndPrepareHold).
  // Everything else forwards (ForwardingTransaction).
  ROCKSDB_NAMESPACE::Status Prepare() override;
  ROCKSDB_NAMESPACE::Status Commit() override;
  ROCKSDB_NAMESPACE::Status Rollback() override;

 private:
  // After a successful Commit()/Rollback(): hand the prepare hold over.
  void EndPrepareHold();
  // When the wrapped transaction is given up while prepared: its entries
  // stay uncommitted until recovery, so the hold stays as long as the DB is
  // open.
  void AbandonPrepareHold();

  ReaderRegistry* const registry_;
  const std::shared_ptr<TransactionWrappers> wrappers_;
  ReaderRegistry::Registration lifetime_;
  ReaderRegistry::Registration prepare_hold_;
};

}  // namespace teksdb
