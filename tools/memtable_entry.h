// RocksDB's memtable entry encoding and internal-key order, for code that
// drives a MemTableRep without a MemTable around it: the rep-level tests and
// tools/memtable_bench. Mirrors what MemTable::Add writes and what
// MemTable's KeyComparator compares, for a bytewise user comparator.
//
// Thread safety: everything here is stateless and may be used from any
// number of threads.
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/memtablerep.h"
#include "rocksdb/slice.h"
#include "rocksdb/types.h"

namespace teksdb {

// Internal-key order with a bytewise user comparator: user key ascending,
// then packed (seq << 8 | type) descending -- RocksDB's memtable order.
class InternalKeyOrder : public ROCKSDB_NAMESPACE::MemTableRep::KeyComparator {
 public:
  int operator()(const char* a, const char* b) const override;
  int operator()(const char* a, const ROCKSDB_NAMESPACE::Slice& internal_key) const override;
  static int Compare(const ROCKSDB_NAMESPACE::Slice& a, const ROCKSDB_NAMESPACE::Slice& b);
};

// Encodes an internal key: user_key | fixed64(seq << 8 | type).
std::string InternalKey(const ROCKSDB_NAMESPACE::Slice& user_key,
                        ROCKSDB_NAMESPACE::SequenceNumber seq, uint8_t type);

// Encodes a memtable entry as MemTable::Add does:
// varint32(internal key size) | internal key | varint32(value size) | value.
std::string EncodeEntry(const ROCKSDB_NAMESPACE::Slice& user_key,
                        ROCKSDB_NAMESPACE::SequenceNumber seq, uint8_t type,
                        const ROCKSDB_NAMESPACE::Slice& value);

// The user key, sequence, type and value of a memtable entry.
struct DecodedEntry {
  std::string user_key;
  ROCKSDB_NAMESPACE::SequenceNumber seq;
  uint8_t type;
  std::string value;
};
DecodedEntry DecodeEntry(const char* entry);

}  // namespace teksdb
