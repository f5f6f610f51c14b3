// CuckooIndex: the optimistically concurrent cuckoo hash (paper §4.1) that
// maps a user key to its KeyRecord.
//
// Structure. A table has 2^n buckets of kSlotsPerBucket slots. A slot holds a
// record pointer with a 16-bit tag of the key's hash in its top bits (x86-64
// user pointers fit in 48 bits). A key may sit in its primary bucket
// (hash & mask) or its alternate bucket, derived from the primary and the tag
// alone as in MemC3, so displacement never rereads a key. When no room can
// be made, a new table twice the size is chained in front: keys are never
// lost, never rehashed, and every lookup searches the (few) tables newest
// first.
//
// Thread safety:
//   - Lookups (FindLive) take no lock. A displacement bumps the version
//     counters of the stripes of both buckets it touches to odd and back
//     (a seqlock); a lookup that finds nothing re-checks those counters and
//     retries if they moved, so a key being displaced is never reported
//     absent.
//   - Inserting into a free slot is one CAS. Only displacement (a
//     breadth-first search for a cuckoo path, then moves) takes
//     `displacement_mu_`; each move is check-before-update: it CASes the
//     destination from empty and gives the path up if an inserter got there
//     first.
//   - Two writers may add the same new key at once. Each publishes its
//     candidate record as PENDING, then settles (see FindOrInsert): a LIVE
//     record for the key wins; among PENDING ones the lowest address wins.
//     Exactly one record per key ever becomes LIVE; losers remove their slot.
//   - With `serialize_inserts`, new keys are added one at a time under a
//     mutex (the paper's "serialized hash" baseline); lookups stay lock-free.
//
// Invariants: a LIVE record stays in the index, in one table, until the
// index is destroyed; PENDING records are never displaced.
#pragma once

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "CuckooIndex packs a tag into the top 16 bits of 48-bit user pointers"
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "key_record.h"

namespace teksdb {

class CuckooIndex {
 public:
  static constexpr int kSlotsPerBucket = 4;

  // `initial_slots` sizes the first table (rounded up to a power of two).
  CuckooIndex(size_t initial_slots, bool serialize_inserts);
  ~CuckooIndex();
  CuckooIndex(const CuckooIndex&) = delete;
  CuckooIndex& operator=(const CuckooIndex&) = delete;

  static uint64_t Hash(const Slice& user_key);

  // The LIVE record of `user_key`, or nullptr. Lock-free.
  KeyRecord* FindLive(const Slice& user_key, uint64_t hash) const;

  // The LIVE record of `user_key`, inserting `candidate` (whose own key is
  // `user_key`) if the key has none. Returns `candidate` iff it was inserted.
  KeyRecord* FindOrInsert(const Slice& user_key, uint64_t hash,
                          KeyRecord* candidate);

  // Bytes held by the tables (all outside the memtable arena).
  size_t MemoryUsage() const { return memory_usage_.load(std::memory_order_relaxed); }
  size_t NumTables() const;

 private:
  struct Table;
  enum class Settlement { kWon, kLost };

  // At most this many records of one key seen in one scan (a record appears
  // twice mid-move; the rest are concurrent PENDING candidates).
  static constexpr int kMaxMatches = 64;
  struct Matches {
    KeyRecord* records[kMaxMatches];
    int count = 0;
  };

  // Every record (any state) for the key in all tables, except `exclude`.
  void CollectAll(const Slice& user_key, uint64_t hash, const KeyRecord* exclude,
                  Matches* out) const;
  void Publish(uint64_t hash, KeyRecord* candidate);
  Settlement Settle(const Slice& user_key, uint64_t hash, KeyRecord* candidate) const;
  void Remove(uint64_t hash, KeyRecord* candidate);

  // REQUIRES: displacement_mu_ held. Moves entries so that one of the
  // buckets of `hash` in `table` gets a free slot; false if none was found.
  bool MakeRoom(Table* table, uint64_t hash);

  std::atomic<Table*> newest_;
  std::atomic<size_t> memory_usage_{0};
  std::mutex displacement_mu_;
  const bool serialize_inserts_;
  std::mutex serial_insert_mu_;
};

}  // namespace teksdb
