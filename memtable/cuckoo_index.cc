// CuckooIndex implementation: slot encoding, the seqlock-checked scan, the
// lock-free insert, the PENDING/LIVE settlement, breadth-first displacement,
// resizing and the overflow. The protocols are described in cuckoo_index.h.
#include "cuckoo_index.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <new>
#include <thread>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cpu_relax.h"

namespace teksdb {
namespace {

constexpr uint64_t kPointerMask = (uint64_t{1} << 48) - 1;
// Bit 0 of a slot (records are 8-byte aligned): frozen by a resize.
constexpr uint64_t kFrozen = 1;
// Breadth-first search gives up after examining this many buckets.
constexpr size_t kMaxSearchBuckets = 512;
// Times a slow insert makes room and loses the freed slot before it grows.
constexpr int kMakeRoomAttempts = 4;

std::atomic<bool> forced_hash_on{false};
std::atomic<uint64_t> forced_hash{0};

uint16_t TagOf(uint64_t hash) { return static_cast<uint16_t>(hash >> 48); }
uint64_t Encode(uint16_t tag, const KeyRecord* r) {
  assert((reinterpret_cast<uintptr_t>(r) & ~kPointerMask) == 0);  // a 48-bit address
  return (uint64_t{tag} << 48) | reinterpret_cast<uintptr_t>(r);
}
uint16_t SlotTag(uint64_t slot) { return static_cast<uint16_t>(slot >> 48); }
KeyRecord* SlotRecord(uint64_t slot) {
  return reinterpret_cast<KeyRecord*>(slot & kPointerMask & ~kFrozen);
}

// `x` mapped onto [0, n) (Lemire's multiply-shift: no division).
size_t ScaleTo(uint32_t x, size_t n) { return static_cast<size_t>((uint64_t{x} * n) >> 32); }

// Tables have an even number of buckets, of any size (not only powers of
// two), so that a table grows by half and is presized to the keys it will
// hold, not to the next power of two.
size_t EvenBuckets(size_t n) { return std::max<size_t>(2, n + (n & 1)); }

size_t RoundDownToPowerOfTwo(size_t n) {
  size_t p = 1;
  while (p * 2 <= n) p <<= 1;
  return p;
}

// Asks the kernel to back the whole 2 MiB pages inside [memory, memory +
// bytes) with transparent huge pages (THP's "madvise" mode, the common
// default, gives them only where asked): a lookup then misses the TLB on
// its bucket far less at millions of keys. Called before the table is
// first written, so its pages fault in huge; pages already there (memory
// the allocator reused) stay small until the kernel's khugepaged merges
// them. Advice only: where it is refused (THP off, an old kernel) the
// table works as before.
void AdviseHugePages(char* memory, size_t bytes) {
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(memory) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(memory) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

// A secret seed from the kernel; if it has none to give, a mix of a clock
// and an address, which is still not known in advance to a remote client.
uint64_t RandomSeed(const void* salt) {
  uint64_t seed;
  if (getentropy(&seed, sizeof(seed)) == 0) return seed;
  const uint64_t mix[2] = {
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()),
      reinterpret_cast<uintptr_t>(salt)};
  return XXH3_64bits(mix, sizeof(mix));
}

}  // namespace

struct CuckooIndex::Table {
  // The slots and stripes come from `arena` when it is given (they then
  // live until the arena goes), else from the heap (owned by the table).
  // Throws std::bad_alloc; callers on the write path catch it.
  // REQUIRES: `num_buckets` is even.
  Table(size_t num_buckets, ROCKSDB_NAMESPACE::Allocator* arena)
      : num_buckets(num_buckets),
        stripe_mask(std::min<size_t>(RoundDownToPowerOfTwo(num_buckets), 4096) - 1) {
    assert(num_buckets % 2 == 0);
    const size_t slot_bytes = NumSlots() * sizeof(std::atomic<uint64_t>);
    const size_t stripe_bytes = (stripe_mask + 1) * sizeof(std::atomic<uint32_t>);
    bytes = slot_bytes + stripe_bytes;
    if (arena != nullptr) {
      memory = arena->AllocateAligned(bytes);
    } else {
      heap_memory.reset(new char[bytes]);
      memory = heap_memory.get();
    }
    AdviseHugePages(memory, bytes);
    slots = reinterpret_cast<std::atomic<uint64_t>*>(memory);
    stripe_versions = reinterpret_cast<std::atomic<uint32_t>*>(memory + slot_bytes);
    for (size_t i = 0; i < NumSlots(); ++i) new (&slots[i]) std::atomic<uint64_t>(0);
    for (size_t i = 0; i <= stripe_mask; ++i) new (&stripe_versions[i]) std::atomic<uint32_t>(0);
  }

  size_t NumSlots() const { return num_buckets * kSlotsPerBucket; }

  // A key's first bucket, from the hash's low 32 bits (the tag is its top
  // 16).
  size_t PrimaryBucket(uint64_t hash) const {
    return ScaleTo(static_cast<uint32_t>(hash), num_buckets);
  }
  // The other bucket of a key: (t - bucket) mod n for an odd t derived from
  // the tag alone, so an involution of (bucket, tag) that needs no key, and
  // never the bucket itself (n is even: 2 * bucket - t is odd, never a
  // multiple of n).
  size_t AltBucket(size_t bucket, uint16_t tag) const {
    const uint64_t mix = (uint64_t{tag} + 1) * 0xc6a4a7935bd1e995ULL;
    const size_t t = ScaleTo(static_cast<uint32_t>(mix >> 32), num_buckets) | 1;
    return t >= bucket ? t - bucket : t + num_buckets - bucket;
  }
  // Bytes on the heap (none but the table object when in an arena).
  size_t HeapBytes() const {
    if (heap_memory == nullptr) return sizeof(Table);
    return sizeof(Table) + NumSlots() * sizeof(slots[0]) +
           (stripe_mask + 1) * sizeof(stripe_versions[0]);
  }
  std::atomic<uint64_t>& slot(size_t bucket, int i) const {
    return slots[bucket * kSlotsPerBucket + i];
  }
  std::atomic<uint32_t>& stripe(size_t bucket) const {
    return stripe_versions[bucket & stripe_mask];
  }

  // Calls `visit(record)` for each record in buckets b1 and b2 whose slot
  // tag is `tag`, until it returns true; returns whether it did. Without the
  // seqlock (ScanKey takes it around this). Acquire: a record and its key
  // were written before the CAS that put it in its slot, so `visit` may
  // read them.
  template <typename Visit>
  bool ForEachTagMatch(size_t b1, size_t b2, uint16_t tag, Visit&& visit) const {
    for (size_t b : {b1, b2}) {
      for (int i = 0; i < kSlotsPerBucket; ++i) {
        const uint64_t x = slot(b, i).load(std::memory_order_acquire);
        KeyRecord* r = SlotRecord(x);
        if (r != nullptr && SlotTag(x) == tag && visit(r)) return true;
      }
    }
    return false;
  }

  // Calls `visit(record)` for each record in the key's two buckets whose key
  // matches, until it returns true. When nothing stops it, the visits cover
  // one consistent moment: scans are retried while a displacement moves
  // entries between these buckets. Returns whether `visit` stopped it.
  template <typename Visit, typename OnRetry>
  bool ScanKey(const Slice& user_key, uint64_t hash, Visit&& visit,
               OnRetry&& on_retry) const {
    const uint16_t tag = TagOf(hash);
    const size_t b1 = PrimaryBucket(hash);
    const size_t b2 = AltBucket(b1, tag);
    std::atomic<uint32_t>& s1 = stripe(b1);
    std::atomic<uint32_t>& s2 = stripe(b2);
    while (true) {
      const uint32_t v1 = s1.load(std::memory_order_acquire);
      const uint32_t v2 = s2.load(std::memory_order_acquire);
      if (((v1 | v2) & 1) != 0) {
        CpuRelax();
        continue;
      }
      if (ForEachTagMatch(b1, b2, tag, [&](KeyRecord* r) {
            return SameBytes(r->user_key(), user_key) && visit(r);
          })) {
        return true;
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

  // Starts fetching the key's two buckets and their seqlock stripes.
  void PrefetchBuckets(uint64_t hash) const {
    const size_t b1 = PrimaryBucket(hash);
    for (size_t b : {b1, AltBucket(b1, TagOf(hash))}) {
      __builtin_prefetch(&slot(b, 0));
      __builtin_prefetch(&slot(b, kSlotsPerBucket - 1));
      __builtin_prefetch(&stripe(b));
    }
  }

  // Starts fetching the key entries of the records whose slot tags match
  // the key's: the ones a lookup will compare. A hint only: the slots are
  // read without the seqlock, and a record seen here may move or go.
  void PrefetchCandidates(uint64_t hash) const {
    const uint16_t tag = TagOf(hash);
    const size_t b1 = PrimaryBucket(hash);
    ForEachTagMatch(b1, AltBucket(b1, tag), tag, [](KeyRecord* r) {
      __builtin_prefetch(r->key_entry());
      return false;
    });
  }

  // The same over the newest versions of the candidates that are LIVE (a
  // record's chain is read only through a LIVE record, key_record.h; one
  // stays LIVE, and its memory stays while the memtable lives, even if it
  // left the table since). Prefetching more than a version's first cache
  // line bought nothing: the stalls moved to the earlier phases.
  void PrefetchNewestVersions(uint64_t hash) const {
    const uint16_t tag = TagOf(hash);
    const size_t b1 = PrimaryBucket(hash);
    ForEachTagMatch(b1, AltBucket(b1, tag), tag, [](KeyRecord* r) {
      if (r->state() == KeyRecord::kLive) __builtin_prefetch(r->versions().Newest());
      return false;
    });
  }

  // One CAS into any free, unfrozen slot of the key's buckets.
  bool TryClaimFreeSlot(uint64_t hash, uint64_t x) {
    const size_t b1 = PrimaryBucket(hash);
    for (size_t b : {b1, AltBucket(b1, TagOf(hash))}) {
      for (int i = 0; i < kSlotsPerBucket; ++i) {
        uint64_t expected = 0;
        if (slot(b, i).load(std::memory_order_relaxed) == 0 &&
            slot(b, i).compare_exchange_strong(expected, x, std::memory_order_release,
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

  const size_t num_buckets;
  const size_t stripe_mask;
  // Set (seq_cst) before the first slot is frozen; cleared if the resize is
  // undone. Settlement rescans when the table it scanned froze under it.
  std::atomic<bool> frozen{false};
  Table* older = nullptr;  // the retired list's link
  char* memory;  // the slots and stripes, `bytes` in all
  size_t bytes;
  std::atomic<uint64_t>* slots;
  std::atomic<uint32_t>* stripe_versions;
  std::unique_ptr<char[]> heap_memory;
};

struct CuckooIndex::SearchStep {
  size_t bucket;
  int parent;
  int parent_slot;
  uint64_t moving;  // the slot value seen at (parent bucket, parent_slot)
};

CuckooIndex::CuckooIndex(size_t initial_slots, bool serialize_inserts,
                         OrderedIndex* overflow, ROCKSDB_NAMESPACE::Allocator* arena,
                         RetiredMemory* retired_memory)
    : seed_(RandomSeed(this)),
      arena_(arena),
      retired_memory_(retired_memory),
      overflow_(overflow),
      serialize_inserts_(serialize_inserts),
      search_steps_(new SearchStep[kMaxSearchBuckets]) {
  Table* t = new Table(EvenBuckets((initial_slots + kSlotsPerBucket - 1) / kSlotsPerBucket), arena_);
  memory_usage_.store(t->HeapBytes() + kMaxSearchBuckets * sizeof(SearchStep),
                      std::memory_order_relaxed);
  current_.store(t, std::memory_order_release);
}

CuckooIndex::~CuckooIndex() {
  delete current_.load(std::memory_order_acquire);
  while (retired_ != nullptr) {
    Table* older = retired_->older;
    delete retired_;
    retired_ = older;
  }
}

void CuckooIndex::ForceHashForTesting(bool on, uint64_t hash) {
  forced_hash.store(hash, std::memory_order_relaxed);
  forced_hash_on.store(on, std::memory_order_seq_cst);
}

uint64_t CuckooIndex::Hash(const Slice& user_key) const {
  if (forced_hash_on.load(std::memory_order_relaxed)) {
    return forced_hash.load(std::memory_order_relaxed);
  }
  return XXH3_64bits_withSeed(user_key.data(), user_key.size(), seed_);
}

size_t CuckooIndex::Capacity() const {
  return current_.load(std::memory_order_acquire)->NumSlots();
}

// The key's overflow filter bit: from hash bits neither the slot tag (the
// top 16) nor the primary bucket (the low 32) uses.
uint64_t CuckooIndex::FilterBit(uint64_t hash) { return (hash >> 32) % (kFilterWords * 64); }

bool CuckooIndex::FilterHas(uint64_t hash) const {
  const uint64_t bit = FilterBit(hash);
  return (overflow_filter_[bit / 64].load(std::memory_order_seq_cst) >> (bit % 64)) & 1;
}

void CuckooIndex::FilterAdd(uint64_t hash) {
  const uint64_t bit = FilterBit(hash);
  overflow_filter_[bit / 64].fetch_or(uint64_t{1} << (bit % 64), std::memory_order_seq_cst);
}

KeyRecord* CuckooIndex::FindLive(const Slice& internal_key, uint64_t hash) const {
  const Slice user_key = UserKeyOf(internal_key);
  KeyRecord* found = nullptr;
  auto take_live = [&](KeyRecord* r) {
    if (r->state() != KeyRecord::kLive) return false;
    found = r;
    return true;
  };
  if (current_.load(std::memory_order_acquire)->ScanKey(user_key, hash, take_live, [] {})) {
    return found;
  }
  if (!FilterHas(hash)) return nullptr;
  KeyRecord* r = overflow_->FindUserKey(internal_key);
  return r != nullptr && r->state() == KeyRecord::kLive ? r : nullptr;
}

void CuckooIndex::PrefetchBuckets(uint64_t hash) const {
  current_.load(std::memory_order_acquire)->PrefetchBuckets(hash);
}

void CuckooIndex::PrefetchCandidates(uint64_t hash) const {
  current_.load(std::memory_order_acquire)->PrefetchCandidates(hash);
}

void CuckooIndex::PrefetchNewestVersions(uint64_t hash) const {
  current_.load(std::memory_order_acquire)->PrefetchNewestVersions(hash);
}

void CuckooIndex::CollectAll(const Slice& internal_key, uint64_t hash,
                             const KeyRecord* exclude, bool overflow_locked,
                             Matches* out) const {
  const Slice user_key = UserKeyOf(internal_key);
  out->count = 0;
  auto collect = [&](KeyRecord* r) {
    if (r == exclude) return false;
    // More records of one key than kMaxMatches means more concurrent
    // inserters of it than the settlement protocol provides for.
    assert(out->count < kMaxMatches);
    if (out->count < kMaxMatches) out->records[out->count++] = r;
    return false;
  };
  while (true) {
    const Table* t = current_.load(std::memory_order_seq_cst);
    t->ScanKey(user_key, hash, collect, [&] { out->count = 0; });
    if (!t->frozen.load(std::memory_order_seq_cst)) break;
    // A resize froze the table mid-scan: records placed since are in the
    // next one. Wait for the resize to end, then scan again.
    out->count = 0;
    std::lock_guard<std::mutex> wait_for_resize(displacement_mu_);
  }
  if (!FilterHas(hash)) return;
  std::unique_lock<std::mutex> lock(overflow_mu_, std::defer_lock);
  if (!overflow_locked) lock.lock();
  KeyRecord* r = overflow_->FindUserKey(internal_key);
  if (r != nullptr) collect(r);
}

KeyRecord* CuckooIndex::FindOrInsert(uint64_t hash, KeyRecord* candidate,
                                     WonCallback on_won, void* on_won_arg) {
  const Slice internal_key = candidate->internal_key();
  std::unique_lock<std::mutex> serial;
  if (serialize_inserts_) serial = std::unique_lock<std::mutex>(serial_insert_mu_);
  while (true) {
    Matches existing;
    CollectAll(internal_key, hash, candidate, false, &existing);
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
    if (Publish(hash, candidate) == Placement::kOverflow) {
      KeyRecord* owner = InsertOverflow(hash, candidate);
      if (owner != nullptr) return owner;
      std::this_thread::yield();
      continue;
    }
    // Two inserters of the key each publish, then scan for the other: a
    // full fence keeps both from missing each other (each would then win).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (Settle(hash, candidate) == Settlement::kWon) {
      on_won(on_won_arg, candidate);
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
// Overflowed records are never PENDING to others: they are decided under
// overflow_mu_, which CollectAll takes when the key's filter bit is set.
CuckooIndex::Settlement CuckooIndex::Settle(uint64_t hash, KeyRecord* candidate) const {
  for (int spins = 0;;) {
    Matches others;
    CollectAll(candidate->internal_key(), hash, candidate, false, &others);
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

// An overflow insert and a hash-path insert of one key race like two
// hash-path ones: this side sets the filter bit, then (fence) scans the
// table; the other publishes its slot, then (fence) reads the bit. At least
// one sees the other. If this side sees a PENDING slot it backs off; if the
// other sees the bit, it settles under overflow_mu_, after this decision.
KeyRecord* CuckooIndex::InsertOverflow(uint64_t hash, KeyRecord* candidate) {
  std::lock_guard<std::mutex> lock(overflow_mu_);
  FilterAdd(hash);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  Matches others;
  CollectAll(candidate->internal_key(), hash, candidate, true, &others);
  for (int i = 0; i < others.count; ++i) {
    const KeyRecord::State s = others.records[i]->state();
    if (s == KeyRecord::kLive) {
      candidate->set_state(KeyRecord::kRemoved);
      return others.records[i];
    }
    if (s == KeyRecord::kPending) return nullptr;
  }
  // Linked before it turns LIVE, like a hash-path record queued by on_won.
  overflow_->Insert(candidate);
  candidate->set_state(KeyRecord::kLive);
  overflowed_.fetch_add(1, std::memory_order_relaxed);
  return candidate;
}

CuckooIndex::Placement CuckooIndex::Publish(uint64_t hash, KeyRecord* candidate) {
  const uint64_t x = Encode(TagOf(hash), candidate);
  std::atomic<int64_t>& used = UsedSlotsOf(hash);
  if (current_.load(std::memory_order_acquire)->TryClaimFreeSlot(hash, x)) {
    used.fetch_add(1, std::memory_order_relaxed);
    return Placement::kPlaced;
  }
  std::lock_guard<std::mutex> lock(displacement_mu_);
  while (true) {
    Table* t = current_.load(std::memory_order_acquire);
    // Past kEagerGrowLoadPercent, grow without searching for a path, unless
    // growing this table failed before (then search, as below that load).
    const bool grow_first =
        t != eager_growth_failed_for_ && LoadedPast(t, kEagerGrowLoadPercent);
    for (int attempt = 0; attempt < kMakeRoomAttempts; ++attempt) {
      if (t->TryClaimFreeSlot(hash, x)) {
        used.fetch_add(1, std::memory_order_relaxed);
        return Placement::kPlaced;
      }
      if (grow_first || !MakeRoom(t, hash)) break;
    }
    if (t->TryClaimFreeSlot(hash, x)) {
      used.fetch_add(1, std::memory_order_relaxed);
      return Placement::kPlaced;
    }
    if (LoadedPast(t, kGrowLoadPercent) && Resize()) continue;
    if (!grow_first) return Placement::kOverflow;
    eager_growth_failed_for_ = t;
  }
}

int64_t CuckooIndex::UsedSlots() const {
  int64_t used = 0;
  for (const UsedSlotShard& shard : used_) used += shard.count.load(std::memory_order_relaxed);
  return used;
}

size_t CuckooIndex::NumKeys() const {
  return static_cast<size_t>(std::max<int64_t>(UsedSlots(), 0)) + NumOverflowed();
}

bool CuckooIndex::LoadedPast(const Table* table, int percent) const {
  return UsedSlots() * 100 >= static_cast<int64_t>(table->NumSlots()) * percent;
}

void CuckooIndex::Remove(uint64_t hash, KeyRecord* candidate) {
  // A PENDING record is never displaced: it is in one of its two buckets of
  // the current table, or frozen in a table being resized (then it will be
  // in the next one).
  const uint64_t encoded = Encode(TagOf(hash), candidate);
  while (true) {
    Table* t = current_.load(std::memory_order_acquire);
    const size_t b1 = t->PrimaryBucket(hash);
    for (size_t b : {b1, t->AltBucket(b1, TagOf(hash))}) {
      for (int i = 0; i < kSlotsPerBucket; ++i) {
        uint64_t expected = encoded;
        if (t->slot(b, i).compare_exchange_strong(expected, 0,
                                                  std::memory_order_acq_rel)) {
          UsedSlotsOf(hash).fetch_sub(1, std::memory_order_relaxed);
          return;
        }
      }
    }
    std::lock_guard<std::mutex> wait_for_resize(displacement_mu_);
  }
}

bool CuckooIndex::MakeRoom(Table* t, uint64_t hash) {
  // A breadth-first search over buckets. Each step records the bucket it
  // reached, the step it came from, and which slot of that step's bucket
  // moves into it.
  SearchStep* steps = search_steps_.get();
  size_t num_steps = 0;
  const size_t b1 = t->PrimaryBucket(hash);
  steps[num_steps++] = {b1, -1, -1, 0};
  steps[num_steps++] = {t->AltBucket(b1, TagOf(hash)), -1, -1, 0};
  for (size_t head = 0; head < num_steps; ++head) {
    const SearchStep step = steps[head];
    for (int i = 0; i < kSlotsPerBucket; ++i) {
      if (t->slot(step.bucket, i).load(std::memory_order_acquire) != 0) continue;
      // Found a free slot: shift the path into it, last move first.
      int to = static_cast<int>(head);
      int to_slot = i;
      while (steps[to].parent >= 0) {
        const SearchStep& s = steps[to];
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
    for (int i = 0; i < kSlotsPerBucket && num_steps < kMaxSearchBuckets; ++i) {
      const uint64_t x = t->slot(step.bucket, i).load(std::memory_order_acquire);
      if (x == 0 || SlotRecord(x)->state() != KeyRecord::kLive) continue;
      steps[num_steps++] = {t->AltBucket(step.bucket, SlotTag(x)),
                            static_cast<int>(head), i, x};
    }
  }
  return false;
}

bool CuckooIndex::PlaceDuringResize(Table* table, uint64_t hash, uint64_t x) {
  for (int attempt = 0; attempt < kMakeRoomAttempts; ++attempt) {
    if (table->TryClaimFreeSlot(hash, x)) return true;
    if (!MakeRoom(table, hash)) break;
  }
  return table->TryClaimFreeSlot(hash, x);
}

bool CuckooIndex::Resize() {
  Table* old = current_.load(std::memory_order_relaxed);
  std::unique_ptr<Table> bigger;
  try {
    bigger.reset(new Table(EvenBuckets(old->num_buckets + old->num_buckets / 2), arena_));
  } catch (const std::bad_alloc&) {
    return false;
  }
  old->frozen.store(true, std::memory_order_seq_cst);
  const size_t n = old->NumSlots();
  size_t frozen_slots = 0;
  int64_t moved = 0;
  bool complete = true;
  for (; frozen_slots < n; ++frozen_slots) {
    const uint64_t x = old->slots[frozen_slots].fetch_or(kFrozen, std::memory_order_acq_rel);
    KeyRecord* r = SlotRecord(x);
    if (r == nullptr) continue;
    if (!PlaceDuringResize(bigger.get(), Hash(r->user_key()), x)) {
      ++frozen_slots;
      complete = false;
      break;
    }
    ++moved;
  }
  if (!complete) {
    for (size_t i = 0; i < frozen_slots; ++i) {
      old->slots[i].fetch_and(~kFrozen, std::memory_order_acq_rel);
    }
    old->frozen.store(false, std::memory_order_seq_cst);
    return false;
  }
  for (UsedSlotShard& shard : used_) shard.count.store(0, std::memory_order_relaxed);
  used_[0].count.store(moved, std::memory_order_relaxed);
  memory_usage_.fetch_add(bigger->HeapBytes(), std::memory_order_relaxed);
  // seq_cst, like the loads in CollectAll: see the fence in FindOrInsert.
  current_.store(bigger.release(), std::memory_order_seq_cst);
  old->older = retired_;
  retired_ = old;
  if (retired_memory_ != nullptr && old->heap_memory == nullptr) {
    retired_memory_->Retire(old->memory, old->bytes);
  }
  return true;
}

}  // namespace teksdb
