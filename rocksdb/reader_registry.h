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
// after; all of these are seq_cst, so a registration the dropper does not
// see was made after the dropper read the published sequence, and that
// reader's floor cannot be below what the dropper uses. Slots beyond
// `high_water_` are never scanned, so a reader raises it before claiming.
// When all slots are taken, readers count in `overflow_readers_`, which
// stops all drops while non-zero.
//
// Thread safety: everything may be called from any thread at once.
// Invariants: OldestReadableSequence() <= the sequence of every registered
// reader and <= the last published sequence; 0 while no DB is attached
// (recovery, shutdown).
#pragma once

#include <atomic>
#include <cstdint>

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

 private:
  static constexpr int kSlots = 256;
  static constexpr uint64_t kFree = ~uint64_t{0};

  std::atomic<ROCKSDB_NAMESPACE::DB*> db_{nullptr};
  std::atomic<uint64_t> floors_[kSlots];
  std::atomic<int> high_water_{0};
  std::atomic<uint64_t> overflow_readers_{0};
};

}  // namespace teksdb
