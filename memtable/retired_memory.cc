// RetiredMemory implementation: blocks wait out two epochs in order, then
// are handed out front to back. The protocol is in retired_memory.h.
#include "retired_memory.h"

namespace teksdb {

namespace {
constexpr size_t kAlignment = 8;
}  // namespace

void RetiredMemory::Retire(char* memory, size_t bytes) {
  const uint64_t epoch = epochs_->PublishCuts();
  std::lock_guard<std::mutex> lock(mu_);
  waiting_.push_back({memory, memory + bytes, epoch});
  holds_any_.store(true, std::memory_order_relaxed);
}

char* RetiredMemory::Take(size_t bytes) {
  if (!holds_any_.load(std::memory_order_relaxed)) return nullptr;
  std::unique_lock<std::mutex> lock(mu_, std::try_to_lock);
  if (!lock.owns_lock()) return nullptr;
  bytes = (bytes + kAlignment - 1) & ~(kAlignment - 1);
  while (Rest() < bytes) {
    // What is left of the block in use is too small. Dropped only if it is
    // small, and only for a block this allocation fits: a large allocation
    // goes to the arena and leaves the blocks to the usual small ones.
    if (Rest() > kMaxDroppedRemainder) return nullptr;
    if (waiting_.empty()) {
      // Kept for smaller allocations unless too small to matter.
      if (Rest() < kMinKeptRemainder) {
        next_ = end_ = nullptr;
        holds_any_.store(false, std::memory_order_relaxed);
      }
      return nullptr;
    }
    if (static_cast<size_t>(waiting_.front().end - waiting_.front().begin) < bytes ||
        !PromoteOldest()) {
      return nullptr;
    }
  }
  char* memory = next_;
  next_ += bytes;
  reused_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  return memory;
}

bool RetiredMemory::PromoteOldest() {
  const Block& oldest = waiting_.front();
  uint64_t epoch = epochs_->current();
  if (oldest.epoch + 2 > epoch) {
    if (++waits_ < kWaitsPerAdvance) return false;
    waits_ = 0;
    // One step per try: the epoch moves on only once no reader of the one
    // before it is left.
    if (!epochs_->TryAdvance(epoch)) return false;
    epoch = epochs_->current();
    if (oldest.epoch + 2 > epoch) return false;
  }
  next_ = oldest.begin;
  end_ = oldest.end;
  waiting_.pop_front();
  return true;
}

}  // namespace teksdb
