// PrefetchedMeta: the meta records a connection's view read ahead for a run
// of pipelined GETs (Keyspace::Prefetch), kept as RocksDB returned them
// (PinnableSlices: no copy), in buffers the next run reuses, so a run of
// GETs allocates nothing once the connection has served one of its size.
//
// Thread safety: none; one per Keyspace view, which is one connection's. A
// copy is empty: what one view read ahead is not another's to answer from.
// While empty, Find and Clear write nothing, so the server's own view,
// which threads share (the expiry sweep, commands outside connections) and
// which never prefetches, stays free of races.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/db.h"

namespace teksdb::server {

class PrefetchedMeta {
 public:
  PrefetchedMeta() = default;
  PrefetchedMeta(const PrefetchedMeta&) {}
  PrefetchedMeta& operator=(const PrefetchedMeta&) {
    Clear();
    return *this;
  }

  // Drops what was kept (and releases what its values pin), and makes room
  // for the meta records of `keys` in `slot`: then records() names them, and the
  // reader fills values() and statuses() (one MultiGet).
  void Prepare(uint8_t slot, const std::vector<ROCKSDB_NAMESPACE::Slice>& keys);
  size_t size() const { return size_; }
  const ROCKSDB_NAMESPACE::Slice* records() const { return record_slices_.data(); }
  ROCKSDB_NAMESPACE::PinnableSlice* values() { return values_.data(); }
  ROCKSDB_NAMESPACE::Status* statuses() { return statuses_.data(); }

  // Whether `key`'s meta record was read ahead (found or known absent; a
  // read that failed or was cut short keeps nothing); if so, *found tells
  // which and *bytes holds the record, valid until Prepare or Clear.
  bool Find(const std::string& key, bool* found, ROCKSDB_NAMESPACE::Slice* bytes) const;

  void Clear();

 private:
  size_t size_ = 0;
  mutable size_t next_ = 0;  // where Find looks first
  std::vector<std::string> keys_;
  std::vector<std::string> records_;
  std::vector<ROCKSDB_NAMESPACE::Slice> record_slices_;
  std::vector<ROCKSDB_NAMESPACE::PinnableSlice> values_;
  std::vector<ROCKSDB_NAMESPACE::Status> statuses_;
};

}  // namespace teksdb::server
