// ReaderRegistry implementation (protocol in reader_registry.h).
#include "reader_registry.h"

#include <algorithm>

namespace teksdb {

ReaderRegistry::ReaderRegistry() {
  for (auto& floor : floors_) floor.store(kFree, std::memory_order_relaxed);
}

ReaderRegistry::Registration ReaderRegistry::Register(SequenceNumber cap) {
  ROCKSDB_NAMESPACE::DB* db = db_.load(std::memory_order_seq_cst);
  for (int i = 0; i < kSlots; ++i) {
    if (floors_[i].load(std::memory_order_relaxed) != kFree) continue;
    int hw = high_water_.load(std::memory_order_seq_cst);
    while (hw < i + 1 && !high_water_.compare_exchange_weak(hw, i + 1)) {
    }
    uint64_t expected = kFree;
    if (!floors_[i].compare_exchange_strong(expected, 0)) continue;
    const SequenceNumber published = db != nullptr ? db->GetLatestSequenceNumber() : 0;
    floors_[i].store(std::min(published, cap), std::memory_order_seq_cst);
    return Registration(this, i);
  }
  overflow_readers_.fetch_add(1, std::memory_order_seq_cst);
  return Registration(this, -1);
}

SequenceNumber ReaderRegistry::OldestReadableSequence() const {
  ROCKSDB_NAMESPACE::DB* db = db_.load(std::memory_order_seq_cst);
  if (db == nullptr) return 0;
  SequenceNumber oldest = db->GetLatestSequenceNumber();
  if (overflow_readers_.load(std::memory_order_seq_cst) != 0) return 0;
  const int n = high_water_.load(std::memory_order_seq_cst);
  for (int i = 0; i < n; ++i) {
    oldest = std::min<uint64_t>(oldest, floors_[i].load(std::memory_order_seq_cst));
  }
  return oldest;
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
