// VersionChain: the versions of one user key, newest first (paper §4.2, §4.3).
//
// Every memtable entry is preceded by a Version header holding a link to the
// next older version of the same user key. A chain is an atomic head pointer
// plus those links, kept sorted by sequence number descending even when
// concurrent writers of one key arrive out of order.
//
// Dropping in amortized O(1) per update. DropShadowed() cuts the versions
// shadowed by the newest non-merge version every reader sees (the cutter).
// Walking the chain on every update would cost O(versions) whenever nothing
// can be cut (a snapshot holds an old sequence, a deletion below a Put), so
// each chain has a DropMemo (kept by its owner, KeyRecord) of what the last
// attempt learned:
//   - the oldest readable sequence it used (low 32 bits): an attempt with the
//     same value would find the same cutter over the same frozen tail (no
//     version <= it can still be inserted, see REQUIRES below), so it is
//     skipped; equal low bits with a different value skip too, which only
//     delays a drop;
//   - the settled mark: the topmost version with a sequence <= that value
//     carries a tag bit in its link (kSettledMark). The settled part (that
//     version and all below) was fully inspected and is frozen: later
//     inserts have larger sequences, so they all land above the mark. Its
//     blocking summary (holds a SingleDelete / a deletion) is in the memo.
//     The next attempt walks from the head only down to the mark, so each
//     version is visited once when it settles plus once per attempt while
//     it is newer than the oldest readable sequence.
//   - a busy bit: one dropper per chain at a time; a writer that finds it
//     set skips its attempt (not dropping is always correct).
// Attempts with a smaller oldest readable sequence than the mark's (a writer
// that read it earlier) meet the mark above their cutter and do nothing.
//
// Thread safety:
//   - Insert() is lock-free and may run concurrently with other Insert()s,
//     DropShadowed() and any number of readers.
//   - Readers (Newest(), FirstAtOrBelow(), walking Older()) take no locks.
//   - DropShadowed() REQUIRES that every sequence <= `oldest_readable` has
//     already been inserted (the caller learns it from the last published
//     sequence), so no Insert() ever targets the part of the chain it cuts
//     or marks. It may be called concurrently; its memo serializes callers.
//
// Invariants:
//   - A Version and its entry bytes are never freed or changed while the
//     memtable lives: they sit in the arena, and readers (iterators pinning
//     keys) may hold them arbitrarily long. Only the link's mark bit and the
//     link itself (cut to nullptr) ever change after a version is linked.
//   - Links only ever point to older versions. Dropping cuts one link to
//     nullptr. A reader already past a cut keeps walking the unlinked part;
//     such readers only ever need versions at or above the cut, and memtable
//     iterators just move on to the next record.
//   - At most one version reachable from the head is marked; the memo's
//     summary covers it and every version below it.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "rocksdb_internals.h"

namespace teksdb {

class Version {
 public:
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
  char* mutable_entry() { return reinterpret_cast<char*>(this + 1); }
  EntryView view() const { return EntryView::Decode(entry()); }
  SequenceNumber sequence() const { return view().sequence(); }

  // Acquire: the older version's entry bytes were written before it was
  // published by the release CAS in VersionChain::Insert (the mark is set
  // and cleared by read-modify-writes, which continue that release
  // sequence).
  Version* older() const { return Unmarked(older_.load(std::memory_order_acquire)); }

  static Version* FromEntry(const char* entry) {
    return reinterpret_cast<Version*>(const_cast<char*>(entry)) - 1;
  }

 private:
  friend class VersionChain;
  // The low bit of a link: "this version is the chain's settled mark".
  // Versions are pointer-aligned (record and Allocate layouts).
  static constexpr uintptr_t kSettledMark = 1;
  static Version* Unmarked(uintptr_t link) {
    return reinterpret_cast<Version*>(link & ~kSettledMark);
  }
  bool marked() const {
    return (older_.load(std::memory_order_relaxed) & kSettledMark) != 0;
  }

  // A Version* with the mark in its low bit, as an integer so that the mark
  // can be set and cleared with read-modify-writes.
  std::atomic<uintptr_t> older_{0};
};
static_assert(sizeof(Version) == 8, "entry bytes follow the 8-byte header");
static_assert(alignof(Version) >= 2, "the low bit of a link is free for the mark");

// What the last drop attempt on one chain learned (see the file comment).
// Five bytes, byte-aligned, so it fits KeyRecord's padding. Everything but
// the busy bit is read and written only by the holder of the busy bit,
// whose acquire/release on state_ orders those accesses.
class DropMemo {
 public:
  DropMemo() = default;
  DropMemo(const DropMemo&) = delete;
  DropMemo& operator=(const DropMemo&) = delete;

 private:
  friend class VersionChain;
  enum : uint8_t {
    kBusy = 1,
    kSettledHoldsSingleDelete = 2,
    kSettledHoldsDeletion = 4,
  };
  // Initially "attempted at 0": no memtable entry has sequence 0, so there
  // is nothing to cut at 0 (WAL replay, where no DB is attached yet).
  std::atomic<uint8_t> state_{0};
  unsigned char oldest_low_[4] = {0, 0, 0, 0};
};
static_assert(sizeof(DropMemo) == 5 && alignof(DropMemo) == 1, "fits a record's padding");

class VersionChain {
 public:
  // Starts a chain holding only `first`.
  explicit VersionChain(Version* first) : newest_(reinterpret_cast<uintptr_t>(first)) {}

  // The head link never carries the mark.
  Version* Newest() const {
    return reinterpret_cast<Version*>(newest_.load(std::memory_order_acquire));
  }

  // Links `v` at its place by sequence. Returns false, leaving the chain
  // unchanged, if a version with the same sequence is already present (the
  // exact (user key, seq) duplicate RocksDB asks reps to refuse).
  bool Insert(Version* v) {
    const SequenceNumber seq = v->sequence();
    while (true) {
      std::atomic<uintptr_t>* link = &newest_;
      // Links changed here never carry the mark (DropShadowed's REQUIRES
      // keeps the marked version below every insert); masking anyway keeps
      // a stray mark from ever being dereferenced.
      uintptr_t raw = link->load(std::memory_order_acquire);
      Version* next = Version::Unmarked(raw);
      while (next != nullptr && next->sequence() > seq) {
        link = &next->older_;
        raw = link->load(std::memory_order_acquire);
        next = Version::Unmarked(raw);
      }
      if (next != nullptr && next->sequence() == seq) return false;
      // Relaxed suffices: the release CAS below publishes it with `v`.
      v->older_.store(reinterpret_cast<uintptr_t>(next), std::memory_order_relaxed);
      if (link->compare_exchange_weak(raw, reinterpret_cast<uintptr_t>(v),
                                      std::memory_order_release,
                                      std::memory_order_relaxed)) {
        return true;
      }
    }
  }

  // The newest version whose packed tag is <= `packed_tag` (the first entry
  // at or after an internal key of this user key), or nullptr.
  Version* FirstAtOrBelow(uint64_t packed_tag) const {
    Version* v = Newest();
    while (v != nullptr && v->view().packed_tag() > packed_tag) v = v->older();
    return v;
  }

  // The version just newer than `v` still reachable from the head, or nullptr
  // if `v` is (or sorts like) the newest.
  Version* NewerThan(const Version* v) const {
    const SequenceNumber seq = v->sequence();
    Version* newer = nullptr;
    for (Version* cur = Newest(); cur != nullptr && cur->sequence() > seq;
         cur = cur->older()) {
      newer = cur;
    }
    return newer;
  }

  Version* Oldest() const {
    Version* v = Newest();
    for (Version* o = v->older(); o != nullptr; o = o->older()) v = o;
    return v;
  }

  // Unlinks the versions shadowed by the newest version every reader stops
  // at: the newest non-merge version with sequence <= `oldest_readable`.
  // The cut must also leave flush and compaction with the same result, and a
  // SingleDelete does not shadow like the others: it cancels exactly one
  // older Put, possibly one outside this memtable. So nothing is cut when the
  // stopping version is a SingleDelete or the part below holds one, nor below
  // a Put that a later SingleDelete may cancel when the part below holds a
  // deletion (it would have to resurface then).
  // Skips the attempt when `memo` shows it would learn nothing new, or when
  // another thread is attempting (see the file comment). Adds the number of
  // versions it looked at to `*visited`. Returns whether anything was cut.
  bool DropShadowed(SequenceNumber oldest_readable, DropMemo* memo, uint64_t* visited) {
    const uint32_t oldest_low = static_cast<uint32_t>(oldest_readable);
    const uint8_t state = memo->state_.fetch_or(DropMemo::kBusy, std::memory_order_acquire);
    if ((state & DropMemo::kBusy) != 0) return false;
    uint32_t last_low;
    std::memcpy(&last_low, memo->oldest_low_, sizeof(last_low));
    uint8_t summary = state;  // the settled part's, kept unless it grows
    bool cut = false;
    if (last_low != oldest_low) {
      Settle(oldest_readable, &summary, &cut, visited);
      std::memcpy(memo->oldest_low_, &oldest_low, sizeof(oldest_low));
    }
    // Release: the next dropper sees the memo and marks written here.
    memo->state_.store(summary & ~DropMemo::kBusy, std::memory_order_release);
    return cut;
  }

 private:
  static uint8_t BlockingSummary(uint8_t type) {
    if (type == kEntrySingleDeletion) return DropMemo::kSettledHoldsSingleDelete;
    if (IsDeleteLike(type)) return DropMemo::kSettledHoldsDeletion;
    return 0;
  }

  // May the versions below a cutter of `type` go, given the blocking
  // summary of everything below it?
  static bool MayDropBelow(uint8_t type, uint8_t below) {
    if (!IsPutLike(type) && !IsDeleteLike(type)) return false;
    if ((below & DropMemo::kSettledHoldsSingleDelete) != 0) return false;
    return !(IsPutLike(type) && (below & DropMemo::kSettledHoldsDeletion) != 0);
  }

  // One attempt, by the holder of the memo's busy bit: moves the settled
  // mark up to the topmost version <= `oldest_readable`, cutting below the
  // cutter if it is above the old mark and allowed. `*summary` is the
  // settled part's blocking summary, before and after.
  void Settle(SequenceNumber oldest_readable, uint8_t* summary, bool* cut,
              uint64_t* visited) {
    // Down to the new settled top. Meeting the mark first means nothing
    // <= oldest_readable was added above it (or this caller's sequence is
    // older than the mark's): the settled part and its verdict stand.
    Version* top = Newest();
    uint64_t seen = 0;
    while (top != nullptr && !top->marked() && top->sequence() > oldest_readable) {
      ++seen;
      top = top->older();
    }
    if (top == nullptr || top->marked()) {
      *visited += seen;
      return;
    }
    // From the new top to the cutter, the first non-merge version; merge
    // operands between never block a cut.
    Version* cutter = top;
    while (cutter != nullptr && !cutter->marked() && !EndsVersionSearch(cutter->view().type())) {
      ++seen;
      cutter = cutter->older();
    }
    Version* old_mark = cutter != nullptr && cutter->marked() ? cutter : nullptr;
    uint8_t below = 0;
    if (cutter != nullptr && old_mark == nullptr) {
      // Below the cutter, down to the old mark: what it holds, plus the old
      // settled part's summary.
      ++seen;
      for (Version* v = cutter->older(); v != nullptr; v = v->older()) {
        ++seen;
        if (v->marked()) {
          below |= *summary;
          old_mark = v;
          break;
        }
        below |= BlockingSummary(v->view().type());
      }
      const uint8_t type = cutter->view().type();
      if (cutter->older() != nullptr && MayDropBelow(type, below)) {
        // Only this thread writes links of settled versions (REQUIRES), and
        // readers just see the old link or nullptr. The old mark is gone
        // with the cut part.
        cutter->older_.store(0, std::memory_order_relaxed);
        *cut = true;
        old_mark = nullptr;
        below = 0;
      }
      *summary = BlockingSummary(type) | below;
    } else if (old_mark == nullptr) {
      *summary = 0;  // only merge operands settled so far
    }
    if (old_mark != nullptr) {
      old_mark->older_.fetch_and(~Version::kSettledMark, std::memory_order_relaxed);
    }
    *visited += seen;
    top->older_.fetch_or(Version::kSettledMark, std::memory_order_relaxed);
  }

  // Same representation as Version::older_, so Insert treats both alike.
  std::atomic<uintptr_t> newest_;
};

}  // namespace teksdb
