// StagedWrites: the writes a WriteGroup has staged and not yet flushed, and
// the reads that must see them (write_group.h).
//
// What Flush writes is one plain WriteBatch. Point reads (Get, MultiGet)
// find a staged key's latest write in a hash map from the key to where its
// value lies in that batch, and ask the database only for the keys no
// staged write touched. Iterators need the staged writes in key order: the
// first one asked for indexes them in a WriteBatchWithIndex, which later
// stages keep in step until Clear. So a pipeline that never iterates never
// sorts anything: RocksDB's index decodes each key it compares from its
// batch, and indexing every staged write cost about 15% of the server's
// CPU for pipelined HSETs (docs/BENCHMARKS.md §9.0).
//
// A staged key's value is read back from the batch: a Put record ends with
// its value (the WAL's record format, fixed across RocksDB releases since
// WAL files must stay readable); Add checks it. A Merge record holds an
// operand (compact_puts_merge.h), not the value: the writer hands that in
// beside it, kept in `merged_`.
//
// Thread safety: none; one WriteGroup's, which is one connection's.
// Invariants: `latest_` names, for every key staged since Clear, its last
// write in `batch_` (a Merge's value in `merged_`); while `indexed_`, `index_` holds every staged write.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

#include "rocksdb/db.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/write_batch.h"

namespace teksdb::server {

class StagedWrites {
 public:
  StagedWrites();

  bool empty() const { return latest_.empty(); }
  // What Flush writes.
  ROCKSDB_NAMESPACE::WriteBatch* batch() { return &batch_; }

  // Stages `writes`: Puts, Deletes and Merges of the default column family,
  // all that Keyspace batches hold; each Merge's value after it, as later
  // reads see it, is the next of `merged_values`. Any other record, or a
  // Merge without its value, is refused with NotSupported (the records
  // before it stay staged).
  ROCKSDB_NAMESPACE::Status Add(const ROCKSDB_NAMESPACE::WriteBatch& writes,
                                std::vector<std::string> merged_values = {});

  // The database's value of `key` with the staged writes applied over it.
  ROCKSDB_NAMESPACE::Status Get(ROCKSDB_NAMESPACE::DB* db,
                                const ROCKSDB_NAMESPACE::ReadOptions& read,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* value) const;
  // The same for `n` keys at once, one MultiGet for those not staged.
  void MultiGet(ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ReadOptions& read, size_t n,
                const ROCKSDB_NAMESPACE::Slice* keys, ROCKSDB_NAMESPACE::PinnableSlice* values,
                ROCKSDB_NAMESPACE::Status* statuses) const;
  // A database iterator with the staged writes applied over it. read's
  // iterate_upper_bound keeps the database's records in; staged records
  // past it may still show (RocksDB 7.8.3's indexed batch does not bound
  // its own entries), so a caller stops at its own end too.
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> NewIterator(
      ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ReadOptions& read);

  // Forgets every staged write (after Flush).
  void Clear();

 private:
  class Stager;
  // Where a staged key's last write lies in batch_.
  struct Latest {
    bool deleted;
    size_t value_offset;
    size_t value_size;
    const std::string* merged;  // a Merge's value (in merged_), or null
  };
  // The staged value of `key`: true if it is staged (then *deleted, or
  // *value the staged bytes, valid until the next Add or Clear).
  bool FindStaged(const ROCKSDB_NAMESPACE::Slice& key, bool* deleted,
                  ROCKSDB_NAMESPACE::Slice* value) const;

  ROCKSDB_NAMESPACE::WriteBatch batch_;
  std::deque<std::string> merged_;  // the staged Merges' values (stable addresses)
  std::unordered_map<std::string, Latest> latest_;
  ROCKSDB_NAMESPACE::WriteBatchWithIndex index_;
  bool indexed_ = false;
};

}  // namespace teksdb::server
