// ReaderRegistry implementation (protocol in reader_registry.h).
#include "teksdb/reader_registry.h"

#include <algorithm>

namespace teksdb {

ReaderRegistry::ReaderRegistry() {
  for (auto& floor : floors_) floor.store(kFree, std::memory_order_relaxed);
  for (auto& at : release_at_) at.store(kFree, std::memory_order_relaxed);
}

SequenceNumber ReaderRegistry::PublishedSequence() const {
  ROCKSDB_NAMESPACE::DB* db = db_.load(std::memory_order_seq_cst);
  return db != nullptr ? db->GetLatestSequenceNumber() : 0;
}

void ReaderRegistry::HoldUntilReadersReach(Registration hold, SequenceNumber seq) {
  if (!hold.active()) return;
  if (hold.slot_ >= 0) {
    release_at_[hold.slot_].store(seq, std::memory_order_seq_cst);
  } else {
    std::lock_guard<std::mutex> lock(overflow_holds_mu_);
    overflow_hold_targets_.push_back(seq);
  }
  hold.registry_ = nullptr;  // the registry owns the slot (or count) now
}

ReaderRegistry::Registration ReaderRegistry::Register(SequenceNumber cap) {
  for (int i = 0; i < kSlots; ++i) {
    if (floors_[i].load(std::memory_order_relaxed) != kFree) continue;
    int hw = high_water_.load(std::memory_order_seq_cst);
    while (hw < i + 1 && !high_water_.compare_exchange_weak(hw, i + 1)) {
    }
    uint64_t expected = kFree;
    if (!floors_[i].compare_exchange_strong(expected, 0)) continue;
    // RocksDB reads its last sequence with acquire only: the fence orders
    // the claim before that read (paired with OldestReadableSequence's).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    floors_[i].store(std::min(PublishedSequence(), cap), std::memory_order_seq_cst);
    return Registration(this, i);
  }
  overflow_readers_.fetch_add(1, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return Registration(this, -1);
}

// Readers first: the published sequence and every reader's floor give the
// oldest sequence a reader reads at. Then each deferred hold either still
// protects such a reader (its target is above that) and counts, or is freed.
SequenceNumber ReaderRegistry::OldestReadableSequence() const {
  ROCKSDB_NAMESPACE::DB* db = db_.load(std::memory_order_seq_cst);
  if (db == nullptr) return 0;
  SequenceNumber readers = db->GetLatestSequenceNumber();
  // Orders that read before the slot reads (paired with Register's fence).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const uint64_t overflow = overflow_readers_.load(std::memory_order_seq_cst);
  const int n = high_water_.load(std::memory_order_seq_cst);
  for (int i = 0; i < n; ++i) {
    const uint64_t floor = floors_[i].load(std::memory_order_seq_cst);
    if (floor != kFree && release_at_[i].load(std::memory_order_seq_cst) == kFree) {
      readers = std::min<uint64_t>(readers, floor);
    }
  }
  if (overflow != 0 && !PruneOverflowHolds(readers, overflow)) return 0;
  SequenceNumber oldest = readers;
  for (int i = 0; i < n; ++i) {
    uint64_t target = release_at_[i].load(std::memory_order_seq_cst);
    if (target == kFree) continue;
    if (readers >= target) {
      // One caller wins the slot and frees it; until then it counts as an
      // ordinary reader at its floor, which is only more conservative.
      if (release_at_[i].compare_exchange_strong(target, kFree)) {
        floors_[i].store(kFree, std::memory_order_seq_cst);
      }
    } else {
      oldest = std::min<uint64_t>(oldest, floors_[i].load(std::memory_order_seq_cst));
    }
  }
  return oldest;
}

// True when, after freeing the deferred holds whose readers have moved on,
// no reader or hold without a slot remains (otherwise nothing may drop).
bool ReaderRegistry::PruneOverflowHolds(SequenceNumber readers, uint64_t overflow) const {
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
  return targets.empty();
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

void ReaderRegistry::Registration::RaiseFloor(SequenceNumber seq) {
  if (registry_ == nullptr || slot_ < 0) return;
  std::atomic<uint64_t>& floor = registry_->floors_[slot_];
  floor.store(std::max<uint64_t>(floor.load(std::memory_order_relaxed), seq),
              std::memory_order_seq_cst);
}

void ReaderRegistry::Registration::Release() {
  if (registry_ == nullptr) return;
  if (slot_ >= 0) {
    registry_->floors_[slot_].store(kFree, std::memory_order_release);
  } else {
    registry_->overflow_readers_.fetch_sub(1, std::memory_order_release);
  }
  registry_ = nullptr;
}

}  // namespace teksdb
