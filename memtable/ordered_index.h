// OrderedIndex: the skip list that keeps KeyRecords sorted by user key, for
// scans, seeks that miss the hash, and flush (paper §4.3–4.5).
//
// It holds one node per user key (the KeyRecord itself), never one per
// version: updates of an existing key never touch it. Nodes are compared
// by each record's first entry in the KeyComparator's order (KeyOrder,
// inline for bytewise keys); records of different user keys order by user
// key whatever their sequence.
//
// Searches, and inserts of records no taller than the anchors' level, start
// from the nearest anchor before their key when the keys order bytewise
// (AnchorDirectory: a sorted sample of level AnchorDirectory::kLevel,
// rebuilt by the thread that links records as the level grows), else from
// the head on the top level.
//
// Thread safety:
//   - Insert() is lock-free and may run from several threads at once (the
//     background linker and readers helping it), using CAS per level as
//     RocksDB's InlineSkipList::InsertConcurrently does. Each record is
//     inserted at most once (the link queue hands it to one thread).
//   - Readers take no locks and may run during inserts. A record becomes
//     visible to level-0 traversal at its level-0 CAS and is then marked
//     linked().
//
// Invariants: nodes are never removed or freed while the index lives; a
// node's key never changes; each level is sorted at every instant.
//
// Design notes: docs/DESIGN.md §1 and §6.
#pragma once

#include <atomic>
#include <memory>

#include "anchor_directory.h"
#include "key_order.h"
#include "key_record.h"
#include "rocksdb/memtablerep.h"

namespace teksdb {

class OrderedIndex {
 public:
  // With `anchor_arena` (the memtable's), searches start from anchors
  // allocated there. Pass it only if `cmp` orders user keys as RocksDB's
  // BytewiseComparator does, which anchors need.
  explicit OrderedIndex(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                        ROCKSDB_NAMESPACE::Allocator* anchor_arena = nullptr);

  // Where the last insert through it went: for each level below `valid`,
  // the records right before and after it then (nullptr for the end). An
  // insert that lands in the same gap on some level searches only the
  // levels below that one, from there: keys arriving in order, or nearly,
  // cost O(1) each, as in RocksDB's InlineSkipList. Owned by one thread
  // at a time; any splice gives right answers, a stale one costs searches.
  struct Splice {
    KeyRecord* prev[KeyRecord::kMaxHeight];
    KeyRecord* next[KeyRecord::kMaxHeight];
    int valid = 0;  // levels [0, valid) were set by an insert
  };

  // REQUIRES: no record of the same user key is in the index; `splice`, if
  // given, is used by no other thread meanwhile and was only ever used
  // with this index.
  void Insert(KeyRecord* record, Splice* splice = nullptr);
  // Whether `record`'s key lands in the splice's gap on `level`, still a
  // gap: its insert through `splice` then searches only the levels below
  // (O(1) from level 0). At most two comparisons.
  bool LandsInGap(const Splice& splice, const KeyRecord* record, int level) const;

  // Where a search descends from: the nearest anchor before its key on
  // level AnchorDirectory::kLevel (the head on the top level if there is
  // none), or always the head. Both give the same answer; kHead is the
  // plain skip-list search that tests hold the anchors to.
  //
  // Records linked since the anchors were built lie between anchors too,
  // and keys that arrive in order all land in one gap (several ordered
  // streams: one gap each, inside the key space): a search from the
  // anchor before that gap would walk every one of them on the anchors'
  // level, O(records) until the next build. So a search walks at most
  // kAnchorWalkSteps records from its anchor on that level and otherwise
  // descends from the head, whose higher levels pass them in O(log n).
  enum class Start { kNearestAnchor, kHead };
  static constexpr int kAnchorWalkSteps = 32;

  // The first record whose user key is >= that of `internal_key` (any
  // internal key of that user key), or nullptr.
  KeyRecord* FindFirstAtOrAfter(const Slice& internal_key,
                                Start start = Start::kNearestAnchor) const;
  // The record of exactly the user key of `internal_key` (in any state), or
  // nullptr.
  KeyRecord* FindUserKey(const Slice& internal_key) const;
  // The last record whose user key is < that of `record`, or nullptr.
  KeyRecord* FindLessThan(const KeyRecord* record,
                          Start start = Start::kNearestAnchor) const;
  KeyRecord* First() const { return head_->Next(0); }
  // About how many records sort at or after `start` and before `end`
  // (internal keys): the records counted on the highest level that holds
  // enough of them, times the branching factor per level above level 0.
  // Reads at most a few hundred nodes per level.
  uint64_t EstimateCountBetween(const Slice& start, const Slice& end) const;
  KeyRecord* Last() const;
  const KeyOrder& order() const { return order_; }

  const AnchorDirectory& anchors() const { return anchors_; }
  // How many records this thread's inserts (and searches from anchors)
  // have walked past, on every level and in every index: tests bound the
  // cost of an insert by it, which timing could not show reliably.
  static uint64_t RecordsPassedByInsertsOnThisThread();
  // No anchor array is built (allocated) after this returns.
  void StopAnchorBuilds() { anchors_.StopBuilding(); }

  // Bytes held outside the arena (the head node).
  size_t MemoryUsage() const { return sizeof(*this) + head_bytes_; }

 private:
  int MaxHeight() const { return max_height_.load(std::memory_order_relaxed); }
  // Where a search for keys above `user_key` descends from (see Start):
  // sets `*x` to a node that sorts before them and `*level` to the level
  // it is linked on up to.
  void StartOf(const Slice& user_key, Start start, KeyRecord** x, int* level) const;
  // Whether `r` sorts before the record `key_entry` belongs to.
  bool Before(const KeyRecord* r, const char* key_entry) const;
  // The lowest level below splice.valid at which `key_entry` lands in the
  // splice's gap, which is still a gap (nothing linked into it since), or
  // -1 if there is none.
  int LevelWithGapFor(const Splice& splice, const char* key_entry) const;
  // Sets splice->prev/next[level] to the gap `key_entry` lands in on
  // `level`, walking from `from` (which sorts before it and is linked on
  // `level`); `bound`, if not null, is a record known to sort after it.
  void FindGap(const char* key_entry, int level, KeyRecord* from, const KeyRecord* bound,
               Splice* splice) const;

  const KeyOrder order_;
  const size_t head_bytes_;
  std::unique_ptr<char[]> head_memory_;
  KeyRecord* head_;
  std::atomic<int> max_height_{1};
  AnchorDirectory anchors_;
};

// A random skip-list height (branching factor 4, at most kMaxHeight), from a
// per-thread generator.
int RandomRecordHeight();

}  // namespace teksdb
