// ReaderRegistry implementation (protocol and watermark in reader_registry.h).
#include "teksdb/reader_registry.h"

#include <algorithm>
#include <cassert>
#include <new>

namespace teksdb {

ReaderRegistry::ReaderRegistry(size_t max_slots) : max_slots_(max_slots) {
  for (auto& block : blocks_) block.store(nullptr, std::memory_order_relaxed);
}

ReaderRegistry::~ReaderRegistry() {
  for (auto& block : blocks_) delete[] block.load(std::memory_order_relaxed);
}

SequenceNumber ReaderRegistry::DBSequenceSource::LastPublishedSequence() const {
  ROCKSDB_NAMESPACE::DB* d = db.load(std::memory_order_seq_cst);
  return d != nullptr ? d->GetLatestSequenceNumber() : 0;
}

void ReaderRegistry::AttachDB(ROCKSDB_NAMESPACE::DB* db) {
  if (db == nullptr) {
    Attach(nullptr);
    db_source_.db.store(nullptr, std::memory_order_seq_cst);
  } else {
    db_source_.db.store(db, std::memory_order_seq_cst);
    Attach(&db_source_);
  }
}

void ReaderRegistry::Attach(const PublishedSequenceSource* source) {
  // Under the scan lock, so no scan of the previous source publishes after.
  std::lock_guard<std::mutex> lock(scan_mu_);
  watermark_.store(0, std::memory_order_seq_cst);
  scanned_at_.store(0, std::memory_order_relaxed);
  PublishStripes(false, nullptr, 0, 0, 0, 0);
  source_.store(source, std::memory_order_seq_cst);
}

SequenceNumber ReaderRegistry::PublishedSequence() const {
  const PublishedSequenceSource* source = source_.load(std::memory_order_seq_cst);
  return source != nullptr ? source->LastPublishedSequence() : 0;
}

ReaderRegistry::Slot* ReaderRegistry::SlotAt(size_t index) {
  if (index >= max_slots_) return nullptr;
  int b = 0;
  size_t first = 0;  // index of block b's first slot
  while (index >= first + (kFirstBlockSlots << b)) {
    first += kFirstBlockSlots << b;
    if (++b == kMaxBlocks) return nullptr;
  }
  // Acquire: the block's slots were initialized before it was published.
  Slot* block = blocks_[b].load(std::memory_order_acquire);
  if (block == nullptr) {
    std::lock_guard<std::mutex> lock(grow_mu_);
    block = blocks_[b].load(std::memory_order_acquire);
    if (block == nullptr) {
      const size_t n = kFirstBlockSlots << b;
      block = new (std::nothrow) Slot[n];
      if (block == nullptr) return nullptr;
      for (size_t i = 0; i < n; ++i) {
        block[i].floor.store(kFree, std::memory_order_relaxed);
        block[i].release_at.store(kFree, std::memory_order_relaxed);
        block[i].ceiling.store(kFree, std::memory_order_relaxed);
      }
      blocks_[b].store(block, std::memory_order_release);
    }
  }
  return &block[index - first];
}

ReaderRegistry::Registration ReaderRegistry::Register(SequenceNumber cap) {
  // Counted before it claims (and reads the published sequence), so that a
  // writer that sees no reader knows any registration it missed has a floor
  // >= the published sequence it read (OldestReadableSequence).
  registered_.fetch_add(1, std::memory_order_seq_cst);
  for (size_t i = 0;; ++i) {
    Slot* slot = SlotAt(i);
    if (slot == nullptr) break;
    if (slot->floor.load(std::memory_order_relaxed) != kFree) continue;
    size_t hw = high_water_.load(std::memory_order_seq_cst);
    while (hw < i + 1 && !high_water_.compare_exchange_weak(hw, i + 1)) {
    }
    uint64_t expected = kFree;
    if (!slot->floor.compare_exchange_strong(expected, 0)) continue;
    // RocksDB reads its last sequence with acquire only: the fence orders
    // the claim before that read (paired with Scan's).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const SequenceNumber floor = std::min(PublishedSequence(), cap);
    slot->floor.store(floor, std::memory_order_seq_cst);
    LowerWatermark(floor);
    return Registration(this, slot);
  }
  overflow_readers_.fetch_add(1, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return Registration(this, nullptr);
}

// A CAS loop, so that it and a concurrent scan's publication are ordered: a
// scan that missed this floor fails its CAS or is lowered after.
void ReaderRegistry::LowerWatermark(SequenceNumber floor) {
  uint64_t w = watermark_.load(std::memory_order_seq_cst);
  while (floor < w && !watermark_.compare_exchange_weak(w, floor)) {
  }
}

void ReaderRegistry::ReaderLeft(uint64_t floor) {
  registered_.fetch_sub(1, std::memory_order_seq_cst);
  if (floor <= watermark_.load(std::memory_order_relaxed) ||
      holds_.load(std::memory_order_relaxed) != 0) {
    departures_.fetch_add(1, std::memory_order_relaxed);
  }
}

SequenceNumber ReaderRegistry::OldestReadableSequence() {
  const PublishedSequenceSource* source = source_.load(std::memory_order_seq_cst);
  if (source == nullptr) return 0;
  const SequenceNumber published = source->LastPublishedSequence();
#ifdef TEKSDB_FAULT_DROP_IGNORES_READERS
  // A deliberately broken build (CMake TEKSDB_FAULT_INJECTION=ON, never a
  // release): the horizon ignores every registered reader, snapshots
  // included, so versions they still read are dropped. It exists to show
  // that tools/teks_stress catches such a bug (docs/RELIABILITY.md).
  return published;
#endif
  // Orders that read before the count's (paired with Register's fence).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (registered_.load(std::memory_order_seq_cst) == 0) return published;
  const SequenceNumber watermark = watermark_.load(std::memory_order_seq_cst);
  // Due when the published sequence has run ahead of the last scan by more
  // than a scan costs, or when the reader holding the watermark may be gone.
  const bool due = published > scanned_at_.load(std::memory_order_relaxed) +
                                   high_water_.load(std::memory_order_relaxed) ||
                   departures_.load(std::memory_order_relaxed) !=
                       scanned_departures_.load(std::memory_order_relaxed);
  if (!due) return watermark;
  std::unique_lock<std::mutex> lock(scan_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return watermark;
  return Scan(source_.load(std::memory_order_seq_cst));
}

// Readers first: the published sequence and every reader's floor give the
// oldest sequence a reader reads at. Then each deferred hold either still
// protects such a reader (its target is above that) and counts, or is freed.
SequenceNumber ReaderRegistry::Scan(const PublishedSequenceSource* source) {
  if (source == nullptr) return 0;  // detached while this caller waited
  scans_.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = watermark_.load(std::memory_order_seq_cst);
  const uint64_t departures = departures_.load(std::memory_order_relaxed);
  const SequenceNumber published = source->LastPublishedSequence();
  SequenceNumber readers = published;
  // Readers that may read anywhere above their floor (deferred holds
  // included), and the pinned ones, for the stripes.
  SequenceNumber open_floor = kFree;
  PinnedInterval pinned[kMaxStripeReaders + 1];
  size_t pinned_count = 0;
  bool pinned_fit = true;
  // Orders that read before the slot reads (paired with Register's fence).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const uint64_t overflow = overflow_readers_.load(std::memory_order_seq_cst);
  const size_t n = high_water_.load(std::memory_order_seq_cst);
  for (size_t i = 0; i < n; ++i) {
    Slot* slot = SlotAt(i);  // allocated: high_water_ is raised only after
    const uint64_t floor = slot->floor.load(std::memory_order_seq_cst);
    if (floor == kFree) continue;
    const bool held = slot->release_at.load(std::memory_order_seq_cst) != kFree;
    if (!held) readers = std::min<uint64_t>(readers, floor);
    const uint64_t ceiling = slot->ceiling.load(std::memory_order_seq_cst);
    if (held || ceiling == kFree || ceiling < floor) {
      open_floor = std::min<uint64_t>(open_floor, floor);
      continue;
    }
    if (!pinned_fit) continue;
    pinned[pinned_count++] = PinnedInterval{floor, ceiling};
    // One too many: merged, they may fit (a sort of 65 at most per slot).
    if (pinned_count > kMaxStripeReaders) {
      pinned_count = SortAndMerge(pinned, pinned_count);
      pinned_fit = pinned_count <= kMaxStripeReaders;
    }
  }
  pinned_count = SortAndMerge(pinned, pinned_count);
  SequenceNumber oldest = readers;
  if (overflow != 0 && !PruneOverflowHolds(readers, overflow)) oldest = 0;
  for (size_t i = 0; i < n; ++i) {
    Slot* slot = SlotAt(i);
    uint64_t target = slot->release_at.load(std::memory_order_seq_cst);
    if (target == kFree) continue;
    if (readers >= target) {
      // The scan lock makes this the only one freeing holds; until it is
      // free the slot counts as an ordinary reader at its floor, which is
      // only more conservative.
      slot->release_at.store(kFree, std::memory_order_seq_cst);
      slot->ceiling.store(kFree, std::memory_order_seq_cst);
      slot->floor.store(kFree, std::memory_order_seq_cst);
      holds_.fetch_sub(1, std::memory_order_relaxed);
      registered_.fetch_sub(1, std::memory_order_seq_cst);
    } else {
      oldest = std::min<uint64_t>(oldest, slot->floor.load(std::memory_order_seq_cst));
    }
  }
  scanned_at_.store(published, std::memory_order_relaxed);
  scanned_departures_.store(departures, std::memory_order_relaxed);
  // Fails only if a registration lowered the watermark meanwhile: keep it
  // (and the stripes, published with `oldest`, are then not used).
  watermark_.compare_exchange_strong(before, oldest);
  PublishStripes(overflow == 0 && pinned_fit, pinned, pinned_count, published, open_floor,
                 oldest);
  return watermark_.load(std::memory_order_seq_cst);
}

size_t ReaderRegistry::SortAndMerge(PinnedInterval* pinned, size_t n) {
  std::sort(pinned, pinned + n,
            [](const PinnedInterval& a, const PinnedInterval& b) { return a.floor < b.floor; });
  size_t merged = 0;
  for (size_t i = 0; i < n; ++i) {
    if (merged > 0 && pinned[i].floor <= pinned[merged - 1].ceiling + 1) {
      pinned[merged - 1].ceiling = std::max(pinned[merged - 1].ceiling, pinned[i].ceiling);
    } else {
      pinned[merged++] = pinned[i];
    }
  }
  return merged;
}

void ReaderRegistry::PublishStripes(bool usable, const PinnedInterval* pinned, size_t n,
                                    SequenceNumber published, SequenceNumber open_floor,
                                    SequenceNumber watermark) {
  const size_t merged = usable ? n : 0;
  Stripes& s = stripes_;
  const uint64_t version = s.version.load(std::memory_order_relaxed);
  s.version.store(version + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  s.published.store(published, std::memory_order_relaxed);
  s.watermark.store(watermark, std::memory_order_relaxed);
  s.open_floor.store(open_floor, std::memory_order_relaxed);
  s.count.store(usable ? static_cast<uint32_t>(merged) : Stripes::kUnusable,
                std::memory_order_relaxed);
  for (size_t i = 0; i < merged; ++i) {
    s.floor[i].store(pinned[i].floor, std::memory_order_relaxed);
    s.ceiling[i].store(pinned[i].ceiling, std::memory_order_relaxed);
  }
  s.version.store(version + 2, std::memory_order_release);
}

bool ReaderRegistry::MayReadBetween(SequenceNumber lo, SequenceNumber hi) {
  if (lo >= hi) return false;
  if (source_.load(std::memory_order_seq_cst) == nullptr) return true;
  const Stripes& s = stripes_;
  const uint64_t version = s.version.load(std::memory_order_acquire);
  if ((version & 1) != 0) return true;  // a scan is publishing
  const uint32_t count = s.count.load(std::memory_order_relaxed);
  bool may = count == Stripes::kUnusable || hi > s.published.load(std::memory_order_relaxed) ||
             hi > s.open_floor.load(std::memory_order_relaxed);
  const uint64_t watermark = s.watermark.load(std::memory_order_relaxed);
  if (!may) {
    // The first interval ending at or above lo; it meets [lo, hi) if it
    // starts below hi (the intervals are disjoint and sorted).
    size_t first = 0, end = std::min<size_t>(count, kMaxStripeReaders);
    while (first < end) {
      const size_t mid = first + (end - first) / 2;
      if (s.ceiling[mid].load(std::memory_order_relaxed) < lo) {
        first = mid + 1;
      } else {
        end = mid;
      }
    }
    may = first < count && s.floor[first].load(std::memory_order_relaxed) < hi;
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (s.version.load(std::memory_order_relaxed) != version) return true;
  // A registration lowered the watermark since: a reader the scan missed
  // may read below its published sequence.
  return may || watermark_.load(std::memory_order_seq_cst) < watermark;
}

// True when, after freeing the deferred holds whose readers have moved on,
// no reader or hold without a slot remains (otherwise nothing may drop).
bool ReaderRegistry::PruneOverflowHolds(SequenceNumber readers, uint64_t overflow) {
  std::lock_guard<std::mutex> lock(overflow_holds_mu_);
  auto& targets = overflow_hold_targets_;
  const uint64_t deferred = targets.size();
  // Live overflow readers (not deferred holds) have no floor to compare.
  if (overflow > deferred) return false;
  const auto reached = std::remove_if(targets.begin(), targets.end(),
                                      [&](SequenceNumber t) { return readers >= t; });
  const uint64_t freed = targets.end() - reached;
  targets.erase(reached, targets.end());
  overflow_readers_.fetch_sub(freed, std::memory_order_seq_cst);
  holds_.fetch_sub(freed, std::memory_order_relaxed);
  registered_.fetch_sub(freed, std::memory_order_seq_cst);
  return targets.empty();
}

void ReaderRegistry::HoldUntilReadersReach(Registration hold, SequenceNumber seq) {
  if (!hold.active()) return;
  assert(hold.registry_ == this);
  holds_.fetch_add(1, std::memory_order_relaxed);
  if (hold.slot_ != nullptr) {
    hold.slot_->release_at.store(seq, std::memory_order_seq_cst);
  } else {
    std::lock_guard<std::mutex> lock(overflow_holds_mu_);
    overflow_hold_targets_.push_back(seq);
  }
  hold.registry_ = nullptr;  // the registry owns the slot (or count) now
  departures_.fetch_add(1, std::memory_order_relaxed);
}

ReaderRegistry::Registration& ReaderRegistry::Registration::operator=(
    Registration&& other) noexcept {
  if (this != &other) {
    Release();
    registry_ = other.registry_;
    slot_ = other.slot_;
    other.registry_ = nullptr;
  }
  return *this;
}

void ReaderRegistry::Registration::ReadsAtMost(SequenceNumber ceiling) {
  if (registry_ == nullptr || slot_ == nullptr) return;
  assert(slot_->floor.load(std::memory_order_relaxed) <= ceiling);
  slot_->ceiling.store(ceiling, std::memory_order_seq_cst);
}

void ReaderRegistry::Registration::Pin(SequenceNumber seq) {
  if (registry_ == nullptr || slot_ == nullptr) return;
  // The ceiling first: a scan reads the floor, then the ceiling.
  ReadsAtMost(seq);
  std::atomic<uint64_t>& floor = slot_->floor;
  floor.store(std::max<uint64_t>(floor.load(std::memory_order_relaxed), seq),
              std::memory_order_seq_cst);
}

void ReaderRegistry::Registration::Unbound() {
  if (registry_ == nullptr || slot_ == nullptr) return;
  slot_->ceiling.store(kFree, std::memory_order_seq_cst);
  // RocksDB reads the sequence the reader moves to with acquire only: the
  // fence orders the store before that read, as Register's does.
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void ReaderRegistry::Registration::Release() {
  if (registry_ == nullptr) return;
  if (slot_ != nullptr) {
    const uint64_t floor = slot_->floor.load(std::memory_order_relaxed);
    // Before the slot is free: its next reader starts unpinned.
    slot_->ceiling.store(kFree, std::memory_order_relaxed);
    slot_->floor.store(kFree, std::memory_order_release);
    registry_->ReaderLeft(floor);
  } else {
    registry_->overflow_readers_.fetch_sub(1, std::memory_order_release);
    registry_->ReaderLeft(0);
  }
  registry_ = nullptr;
}

}  // namespace teksdb
