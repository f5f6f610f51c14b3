// KeyLocks: teks_stress's locks over the keys, one mutex per stripe of
// kStripe consecutive keys of a column family. A writer holds the stripes
// of every key it writes from before it pushes the oracle's entries until
// the DB acknowledged (or rolled back) the write, so while a reader holds a
// key's stripe the oracle's newest entry is exactly what the DB must
// return. LockSet takes any set of stripes in one global order (column
// family, stripe), so holders of several never deadlock.
//
// Thread safety: LockSet is one thread's; KeyLocks is shared.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace teks_stress {

class KeyLocks {
 public:
  static constexpr uint32_t kStripe = 16;

  KeyLocks(uint32_t column_families, uint32_t keys_per_cf)
      : stripes_per_cf_((keys_per_cf + kStripe - 1) / kStripe),
        mutexes_(new std::mutex[uint64_t{column_families} * stripes_per_cf_]) {}

  // The global index of the stripe holding (cf, key).
  uint64_t StripeOf(uint32_t cf, uint32_t key) const {
    return uint64_t{cf} * stripes_per_cf_ + key / kStripe;
  }
  std::mutex& At(uint64_t stripe) { return mutexes_[stripe]; }

 private:
  const uint32_t stripes_per_cf_;
  std::unique_ptr<std::mutex[]> mutexes_;
};

// Holds the stripes added before Lock() until destroyed.
class LockSet {
 public:
  explicit LockSet(KeyLocks* locks) : locks_(locks) {}
  ~LockSet() {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it) locks_->At(*it).unlock();
  }
  LockSet(const LockSet&) = delete;
  LockSet& operator=(const LockSet&) = delete;

  void Add(uint32_t cf, uint32_t key) { held_.push_back(locks_->StripeOf(cf, key)); }
  // REQUIRES: called once, after every Add.
  void Lock() {
    std::sort(held_.begin(), held_.end());
    held_.erase(std::unique(held_.begin(), held_.end()), held_.end());
    for (uint64_t s : held_) locks_->At(s).lock();
  }

 private:
  KeyLocks* const locks_;
  std::vector<uint64_t> held_;
};

}  // namespace teks_stress
