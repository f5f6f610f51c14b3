// CuckooIndex: the optimistically concurrent cuckoo hash (paper §4.1) that
// maps a user key to its KeyRecord.
//
// Structure. One table of an even number of buckets (any size: grown by
// half, or presized to the keys expected) of kSlotsPerBucket slots. A slot holds
// a record pointer with a 16-bit tag of the key's hash in its top bits
// (x86-64 user pointers fit in 48 bits; records are 8-byte aligned, and bit 0
// marks a frozen slot, see Resizing). A key may sit in its primary bucket
// (the hash's low half scaled to the table) or its alternate bucket, derived
// from the primary and the tag alone as in MemC3 ((t - bucket) mod n, t from
// the tag), so displacement never rereads a key.
//
// Hashing. Keys come from untrusted users, so the hash is XXH3 keyed with a
// secret random seed drawn per index: collisions cannot be precomputed.
//
// Growth, bounded for any key set. When a key's two buckets are full and
// kEagerGrowLoadPercent of the slots are in use, or no cuckoo path frees a
// slot for it, the table is resized (half as many buckets again, every
// entry rehashed into it), the latter only if at least kGrowLoadPercent of its
// slots are in use. Below that,
// the key's bucket pair is crowded by keys sharing its buckets, which only
// an adversary (or a broken hash) produces: the key overflows instead. An
// overflowed key's record is linked straight into the ordered index (the
// skip list every record joins anyway) and a bit for its hash is set in a
// fixed-size overflow filter; a lookup that misses in the table and finds
// its filter bit set searches the skip list, O(log n). So the table never
// exceeds 150 / kGrowLoadPercent slots per key in it, a missing key
// probes one table, and any key set costs at worst O(log n) per operation.
//
// Resizing. Under `displacement_mu_`, every slot of the old table is frozen
// (an atomic fetch_or of bit 0, so a slot is frozen with exactly the value
// it had) and its entry copied into the new table, which is then published.
// Lock-free inserters CAS only from an empty, unfrozen slot, so none can slip
// into a frozen table; finding one frozen, they wait for the resize on the
// mutex and retry on the new table. Lookups may still scan a frozen table:
// it holds every entry placed before the freeze. A retired table's slots,
// when they came from the arena, go to `retired_memory` (the rep's), which
// hands them out again for records once no lookup can still be scanning
// them (every lookup holds the rep's reader epoch); otherwise they are kept
// until the index is destroyed, at most as large as the current table
// together. If the new table cannot be
// allocated or cannot place every entry, the resize is undone (slots
// unfrozen) and the key overflows: no allocation failure escapes.
//
// Thread safety:
//   - Lookups (FindLive) take no lock. A displacement bumps the version
//     counters of the stripes of both buckets it touches to odd and back
//     (a seqlock); a lookup that finds nothing re-checks those counters and
//     retries if they moved, so a key being displaced is never reported
//     absent. Overflow lookups search the lock-free skip list.
//   - Inserting into a free slot is one CAS. Displacement (a breadth-first
//     search for a cuckoo path, then moves) and resizing take
//     `displacement_mu_`; each move is check-before-update: it CASes the
//     destination from empty and gives the path up if an inserter got there
//     first.
//   - Two writers may add the same new key at once. Each publishes its
//     candidate record as PENDING, then settles (see FindOrInsert): a LIVE
//     record for the key wins; among PENDING ones the lowest address wins.
//     Exactly one record per key ever becomes LIVE; losers remove their slot.
//     Overflow inserts decide under `overflow_mu_` and never publish a
//     PENDING record: a hash-path inserter whose key's filter bit is set
//     settles against the overflow under that mutex too.
//     Lock order: serial_insert_mu_, then overflow_mu_, then
//     displacement_mu_.
//   - With `serialize_inserts`, new keys are added one at a time under a
//     mutex (the paper's "serialized hash" baseline); lookups stay lock-free.
//
// Invariants: a LIVE record stays findable (in the current table, or in the
// skip list with its filter bit set) until the index is destroyed; PENDING
// records are never displaced, only copied by a resize.
//
// Design notes: docs/DESIGN.md §3 and §4.
#pragma once

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "CuckooIndex packs a tag into the top 16 bits of 48-bit user pointers"
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

#include "key_record.h"
#include "ordered_index.h"
#include "retired_memory.h"
#include "rocksdb_internals.h"

namespace teksdb {

class CuckooIndex {
 public:
  static constexpr int kSlotsPerBucket = 4;
  // A table is resized only when at least this share of its slots is used.
  static constexpr int kGrowLoadPercent = 50;
  // Past this share, a key whose two buckets are full grows the table
  // rather than search for a cuckoo path: paths get long as a table fills,
  // and each step of the search reads a bucket and the state of a record
  // per slot (cache misses); near full, a search was ~8% of a pipelined
  // HSET's server CPU (docs/BENCHMARKS.md §9.0).
  static constexpr int kEagerGrowLoadPercent = 90;

  // Called with a new key's record once it has won its key and before it
  // becomes LIVE, i.e. before any updater or reader can find it.
  using WonCallback = void (*)(void* arg, KeyRecord* record);

  // `initial_slots` sizes the first table (rounded up to whole buckets, an
  // even number of them).
  // Overflowed keys are linked into `overflow` (the memtable's skip list).
  // Tables are allocated from `arena` (the memtable's, so that RocksDB's
  // accounting, WriteBufferManager included, counts them), or from the
  // heap when it is null. Arena tables a resize replaces go to
  // `retired_memory` when it is given.
  CuckooIndex(size_t initial_slots, bool serialize_inserts, OrderedIndex* overflow,
              ROCKSDB_NAMESPACE::Allocator* arena = nullptr,
              RetiredMemory* retired_memory = nullptr);
  ~CuckooIndex();
  CuckooIndex(const CuckooIndex&) = delete;
  CuckooIndex& operator=(const CuckooIndex&) = delete;

  // The key's hash under this index's secret seed.
  uint64_t Hash(const Slice& user_key) const;

  // Hints for a batch of lookups (TeksTableRep::MultiGetChecked): start
  // fetching the buckets of `hash`, then, once they are in cache, the key
  // entries of the records in them whose tags match, then, once those are,
  // those records' newest versions (where a read of the key starts). Change
  // nothing.
  void PrefetchBuckets(uint64_t hash) const;
  void PrefetchCandidates(uint64_t hash) const;
  void PrefetchNewestVersions(uint64_t hash) const;

  // The LIVE record of the user key of `internal_key` (any internal key of
  // it: the overflow's skip-list search needs one), or nullptr. Lock-free.
  KeyRecord* FindLive(const Slice& internal_key, uint64_t hash) const;

  // The LIVE record of `candidate`'s user key, whose hash is `hash`,
  // inserting `candidate` if the key has none. Returns `candidate` iff it was
  // inserted.
  // `on_won` runs once for an inserted candidate that went into the table;
  // an overflowed one is linked into the skip list instead (linked() is then
  // true when this returns).
  KeyRecord* FindOrInsert(uint64_t hash, KeyRecord* candidate, WonCallback on_won,
                          void* on_won_arg);

  // Bytes held on the heap: the table objects, the displacement search's
  // state, and the tables themselves when there is no arena.
  size_t MemoryUsage() const { return memory_usage_.load(std::memory_order_relaxed); }
  // Slots of the current table.
  size_t Capacity() const;
  // About how many keys the index holds (slots in use, plus overflowed
  // keys); exact when no insert is running.
  size_t NumKeys() const;
  // Keys that overflowed to the skip list so far.
  size_t NumOverflowed() const { return overflowed_.load(std::memory_order_relaxed); }

  // Test hook: while set, every index hashes every key to `hash`, as if an
  // adversary had defeated the seed. Not for production use.
  static void ForceHashForTesting(bool on, uint64_t hash = 0);

 private:
  struct Table;
  enum class Settlement { kWon, kLost };
  enum class Placement { kPlaced, kOverflow };

  // At most this many records of one key seen in one scan (a record appears
  // twice mid-move; the rest are concurrent PENDING candidates).
  static constexpr int kMaxMatches = 64;
  struct Matches {
    KeyRecord* records[kMaxMatches];
    int count = 0;
  };

  // Every record (any state) for the key, except `exclude`: in the current
  // table, and in the overflow if the key's filter bit is set. Takes
  // overflow_mu_ for the latter unless `overflow_locked`.
  void CollectAll(const Slice& internal_key, uint64_t hash, const KeyRecord* exclude,
                  bool overflow_locked, Matches* out) const;
  // Puts the PENDING `candidate` into a slot, resizing if the table is full
  // enough; kOverflow if it belongs in the overflow instead.
  Placement Publish(uint64_t hash, KeyRecord* candidate);
  Settlement Settle(uint64_t hash, KeyRecord* candidate) const;
  void Remove(uint64_t hash, KeyRecord* candidate);
  // The key's LIVE record after an overflow insert of `candidate`, or
  // nullptr if a PENDING competitor must settle first (retry).
  KeyRecord* InsertOverflow(uint64_t hash, KeyRecord* candidate);

  static uint64_t FilterBit(uint64_t hash);
  bool FilterHas(uint64_t hash) const;
  void FilterAdd(uint64_t hash);

  // REQUIRES: displacement_mu_ held. Moves entries so that one of the
  // buckets of `hash` in `table` gets a free slot; false if none was found.
  bool MakeRoom(Table* table, uint64_t hash);
  // REQUIRES: displacement_mu_ held. Replaces the current table by one half
  // as large again holding every entry; false, changing nothing, if that
  // fails.
  bool Resize();
  // REQUIRES: displacement_mu_ held, `table` unpublished. Puts the slot
  // value `x` (of a record with hash `hash`) into `table`.
  bool PlaceDuringResize(Table* table, uint64_t hash, uint64_t x);
  // Whether at least `percent` of the slots of the current table `table`
  // are used.
  bool LoadedPast(const Table* table, int percent) const;

  const uint64_t seed_;
  ROCKSDB_NAMESPACE::Allocator* const arena_;
  RetiredMemory* const retired_memory_;
  std::atomic<Table*> current_;
  // Earlier tables (their memory given to retired_memory_ or not), newest
  // first, freed at destruction.
  Table* retired_ = nullptr;
  // The table whose eager growth (kEagerGrowLoadPercent) failed, so that
  // inserts into it search for cuckoo paths instead of retrying a resize
  // each. Guarded by displacement_mu_.
  const Table* eager_growth_failed_for_ = nullptr;
  std::atomic<size_t> memory_usage_{0};
  std::atomic<size_t> overflowed_{0};
  // Slots in use in the current table, in cache-line-padded shards (by
  // hash) so concurrent inserters rarely share one.
  struct alignas(64) UsedSlotShard {
    std::atomic<int64_t> count{0};
  };
  static constexpr int kUsedShards = 8;
  UsedSlotShard used_[kUsedShards];
  // The shard counting the slot of a key with this hash.
  std::atomic<int64_t>& UsedSlotsOf(uint64_t hash) {
    return used_[(hash >> 8) % kUsedShards].count;
  }
  int64_t UsedSlots() const;
  static constexpr size_t kFilterWords = 64;  // 4096 bits
  std::atomic<uint64_t> overflow_filter_[kFilterWords] = {};

  OrderedIndex* const overflow_;
  // Mutable: settlement (const) waits on it for a resize to end.
  mutable std::mutex displacement_mu_;
  mutable std::mutex overflow_mu_;
  const bool serialize_inserts_;
  std::mutex serial_insert_mu_;
  // MakeRoom's breadth-first search state, allocated once (no allocation on
  // the write path); used under displacement_mu_.
  struct SearchStep;
  std::unique_ptr<SearchStep[]> search_steps_;
};

}  // namespace teksdb
