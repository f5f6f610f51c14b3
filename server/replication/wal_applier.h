// WalApplier: a replica's side of wal_reader.h. Applies the primary's
// batches in order to the replica's DB, each only where it follows the
// replica's latest sequence exactly, so that the replica's sequence is
// the primary's after every batch (the replication offset). Nothing else
// may write to a replica's DB: a write of its own would shift every
// sequence after it.
//
// Thread safety: one applier per DB, on one thread.
#pragma once

#include <cstdint>

#include "rocksdb/db.h"
#include "wal_reader.h"

namespace teksdb::server {

class WalApplier {
 public:
  // `sync`: each batch is on disk (the WAL synced) before Apply returns.
  WalApplier(ROCKSDB_NAMESPACE::DB* db, bool sync) : db_(db), sync_(sync) {}

  // Writes `batch`. Incomplete, writing nothing, when it does not start at
  // the replica's latest sequence plus one (a batch lost, repeated or from
  // another history); Corruption when its bytes are not a write batch.
  ROCKSDB_NAMESPACE::Status Apply(const ShippedBatch& batch);

  // The last sequence applied (the DB's latest): what the replica
  // acknowledges.
  uint64_t applied() const { return db_->GetLatestSequenceNumber(); }

 private:
  ROCKSDB_NAMESPACE::DB* const db_;
  const bool sync_;
};

}  // namespace teksdb::server
