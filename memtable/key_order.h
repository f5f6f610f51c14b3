// KeyOrder: the order in which the skip list keeps memtable entries: that of
// the MemTableRep::KeyComparator RocksDB hands the rep, i.e. user keys
// ascending by its user comparator, then sequence numbers descending
// (InternalKeyComparator::CompareKeySeq: the value type is not compared).
//
// When the user comparator is RocksDB's BytewiseComparator (recognised as
// the anchors are, rocksdb_internals.h), the same order is computed inline:
// a memcmp of the user keys, then the sequences. That saves a virtual call,
// a varint decode and RocksDB's perf-context counting (a thread-local
// lookup) per comparison on the linker's and seeks' paths. Any other
// comparator, a user's or a test's, is called as is.
//
// Thread safety: immutable after construction; any thread may compare.
//
// Design notes: docs/DESIGN.md §6.
#pragma once

#include "rocksdb/comparator.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb_internals.h"

namespace teksdb {

class KeyOrder {
 public:
  explicit KeyOrder(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp)
      : cmp_(cmp),
        bytewise_(ROCKSDB_NAMESPACE::UserComparatorOf(cmp) ==
                  ROCKSDB_NAMESPACE::BytewiseComparator()) {}

  // Whether user keys order as RocksDB's BytewiseComparator orders them.
  bool bytewise() const { return bytewise_; }

  // Negative, zero or positive as the entry `a` (length-prefixed internal
  // key) sorts before, with or after the internal key `b`.
  int Compare(const char* a, const Slice& b) const {
    if (!bytewise_) return cmp_(a, b);
    return CompareInternalKeys(EntryView::Decode(a).internal_key, b);
  }
  // The same for two entries.
  int Compare(const char* a, const char* b) const {
    if (!bytewise_) return cmp_(a, b);
    return CompareInternalKeys(EntryView::Decode(a).internal_key,
                               EntryView::Decode(b).internal_key);
  }

  const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& comparator() const { return cmp_; }

 private:
  static int CompareInternalKeys(const Slice& a, const Slice& b) {
    const int r = UserKeyOf(a).compare(UserKeyOf(b));
    if (r != 0) return r;
    const SequenceNumber sa = PackedTagOf(a) >> 8;
    const SequenceNumber sb = PackedTagOf(b) >> 8;
    return sa > sb ? -1 : (sa < sb ? 1 : 0);
  }

  const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp_;
  const bool bytewise_;
};

}  // namespace teksdb
