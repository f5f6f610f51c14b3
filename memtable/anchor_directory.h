// AnchorDirectory: a sorted sample of the skip list's records, so that a
// search for a key the hash does not hold starts next to it instead of at
// the head (tracker issue 8: seeks to keys absent from the memtable).
//
// The sample is every record on skip-list level kLevel (a record of height
// > kLevel: 1 in 4^kLevel of them), as an array of (prefix, record) sorted
// by key, where a key's prefix is its first 8 bytes read big-endian, padded
// with zero bytes if it is shorter. A binary search over the prefixes finds
// the last anchor whose key is below a target; the skip list then descends
// from that anchor, on level kLevel, instead of from the head on its top
// level (OrderedIndex::FindFirstAtOrAfter, FindLessThan).
//
// Only for RocksDB's BytewiseComparator: prefixes order keys only where
// keys order bytewise. Why a smaller prefix means a smaller key, for any
// two byte strings a and b: if a < b bytewise, either a is a proper prefix
// of b, so a's padded prefix is b's first bytes followed by zeros, and zero
// is the smallest byte, so prefix(a) <= prefix(b); or a and b first differ
// at some index i with a[i] < b[i], and then prefix(a) < prefix(b) if i < 8
// (the bytes before i are equal, and a byte nearer the front weighs more)
// and prefix(a) == prefix(b) if i >= 8 (the first 8 bytes are equal and
// both keys have all of them). So a < b implies prefix(a) <= prefix(b), and
// turned around, prefix(a) < prefix(b) implies a < b. Equal prefixes say
// nothing ("ab" and "ab\0" share one), so anchors whose prefix equals the
// target's are told apart by their second prefix, bytes 8 to 16 read the
// same way (zero for a key of 8 bytes or fewer): if prefix(a) == prefix(b),
// a < b implies second(a) <= second(b). Why: if both keys have 8 bytes or
// more, their first 8 bytes are equal and the argument above holds for the
// rest of them; if a has fewer, second(a) is zero, and second(b) > 0 means
// b is longer than 8 bytes, so a, shorter, zero-padded to b's first 8
// bytes, is a proper prefix of b (and the other way round). Keys sharing
// long prefixes (a Redis server's "H" + version + field records, whose
// first 8 bytes hold the version's first 7) are common, and comparing
// whole keys reads a record per step, a cache miss each. Only anchors
// equal on both prefixes are compared by their whole keys.
//
// Why an anchor is a correct place to start whatever happened since the
// array was built: records are never removed or moved, and a record's key
// never changes, so an anchor still sorts before the target; levels are
// linked bottom-up (OrderedIndex::Insert), so a record the build found on
// level kLevel is linked on every level below it; and records inserted
// since the build are simply not anchors: the descent walks past them as
// past any other node.
//
// Rebuilds. The thread that links a record of height > kLevel counts it
// (RecordLinked); when the count reaches twice what the last build found
// (kFirstBuild the first time), that thread walks level kLevel and
// publishes a new array. Between builds, at most about half of level kLevel
// is missing from the array, so a descent passes about one extra node there.
//
// Thread safety:
//   - Find may run from any number of threads, during inserts and
//     rebuilds. It reads the current array through an acquire load of
//     `current_`, which pairs with the builder's release store: the array's
//     contents, and the records the builder reached through acquire loads of
//     skip-list links, are visible to it.
//   - RecordLinked may run from any number of linking threads. One build at
//     a time: a thread that finds the build mutex taken skips (try_lock),
//     since the build under way covers its record or the next one will.
//   - Arrays are never freed while the directory lives, since a reader may
//     still search an old one: they come from the memtable's arena (so
//     RocksDB's accounting, WriteBufferManager included, counts them, as it
//     counts the hash's tables) and go with it. With doubling, all older
//     arrays together are at most as large as the newest.
//   - Nothing here throws: an array the arena cannot allocate is simply not
//     built (searches keep the last one, or start from the head).
//   - StopBuilding() returns once no build runs and none will start: the
//     rep calls it from MarkReadOnly, right after which RocksDB tells the
//     arena's WriteBufferManager tracker that the memtable is done
//     allocating. Arena bytes taken after that would stay counted as active
//     memory for good (the tracker releases only what it had when told),
//     and records linked late, by the linker or a flush, would take them.
//
// Invariants: every published array is sorted by key (a level of the skip
// list is sorted at every instant and a walk only meets later keys), holds
// only records linked on levels 0..kLevel, and never changes once
// published.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "key_record.h"
#include "rocksdb_internals.h"

namespace teksdb {

class AnchorDirectory {
 public:
  // Anchors are the records on this level (height > kLevel). Chosen by
  // measurement with db_bench seekrandom; see docs/DESIGN.md §6.
  static constexpr int kLevel = 2;
  // The first build waits until this many records are on kLevel (about
  // 4096 records in all): below that, a descent from the head is short.
  static constexpr uint64_t kFirstBuild = 4096 >> (2 * kLevel);

  // Arrays are allocated from `arena`. With a null `arena` (keys not known
  // to order bytewise) the directory never builds, and Find always returns
  // nullptr.
  explicit AnchorDirectory(ROCKSDB_NAMESPACE::Allocator* arena) : arena_(arena) {}
  AnchorDirectory(const AnchorDirectory&) = delete;
  AnchorDirectory& operator=(const AnchorDirectory&) = delete;

  bool enabled() const { return arena_ != nullptr; }

  // The last anchor whose user key is bytewise less than `user_key`, or
  // nullptr if there is none, if it is the array's last (nothing bounds the
  // walk after it: keys arriving in order all land there between builds),
  // or if there is no array yet. It is linked on levels 0..kLevel.
  KeyRecord* Find(const Slice& user_key) const;

  // Tells the directory that a record of height > kLevel was just linked on
  // all its levels of the skip list whose head is `head`; may rebuild.
  void RecordLinked(const KeyRecord* head);

  // No build starts after this returns, and none is running. Searches keep
  // using the last array.
  void StopBuilding();

  // Anchors in the current array (0 before the first build).
  size_t size() const;
  // Arrays built so far.
  uint64_t builds() const { return builds_.load(std::memory_order_relaxed); }
  // Arena bytes of every array built (all are kept, see above).
  size_t ArenaBytes() const { return bytes_.load(std::memory_order_relaxed); }

  // The big-endian value of the 8 bytes of `key` from `offset` on,
  // zero-padded (the prefix: offset 0; the second prefix: offset 8).
  static uint64_t Prefix(const Slice& key, size_t offset = 0);

 private:
  struct Array;

  // Walks level kLevel from `head` into a new array and publishes it.
  // REQUIRES: build_mu_ held.
  void BuildLocked(const KeyRecord* head);

  ROCKSDB_NAMESPACE::Allocator* const arena_;
  // The newest array.
  std::atomic<const Array*> current_{nullptr};
  // Records counted by RecordLinked, and the count that triggers a build.
  std::atomic<uint64_t> linked_{0};
  std::atomic<uint64_t> next_build_at_{kFirstBuild};
  std::mutex build_mu_;
  bool stopped_ = false;  // guarded by build_mu_
  std::atomic<uint64_t> builds_{0};
  std::atomic<size_t> bytes_{0};
};

}  // namespace teksdb
