// ReaderRegistry: the TeksDB layer's record of every reader that may still
// read the memtables, and so of the oldest sequence any of them reads at
// (DESIGN.md §4). It is the VersionDropPolicy TeksTable consults before it
// drops a shadowed version.
//
// Protocol. A reader registers *before* it takes its sequence: it claims a
// slot (holding 0, "blocks every drop"), then reads the DB's last published
// sequence P and stores min(P, cap) as its floor. RocksDB then gives it a
// sequence >= P (published sequences only grow), or reads at its snapshot
// (cap). A dropper reads the last published sequence first and the slots
// after. Slot accesses are seq_cst, and RocksDB's read of its last sequence
// (acquire only) is ordered by a seq_cst fence on both sides, so a
// registration the dropper does not see was made after the dropper read the
// published sequence, and that reader's floor cannot be below what the
// dropper uses. Slots beyond
// `high_water_` are never scanned, so a reader raises it before claiming.
// When all slots are taken, readers count in `overflow_readers_`, which
// stops all drops while non-zero. A deferred hold (HoldUntilReadersReach)
// keeps its slot's floor until every other floor has reached its target;
// holds are freed lazily, when a memtable update asks for the oldest
// sequence. With every slot taken for long, drops stop: always correct,
// but updates then keep every version, as with the plain factory.
//
// Thread safety: everything may be called from any thread at once.
// Invariants: OldestReadableSequence() <= the sequence of every registered
// reader and <= the last published sequence; 0 while no DB is attached
// (recovery, shutdown).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rocksdb/db.h"
#include "teksdb/teks_table.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::SequenceNumber;

// RocksDB's kMaxSequenceNumber (db/dbformat.h, not installed).
constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;

class ReaderRegistry : public VersionDropPolicy {
 public:
  class Registration {
   public:
    Registration() = default;
    Registration(Registration&& other) noexcept { *this = std::move(other); }
    Registration& operator=(Registration&& other) noexcept;
    ~Registration() { Release(); }
    bool active() const { return registry_ != nullptr; }
    // Raises the floor to `seq`. REQUIRES: the reader reads at >= seq.
    void RaiseFloor(SequenceNumber seq);
    void Release();

   private:
    friend class ReaderRegistry;
    Registration(ReaderRegistry* registry, int slot) : registry_(registry), slot_(slot) {}
    ReaderRegistry* registry_ = nullptr;
    int slot_ = -1;  // -1: counted in overflow_readers_
  };

  ReaderRegistry();

  // The DB whose last published sequence bounds drops; nullptr detaches.
  void AttachDB(ROCKSDB_NAMESPACE::DB* db) { db_.store(db, std::memory_order_seq_cst); }

  // Registers a reader that will read at >= the last published sequence or
  // at `cap` (its snapshot), whichever is lower.
  Registration Register(SequenceNumber cap = kMaxSequenceNumber);

  SequenceNumber OldestReadableSequence() const override;

  // The attached DB's last published sequence (0 if none).
  SequenceNumber PublishedSequence() const;

  // Keeps `hold`'s floor until every registered reader's floor, and the
  // published sequence, have reached `seq`; then frees it. For a prepared
  // transaction's hold after its commit: readers that began before the
  // commit may read below it and must keep seeing what it shadows.
  void HoldUntilReadersReach(Registration hold, SequenceNumber seq);

 private:
  bool PruneOverflowHolds(SequenceNumber readers, uint64_t overflow) const;

  static constexpr int kSlots = 256;
  static constexpr uint64_t kFree = ~uint64_t{0};

  std::atomic<ROCKSDB_NAMESPACE::DB*> db_{nullptr};
  mutable std::atomic<uint64_t> floors_[kSlots];
  // For a slot given to HoldUntilReadersReach: the sequence readers must
  // reach before it is freed; kFree for an ordinary reader. Freed lazily by
  // OldestReadableSequence(), hence mutable.
  mutable std::atomic<uint64_t> release_at_[kSlots];
  std::atomic<int> high_water_{0};
  mutable std::atomic<uint64_t> overflow_readers_{0};
  // Deferred holds that got no slot: their targets, each also counted in
  // overflow_readers_ until freed.
  mutable std::mutex overflow_holds_mu_;
  mutable std::vector<SequenceNumber> overflow_hold_targets_;
};

}  // namespace teksdb
