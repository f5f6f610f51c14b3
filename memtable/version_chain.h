// VersionChain: the versions of one user key, newest first (paper §4.2, §4.3).
//
// Every memtable entry is preceded by a Version header holding a link to the
// next older version of the same user key. A chain is an atomic head pointer
// plus those links, kept sorted by sequence number descending even when
// concurrent writers of one key arrive out of order.
//
// Thread safety:
//   - Insert() is lock-free and may run concurrently with other Insert()s,
//     DropShadowed() and any number of readers.
//   - Readers (Newest(), FirstAtOrBelow(), walking Older()) take no locks.
//   - DropShadowed() REQUIRES that every sequence <= `oldest_readable` has
//     already been inserted (the caller learns it from the last published
//     sequence), so no Insert() ever targets the part of the chain it cuts.
//
// Invariants:
//   - A Version and its entry bytes are never freed or changed while the
//     memtable lives: they sit in the arena, and readers (iterators pinning
//     keys) may hold them arbitrarily long.
//   - Links only ever point to older versions. Dropping cuts one link to
//     nullptr. A reader already past a cut keeps walking the unlinked part,
//     which a later cut (by a dropper with an older view) may shorten again;
//     such readers only ever need versions at or above the cut, and memtable
//     iterators just move on to the next record.
#pragma once

#include <atomic>
#include <cstdint>

#include "rocksdb_internals.h"

namespace teksdb {

class Version {
 public:
  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
  char* mutable_entry() { return reinterpret_cast<char*>(this + 1); }
  EntryView view() const { return EntryView::Decode(entry()); }
  SequenceNumber sequence() const { return view().sequence(); }

  // Acquire: the older version's entry bytes were written before it was
  // published by the release CAS in VersionChain::Insert.
  Version* older() const { return older_.load(std::memory_order_acquire); }

  static Version* FromEntry(const char* entry) {
    return reinterpret_cast<Version*>(const_cast<char*>(entry)) - 1;
  }

 private:
  friend class VersionChain;
  std::atomic<Version*> older_{nullptr};
};
static_assert(sizeof(Version) == 8, "entry bytes follow the 8-byte header");

class VersionChain {
 public:
  // Starts a chain holding only `first`.
  explicit VersionChain(Version* first) : newest_(first) {}

  Version* Newest() const { return newest_.load(std::memory_order_acquire); }

  // Links `v` at its place by sequence. Returns false, leaving the chain
  // unchanged, if a version with the same sequence is already present (the
  // exact (user key, seq) duplicate RocksDB asks reps to refuse).
  bool Insert(Version* v) {
    const SequenceNumber seq = v->sequence();
    while (true) {
      std::atomic<Version*>* link = &newest_;
      Version* next = link->load(std::memory_order_acquire);
      while (next != nullptr && next->sequence() > seq) {
        link = &next->older_;
        next = link->load(std::memory_order_acquire);
      }
      if (next != nullptr && next->sequence() == seq) return false;
      // Relaxed suffices: the release CAS below publishes it with `v`.
      v->older_.store(next, std::memory_order_relaxed);
      if (link->compare_exchange_weak(next, v, std::memory_order_release,
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
  // Returns whether anything was cut.
  bool DropShadowed(SequenceNumber oldest_readable) {
    Version* v = Newest();
    for (; v != nullptr; v = v->older()) {
      const EntryView e = v->view();
      if (e.sequence() <= oldest_readable && EndsVersionSearch(e.type())) break;
    }
    if (v == nullptr || !MayDropBelow(v)) return false;
    // Storing nullptr publishes nothing; concurrent cutters all store it.
    return v->older_.exchange(nullptr, std::memory_order_relaxed) != nullptr;
  }

 private:
  static bool MayDropBelow(const Version* cutter) {
    const uint8_t type = cutter->view().type();
    if (!IsPutLike(type) && !IsDeleteLike(type)) return false;
    for (const Version* v = cutter->older(); v != nullptr; v = v->older()) {
      const uint8_t below = v->view().type();
      if (below == kEntrySingleDeletion) return false;
      if (IsPutLike(type) && IsDeleteLike(below)) return false;
    }
    return true;
  }

  std::atomic<Version*> newest_;
};

}  // namespace teksdb
