// ReaderRegistry: the TeksDB layer's record of every reader that may still
// read the memtables, and so of the oldest sequence any of them reads at
// (docs/DESIGN.md §5). It is the VersionDropPolicy TeksTable consults before it
// drops a shadowed version, on every update of an existing key.
//
// Protocol. A reader registers *before* it takes its sequence: it claims a
// slot (holding 0, "blocks every drop"), then reads the last published
// sequence P and stores min(P, cap) as its floor. RocksDB then gives it a
// sequence >= P (published sequences only grow), or reads at its snapshot
// (cap). A scan reads the last published sequence first and the slots
// after. Slot accesses are seq_cst, and RocksDB's read of its last sequence
// (acquire only) is ordered by a seq_cst fence on both sides, so a
// registration a scan does not see was made after the scan read the
// published sequence, and that reader's floor cannot be below the scan's
// result. Slots beyond `high_water_` are never scanned, so a reader raises
// it before claiming.
//
// The watermark. While no reader is registered (`registered_` is 0, read
// after the published sequence with the same fence protocol as a scan) the
// answer is the published sequence itself. Otherwise writers do not scan:
// they read `watermark_`, the result of the last scan. It stays a valid
// answer, because every reader registered after that scan has a floor >=
// the published sequence the scan read, and the published sequence only
// grows. Registrations with a floor below it
// lower it (a CAS, so a scan finishing concurrently cannot raise it back):
// Register(cap) with a snapshot's sequence, where the snapshot is already
// covered by a live registration made before it was taken (the layer's
// GetSnapshot, a transaction's lifetime), and Register(0) for a recovered
// prepared transaction. A scan (O(slots in use)) runs, one at a time, only
// when the published sequence has moved ahead of the last scan's by more
// than the slots it scans, or when a reader at the watermark went away
// (or any reader, while a deferred hold waits for readers to move on):
// amortized O(1) per published sequence or released reader.
//
// Slots live in blocks of doubling size, appended as readers need them and
// never freed while the registry lives, so any number of readers can
// register. Only when a block cannot be allocated does a reader go without
// a slot: it counts in `overflow_readers_`, and scans then answer 0 (drops
// stop) until it is gone. A deferred hold (HoldUntilReadersReach) keeps its
// slot's floor until every other floor has reached its target; holds are
// freed by scans.
//
// Stripes (MayReadBetween). A reader may read anywhere at or above its
// floor unless the layer bounds it: a snapshot's reader reads at its
// sequence only (Registration::Pin: floor and ceiling both there), an
// iterator without one at a sequence no later than the one published once
// it was made (ReadsAtMost). Each scan also publishes what it saw: the
// bounded readers' intervals, sorted and merged into at most
// kMaxStripeReaders,
// the lowest floor of every other reader (each may read anywhere above
// it), the published sequence it read first and the watermark it set, in
// a seqlock that writers read without waiting. A reader the scan missed
// registered after that published sequence was read, so it reads at or
// above it (the protocol above), unless its registration lowered the
// watermark: so the answer is "no reader in [lo, hi)" only when hi is at
// most that published sequence, no unbounded floor lies below hi, no
// bounded interval meets [lo, hi), and the watermark is still the scan's.
// Overflow readers, or more bounded intervals than fit, make every answer
// "maybe" (a held snapshot then keeps what it keeps under the watermark
// alone). Pin stores the ceiling before the floor, Unbound clears it
// before the reader moves on, and Release clears it before it frees the
// slot, so a scan reading a slot's floor and then its ceiling sees an
// interval holding every sequence the reader reads at, or the slot of a
// reader registered after the scan began.
//
// Thread safety: everything may be called from any thread at once.
// Invariants: OldestReadableSequence() <= the sequence of every registered
// reader and <= the last published sequence; 0 while nothing is attached
// (recovery, shutdown).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "rocksdb/db.h"
#include "teksdb/teks_table.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::SequenceNumber;

// RocksDB's kMaxSequenceNumber (db/dbformat.h, not installed).
constexpr SequenceNumber kMaxSequenceNumber = (uint64_t{1} << 56) - 1;

// Where the registry reads the last published sequence: the DB, or a test.
class PublishedSequenceSource {
 public:
  virtual ~PublishedSequenceSource() = default;
  // Never decreases. Read with at least acquire semantics.
  virtual SequenceNumber LastPublishedSequence() const = 0;
};

class ReaderRegistry : public VersionDropPolicy {
 private:
  struct Slot {
    std::atomic<uint64_t> floor;
    // For a slot given to HoldUntilReadersReach: the sequence readers must
    // reach before it is freed; kFree for an ordinary reader.
    std::atomic<uint64_t> release_at;
    // For a bounded reader, the highest sequence it reads at (a pinned
    // one's floor); kFree for one that may read anywhere above its floor.
    std::atomic<uint64_t> ceiling;
  };

 public:
  class Registration {
   public:
    Registration() = default;
    Registration(Registration&& other) noexcept { *this = std::move(other); }
    Registration& operator=(Registration&& other) noexcept;
    ~Registration() { Release(); }
    bool active() const { return registry_ != nullptr; }
    // Bounds the sequences the reader reads at from above (its slot's
    // ceiling). REQUIRES: it reads at `ceiling` or below, until Unbound,
    // and its floor is <= `ceiling`.
    void ReadsAtMost(SequenceNumber ceiling);
    // Pins the reader at `seq`: raises its floor to it and bounds it there.
    // REQUIRES: it reads at `seq` and nowhere else (a snapshot, or a read
    // at one), and its floor is <= `seq`.
    void Pin(SequenceNumber seq);
    // Takes the bound away: the reader may read anywhere above its floor
    // again (an iterator about to be refreshed). Call before it does.
    void Unbound();
    void Release();

   private:
    friend class ReaderRegistry;
    Registration(ReaderRegistry* registry, Slot* slot) : registry_(registry), slot_(slot) {}
    ReaderRegistry* registry_ = nullptr;
    Slot* slot_ = nullptr;  // nullptr: counted in overflow_readers_
  };

  // At most `max_slots` readers hold a slot at once; the others overflow
  // (see above). The default is every slot the blocks can hold; a smaller
  // bound stands in for an allocation that fails, for tests.
  static constexpr size_t kNoSlotLimit = ~size_t{0};
  explicit ReaderRegistry(size_t max_slots = kNoSlotLimit);
  ~ReaderRegistry() override;
  ReaderRegistry(const ReaderRegistry&) = delete;
  ReaderRegistry& operator=(const ReaderRegistry&) = delete;

  // The DB whose last published sequence bounds drops; nullptr detaches.
  void AttachDB(ROCKSDB_NAMESPACE::DB* db);
  // The same for any source; `source` must outlive its attachment.
  void Attach(const PublishedSequenceSource* source);

  // Registers a reader that will read at >= the last published sequence or
  // at `cap` (its snapshot), whichever is lower.
  Registration Register(SequenceNumber cap = kMaxSequenceNumber);

  // The watermark, rescanned first when due (see the file comment).
  SequenceNumber OldestReadableSequence() override;
  // Whether a reader may read in [lo, hi), from the last scan's stripes
  // (see the file comment): O(log kMaxStripeReaders), never waits.
  bool MayReadBetween(SequenceNumber lo, SequenceNumber hi) override;
  // The most bounded intervals a scan keeps; more make MayReadBetween
  // answer "maybe" until fewer are left.
  static constexpr size_t kMaxStripeReaders = 64;

  // The attached source's last published sequence (0 if none).
  SequenceNumber PublishedSequence() const;

  // Keeps `hold`'s floor until every registered reader's floor, and the
  // published sequence, have reached `seq`; then frees it. For a prepared
  // transaction's hold after its commit: readers that began before the
  // commit may read below it and must keep seeing what it shadows.
  void HoldUntilReadersReach(Registration hold, SequenceNumber seq);

  // Slots scanned by each scan so far (the most ever in use at once).
  size_t ScannedSlots() const { return high_water_.load(std::memory_order_relaxed); }
  // Scans run so far: with the slots they scan, the registry's whole cost
  // beyond O(1) per call.
  uint64_t Scans() const { return scans_.load(std::memory_order_relaxed); }

 private:
  class DBSequenceSource : public PublishedSequenceSource {
   public:
    SequenceNumber LastPublishedSequence() const override;
    std::atomic<ROCKSDB_NAMESPACE::DB*> db{nullptr};
  };

  static constexpr size_t kFirstBlockSlots = 64;
  // Block b holds kFirstBlockSlots << b slots: about 4 billion in all.
  static constexpr int kMaxBlocks = 26;
  static constexpr uint64_t kFree = ~uint64_t{0};

  // The slot at `index`, allocating its block if needed; nullptr if that
  // fails.
  Slot* SlotAt(size_t index);
  // What the last scan saw, for MayReadBetween: written under scan_mu_
  // inside a seqlock (`version` odd while it changes), read without it.
  struct Stripes {
    static constexpr uint32_t kUnusable = ~uint32_t{0};
    std::atomic<uint64_t> version{0};
    std::atomic<uint64_t> published{0};
    std::atomic<uint64_t> watermark{0};
    // The lowest floor of the unbounded readers (kFree: none).
    std::atomic<uint64_t> open_floor{0};
    // Bounded intervals in use, or kUnusable.
    std::atomic<uint32_t> count{kUnusable};
    // Sorted, disjoint, inclusive: [floor[i], ceiling[i]].
    std::atomic<uint64_t> floor[kMaxStripeReaders];
    std::atomic<uint64_t> ceiling[kMaxStripeReaders];
  };
  // A bounded reader's interval, as a scan collects them.
  struct PinnedInterval {
    uint64_t floor;
    uint64_t ceiling;
  };

  // REQUIRES: scan_mu_ held.
  SequenceNumber Scan(const PublishedSequenceSource* source);
  // Sorts `pinned[0, n)` and merges the intervals that meet or touch;
  // returns how many are left.
  static size_t SortAndMerge(PinnedInterval* pinned, size_t n);
  // REQUIRES: scan_mu_ held. Publishes `pinned[0, n)` (sorted, disjoint),
  // or "unusable" if `usable` is false.
  void PublishStripes(bool usable, const PinnedInterval* pinned, size_t n,
                      SequenceNumber published, SequenceNumber open_floor,
                      SequenceNumber watermark);
  void LowerWatermark(SequenceNumber floor);
  void ReaderLeft(uint64_t floor);
  bool PruneOverflowHolds(SequenceNumber readers, uint64_t overflow);

  DBSequenceSource db_source_;
  std::atomic<const PublishedSequenceSource*> source_{nullptr};

  const size_t max_slots_;
  std::atomic<Slot*> blocks_[kMaxBlocks];
  std::mutex grow_mu_;  // serializes block allocation
  std::atomic<size_t> high_water_{0};

  // Registrations alive, slot or not, deferred holds included.
  std::atomic<uint64_t> registered_{0};
  std::atomic<uint64_t> holds_{0};  // deferred holds not yet freed
  std::atomic<uint64_t> watermark_{0};
  // Bumped when a reader at or below the watermark, or a hold, goes away:
  // the watermark may then advance without the published sequence moving.
  std::atomic<uint64_t> departures_{0};
  // The published sequence and departures_ the last scan saw.
  std::atomic<uint64_t> scanned_at_{0};
  std::atomic<uint64_t> scanned_departures_{0};
  std::atomic<uint64_t> scans_{0};
  std::mutex scan_mu_;  // one scan at a time; writers never wait for it
  Stripes stripes_;

  std::atomic<uint64_t> overflow_readers_{0};
  // Deferred holds that got no slot: their targets, each also counted in
  // overflow_readers_ until freed.
  std::mutex overflow_holds_mu_;
  std::vector<SequenceNumber> overflow_hold_targets_;
};

}  // namespace teksdb
