// MultiGetHint: the keys of a MultiGet, left by the TeksDB layer for
// TeksTable on the same thread, where RocksDB hands the memtable one key at
// a time.
//
// Before RocksDB 11.1 (no MemTableRep::MultiGet: TEKSDB_ROCKSDB_HAS_REP_MULTIGET),
// a MultiGet asks each memtable for its keys one rep Get after another, so
// each lookup's cache misses (the key's two buckets, then its record) wait
// for the previous lookup's. The layer knows every key up front: for the
// length of its call it leaves them here (a Scope), and the first Get a
// TeksTable rep answers on this thread meanwhile prefetches their buckets
// and then their candidate records, as the rep's own batched MultiGet does,
// so the Gets that follow find them in cache (teksdb-server's pipelined GETs
// and its HSETs' member reads). Only a hint: a rep takes it once, keys it
// does not hold cost their prefetches, and a rep that never sees one works
// as before.
//
// Thread safety: everything is thread-local; a Scope lives within one call
// on one thread, and the keys it names outlive it.
#pragma once

#include <cstddef>

#include "rocksdb/slice.h"

namespace teksdb {

class MultiGetHint {
  struct Hint {
    const ROCKSDB_NAMESPACE::Slice* keys;
    size_t n;
    const void* taken_by;  // the last rep that took them
  };
  static Hint& current() {
    static thread_local Hint hint{nullptr, 0, nullptr};
    return hint;
  }

 public:
  // At most this many keys are prefetched from one hint: what a batch of
  // RocksDB's MultiGet holds (MultiGetContext::MAX_BATCH_SIZE), and what
  // stays in cache until the Gets read it.
  static constexpr size_t kMaxKeys = 32;

  // Leaves `keys` (user keys) for this thread until destroyed; restores any
  // hint it replaced.
  class Scope {
   public:
    Scope(const ROCKSDB_NAMESPACE::Slice* keys, size_t n) : saved_(current()) {
      current() = Hint{keys, n, nullptr};
    }
    ~Scope() { current() = saved_; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    const Hint saved_;
  };

  // The keys left for this thread (*keys, at most kMaxKeys; returns how
  // many), or 0 if there are none or `rep` took them already. A rep takes
  // them once per hint.
  static size_t Take(const void* rep, const ROCKSDB_NAMESPACE::Slice** keys) {
    Hint& hint = current();
    if (hint.n == 0 || hint.taken_by == rep) return 0;
    hint.taken_by = rep;
    *keys = hint.keys;
    return hint.n < kMaxKeys ? hint.n : kMaxKeys;
  }
};

}  // namespace teksdb
