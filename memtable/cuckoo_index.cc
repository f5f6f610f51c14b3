// CuckooIndex implementation: slot encoding, the seqlock-checked scan, the
// lock-free insert, the PENDING/LIVE settlement and breadth-first
// displacement. The protocols are described in cuckoo_index.h.
#include "cuckoo_index.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include "cpu_relax.h"

namespace teksdb {
namespace {

constexpr uint64_t kPointerMask = (uint64_t{1} << 48) - 1;
// Breadth-first search gives up after examining this many buckets.
constexpr size_t kMaxSearchBuckets = 512;
// Times a slow insert makes room and loses the freed slot before it grows.
constexpr int kMakeRoomAttempts = 4;

uint16_t TagOf(uint64_t hash) { return static_cast<uint16_t>(hash >> 48); }
uint64_t Encode(uint16_t tag, const KeyRecord* r) {
  return (uint64_t{tag} << 48) | reinterpret_cast<uintptr_t>(r);
}
uint16_t SlotTag(uint64_t slot) { return static_cast<uint16_t>(slot >> 48); }
KeyRecord* SlotRecord(uint64_t slot) {
  return reinterpret_cast<KeyRecord*>(slot & kPointerMask);
}

// The other bucket of a key: an involution of (bucket, tag) that never maps
// a bucket to itself (the xor-ed value is odd).
size_t AltBucket(size_t bucket, uint16_t tag, size_t mask) {
  const uint64_t mix = ((uint64_t{tag} + 1) * 0xc6a4a7935bd1e995ULL) | 1;
  return (bucket ^ mix) & mask;
}

size_t RoundUpToPowerOfTwo(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

struct CuckooIndex::Table {
  Table(size_t num_buckets, Table* older_table)
      : mask(num_buckets - 1),
        stripe_mask(std::min<size_t>(num_buckets, 4096) - 1),
        older(older_table),
        slots(new std::atomic<uint64_t>[num_buckets * kSlotsPerBucket]),
        stripe_versions(new std::atomic<uint32_t>[stripe_mask + 1]) {
    for (size_t i = 0; i < num_buckets * kSlotsPerBucket; ++i) slots[i].store(0);
    for (size_t i = 0; i <= stripe_mask; ++i) stripe_versions[i].store(0);
  }

  size_t Bytes() const {
    return sizeof(Table) + (mask + 1) * kSlotsPerBucket * sizeof(slots[0]) +
           (stripe_mask + 1) * sizeof(stripe_versions[0]);
  }
  std::atomic<uint64_t>& slot(size_t bucket, int i) const {
    return slots[bucket * kSlotsPerBucket + i];
  }
  std::atomic<uint32_t>& stripe(size_t bucket) const {
    return stripe_versions[bucket & stripe_mask];
  }

  // Calls `visit(record)` for each record in the key's two buckets whose key
  // matches, until it returns true. When nothing stops it, the visits cover
  // one consistent moment: scans are retried while a displacement moves
  // entries between these buckets. Returns whether `visit` stopped it.
  template <typename Visit, typename OnRetry>
  bool ScanKey(const Slice& user_key, uint64_t hash, Visit&& visit,
               OnRetry&& on_retry) const {
    const uint16_t tag = TagOf(hash);
    const size_t b1 = hash & mask;
    const size_t b2 = AltBucket(b1, tag, mask);
    std::atomic<uint32_t>& s1 = stripe(b1);
    std::atomic<uint32_t>& s2 = stripe(b2);
    while (true) {
      const uint32_t v1 = s1.load(std::memory_order_acquire);
      const uint32_t v2 = s2.load(std::memory_order_acquire);
      if (((v1 | v2) & 1) != 0) {
        CpuRelax();
        continue;
      }
      for (size_t b : {b1, b2}) {
        for (int i = 0; i < kSlotsPerBucket; ++i) {
          // Acquire: the record and its key were written before its CAS.
          const uint64_t x = slot(b, i).load(std::memory_order_acquire);
          if (x == 0 || SlotTag(x) != tag) continue;
          KeyRecord* r = SlotRecord(x);
          if (SameBytes(r->user_key(), user_key) && visit(r)) return true;
        }
      }
      // Seqlock read side: order the slot loads before the re-check.
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s1.load(std::memory_order_relaxed) == v1 &&
          s2.load(std::memory_order_relaxed) == v2) {
        return false;
      }
      on_retry();
    }
  }

  // One CAS into any free slot of the key's buckets.
  bool TryClaimFreeSlot(uint64_t hash, KeyRecord* r) {
    const uint16_t tag = TagOf(hash);
    const size_t b1 = hash & mask;
    for (size_t b : {b1, AltBucket(b1, tag, mask)}) {
      for (int i = 0; i < kSlotsPerBucket; ++i) {
        uint64_t expected = 0;
        if (slot(b, i).load(std::memory_order_relaxed) == 0 &&
            slot(b, i).compare_exchange_strong(expected, Encode(tag, r),
                                               std::memory_order_release,
                                               std::memory_order_relaxed)) {
          return true;
        }
      }
    }
    return false;
  }

  // REQUIRES: the displacement mutex. Moves the entry `x` from (from, i) to
  // the empty (to, j). Fails, changing nothing, if (to, j) was taken.
  bool Move(size_t from, int i, size_t to, int j, uint64_t x) {
    std::atomic<uint32_t>& sa = stripe(from);
    std::atomic<uint32_t>& sb = stripe(to);
    // Seqlock write side (the mutex makes this thread the only writer).
    sa.store(sa.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (&sb != &sa) {
      sb.store(sb.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    std::atomic_thread_fence(std::memory_order_release);
    uint64_t expected = 0;
    const bool moved = slot(to, j).compare_exchange_strong(
        expected, x, std::memory_order_release, std::memory_order_relaxed);
    if (moved) slot(from, i).store(0, std::memory_order_release);
    sa.store(sa.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    if (&sb != &sa) {
      sb.store(sb.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    return moved;
  }

  const size_t mask;
  const size_t stripe_mask;
  Table* const older;
  std::unique_ptr<std::atomic<uint64_t>[]> slots;
  std::unique_ptr<std::atomic<uint32_t>[]> stripe_versions;
};

CuckooIndex::CuckooIndex(size_t initial_slots, bool serialize_inserts)
    : serialize_inserts_(serialize_inserts) {
  const size_t buckets =
      std::max<size_t>(2, RoundUpToPowerOfTwo((initial_slots + kSlotsPerBucket - 1) /
                                              kSlotsPerBucket));
  Table* t = new Table(buckets, nullptr);
  memory_usage_.store(t->Bytes(), std::memory_order_relaxed);
  newest_.store(t, std::memory_order_release);
}

CuckooIndex::~CuckooIndex() {
  Table* t = newest_.load(std::memory_order_acquire);
  while (t != nullptr) {
    Table* older = t->older;
    delete t;
    t = older;
  }
}

uint64_t CuckooIndex::Hash(const Slice& user_key) {
  return std::hash<std::string_view>{}(
      std::string_view(user_key.data(), user_key.size()));
}

size_t CuckooIndex::NumTables() const {
  size_t n = 0;
  for (Table* t = newest_.load(std::memory_order_acquire); t; t = t->older) ++n;
  return n;
}

KeyRecord* CuckooIndex::FindLive(const Slice& user_key, uint64_t hash) const {
  KeyRecord* found = nullptr;
  auto take_live = [&](KeyRecord* r) {
    if (r->state() != KeyRecord::kLive) return false;
    found = r;
    return true;
  };
  for (Table* t = newest_.load(std::memory_order_acquire); t; t = t->older) {
    if (t->ScanKey(user_key, hash, take_live, [] {})) return found;
  }
  return nullptr;
}

void CuckooIndex::CollectAll(const Slice& user_key, uint64_t hash,
                             const KeyRecord* exclude, Matches* out) const {
  for (Table* t = newest_.load(std::memory_order_seq_cst); t; t = t->older) {
    const int table_start = out->count;
    auto collect = [&](KeyRecord* r) {
      if (r != exclude && out->count < kMaxMatches) out->records[out->count++] = r;
      return false;
    };
    t->ScanKey(user_key, hash, collect, [&] { out->count = table_start; });
  }
}

KeyRecord* CuckooIndex::FindOrInsert(const Slice& user_key, uint64_t hash,
                                     KeyRecord* candidate) {
  std::unique_lock<std::mutex> serial;
  if (serialize_inserts_) serial = std::unique_lock<std::mutex>(serial_insert_mu_);
  while (true) {
    Matches existing;
    CollectAll(user_key, hash, candidate, &existing);
    bool pending = false;
    for (int i = 0; i < existing.count; ++i) {
      KeyRecord* r = existing.records[i];
      const KeyRecord::State s = r->state();
      if (s == KeyRecord::kLive) return r;
      pending |= (s == KeyRecord::kPending);
    }
    if (pending) {
      // Another writer is settling this key: its outcome decides ours.
      std::this_thread::yield();
      continue;
    }
    candidate->set_state(KeyRecord::kPending);
    Publish(hash, candidate);
    // Two inserters of the key each publish, then scan for the other: a
    // full fence keeps both from missing each other (each would then win).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (Settle(user_key, hash, candidate) == Settlement::kWon) {
      candidate->set_state(KeyRecord::kLive);
      return candidate;
    }
    Remove(hash, candidate);
    candidate->set_state(KeyRecord::kRemoved);
  }
}

// Settlement of a PENDING candidate (see the header). A candidate loses to
// any LIVE record of its key and to any lower-addressed PENDING one; it waits
// out higher-addressed PENDING ones, which will in turn see it and lose.
// Waits only ever point from lower to higher addresses, so none is circular.
CuckooIndex::Settlement CuckooIndex::Settle(const Slice& user_key, uint64_t hash,
                                            KeyRecord* candidate) const {
  for (int spins = 0;; ) {
    Matches others;
    CollectAll(user_key, hash, candidate, &others);
    bool wait = false;
    for (int i = 0; i < others.count; ++i) {
      KeyRecord* r = others.records[i];
      const KeyRecord::State s = r->state();
      if (s == KeyRecord::kLive) return Settlement::kLost;
      if (s == KeyRecord::kPending) {
        if (r < candidate) return Settlement::kLost;
        wait = true;
      }
    }
    if (!wait) return Settlement::kWon;
    // The other inserter may be descheduled: spin briefly, then yield.
    if (++spins < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

void CuckooIndex::Publish(uint64_t hash, KeyRecord* candidate) {
  if (newest_.load(std::memory_order_acquire)->TryClaimFreeSlot(hash, candidate)) {
    return;
  }
  std::lock_guard<std::mutex> lock(displacement_mu_);
  while (true) {
    Table* t = newest_.load(std::memory_order_acquire);
    for (int attempt = 0; attempt < kMakeRoomAttempts; ++attempt) {
      if (t->TryClaimFreeSlot(hash, candidate)) return;
      if (!MakeRoom(t, hash)) break;
    }
    if (t->TryClaimFreeSlot(hash, candidate)) return;
    // `t` is full enough that no cuckoo path was found: chain a larger table.
    Table* bigger = new Table((t->mask + 1) * 2, t);
    memory_usage_.fetch_add(bigger->Bytes(), std::memory_order_relaxed);
    // seq_cst, like the loads in CollectAll: see the fence in FindOrInsert.
    newest_.store(bigger, std::memory_order_seq_cst);
  }
}

void CuckooIndex::Remove(uint64_t hash, KeyRecord* candidate) {
  // A PENDING record is never displaced: it is in exactly the slot it took.
  const uint64_t encoded = Encode(TagOf(hash), candidate);
  for (Table* t = newest_.load(std::memory_order_acquire); t; t = t->older) {
    const size_t b1 = hash & t->mask;
    for (size_t b : {b1, AltBucket(b1, TagOf(hash), t->mask)}) {
      for (int i = 0; i < kSlotsPerBucket; ++i) {
        uint64_t expected = encoded;
        if (t->slot(b, i).compare_exchange_strong(expected, 0,
                                                  std::memory_order_acq_rel)) {
          return;
        }
      }
    }
  }
}

bool CuckooIndex::MakeRoom(Table* t, uint64_t hash) {
  // A breadth-first search over buckets. Each step records the bucket it
  // reached, the step it came from, and which slot of that step's bucket
  // moves into it.
  struct Step {
    size_t bucket;
    int parent;
    int parent_slot;
    uint64_t moving;  // the slot value seen at (parent bucket, parent_slot)
  };
  std::vector<Step> steps;
  steps.reserve(kMaxSearchBuckets);
  const size_t b1 = hash & t->mask;
  steps.push_back({b1, -1, -1, 0});
  steps.push_back({AltBucket(b1, TagOf(hash), t->mask), -1, -1, 0});
  for (size_t head = 0; head < steps.size(); ++head) {
    const Step step = steps[head];
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      if (t->slot(step.bucket, i).load(std::memory_order_acquire) != 0) continue;
      // Found a free slot: shift the path into it, last move first.
      int to = static_cast<int>(head);
      int to_slot = i;
      while (steps[to].parent >= 0) {
        const Step& s = steps[to];
        const size_t from_bucket = steps[s.parent].bucket;
        if (t->slot(from_bucket, s.parent_slot).load(std::memory_order_acquire) !=
                s.moving ||
            !t->Move(from_bucket, s.parent_slot, s.bucket, to_slot, s.moving)) {
          return false;  // an inserter took a slot on the path; search again
        }
        to_slot = s.parent_slot;
        to = s.parent;
      }
      return true;
    }
    for (int i = 0; i < kSlotsPerBucket && steps.size() < kMaxSearchBuckets; ++i) {
      const uint64_t x = t->slot(step.bucket, i).load(std::memory_order_acquire);
      if (x == 0 || SlotRecord(x)->state() != KeyRecord::kLive) continue;
      steps.push_back({AltBucket(step.bucket, SlotTag(x), t->mask),
                       static_cast<int>(head), i, x});
    }
  }
  return false;
}

}  // namespace teksdb
