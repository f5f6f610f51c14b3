// WalReader: a primary's write batches from a given sequence on, as
// RocksDB's WAL holds them (DB::GetUpdatesSince), for shipping to a
// replica. The replication offset is RocksDB's sequence number: the
// replica applies the batches in order (wal_applier.h), so its sequence
// stays the primary's.
//
// Every batch is checked to start where the last one ended. RocksDB starts
// an iterator at a later batch, without an error, when the WAL no longer
// holds the sequence asked for (the files were purged): that gap, or a
// batch that does not start at the replica's position, is an error
// (Status::Incomplete), which means a full sync, never silent loss.
//
// It knows nothing of the records' format: a batch is shipped as RocksDB's
// own bytes (WriteBatch::Data()).
//
// Thread safety: one thread per reader; the DB is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/transaction_log.h"

namespace teksdb::server {

// One write batch as the primary wrote it: its first sequence number and
// RocksDB's bytes of it.
struct ShippedBatch {
  uint64_t sequence = 0;
  std::string data;
};

class WalReader {
 public:
  // `next`: the first sequence the replica lacks (its latest plus one).
  WalReader(ROCKSDB_NAMESPACE::DB* db, uint64_t next) : db_(db), next_(next) {}

  // Appends the batches the WAL holds from next() on, up to about
  // `max_bytes` of them (at least one when there is one), and advances
  // next(). OK with nothing appended: caught up. Incomplete: the WAL no
  // longer holds next() (or it falls inside a batch): a full sync is
  // needed. Another error: RocksDB's.
  ROCKSDB_NAMESPACE::Status Read(size_t max_bytes, std::vector<ShippedBatch>* batches);

  uint64_t next() const { return next_; }

 private:
  ROCKSDB_NAMESPACE::DB* const db_;
  uint64_t next_;
  // Kept across calls: at the end of what is written (at_end_) it reads on
  // with Next() once the DB's latest sequence has passed next_; made again
  // (at next_) when RocksDB says the tail moved to a new WAL file.
  std::unique_ptr<ROCKSDB_NAMESPACE::TransactionLogIterator> it_;
  bool at_end_ = false;
};

}  // namespace teksdb::server
