// AnchorDirectory implementation: the arrays, their search and their builds.
#include "anchor_directory.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace teksdb {

// One published array, in one arena allocation: this header, `capacity`
// prefixes, `capacity` second prefixes, then `capacity` records, of which
// the first `size` are used. Prefixes and records lie apart so that a
// binary search reads only prefixes, 8 to a cache line.
struct AnchorDirectory::Array {
  size_t size = 0;
  uint64_t* prefixes = nullptr;
  uint64_t* second_prefixes = nullptr;
  KeyRecord** records = nullptr;

  static size_t Bytes(size_t capacity) {
    return sizeof(Array) + capacity * (2 * sizeof(uint64_t) + sizeof(KeyRecord*));
  }
  // nullptr if the arena cannot allocate it.
  static Array* Create(size_t capacity, ROCKSDB_NAMESPACE::Allocator* arena) {
    char* memory;
    try {
      memory = arena->AllocateAligned(Bytes(capacity));
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    auto* array = new (memory) Array();
    array->prefixes = reinterpret_cast<uint64_t*>(array + 1);
    array->second_prefixes = array->prefixes + capacity;
    array->records = reinterpret_cast<KeyRecord**>(array->second_prefixes + capacity);
    return array;
  }
};

namespace {

// How many of the `n` sorted values at `p` are less than `value`, without
// a branch per step (the comparison becomes a conditional move), so a
// search costs its cache misses and no mispredictions.
size_t CountLess(const uint64_t* p, size_t n, uint64_t value) {
  if (n == 0) return 0;
  const uint64_t* base = p;
  while (n > 1) {
    const size_t half = n / 2;
    base = base[half] < value ? base + half : base;
    n -= half;
  }
  return static_cast<size_t>(base - p) + (*base < value ? 1 : 0);
}

}  // namespace

uint64_t AnchorDirectory::Prefix(const Slice& key, size_t offset) {
  uint64_t bytes = 0;
  // Zero bytes stand for the missing ones (see the header for why that
  // keeps the order).
  if (key.size() > offset) {
    std::memcpy(&bytes, key.data() + offset, std::min<size_t>(key.size() - offset, 8));
  }
  // The first byte in memory is the low one on this little-endian host
  // (rocksdb_internals.h asserts it): swap it to the top.
  return __builtin_bswap64(bytes);
}

KeyRecord* AnchorDirectory::Find(const Slice& user_key) const {
  const Array* array = current_.load(std::memory_order_acquire);
  if (array == nullptr) return nullptr;
  const uint64_t prefix = Prefix(user_key);
  const uint64_t* prefixes = array->prefixes;
  // Anchors [0, below) have smaller prefixes, so smaller keys.
  size_t below = CountLess(prefixes, array->size, prefix);
  if (below < array->size && prefixes[below] == prefix) {
    // Anchors sharing the target's prefix may sort either side of it: in
    // key order, those below it come first. Their second prefixes are in
    // order too (see the header): a smaller one is a smaller key.
    const size_t tied_end =
        std::upper_bound(prefixes + below, prefixes + array->size, prefix) - prefixes;
    const uint64_t second = Prefix(user_key, 8);
    const uint64_t* seconds = array->second_prefixes;
    below += CountLess(seconds + below, tied_end - below, second);
    // Those sharing both prefixes too are compared by whole keys
    // (bytewise, as the order is).
    KeyRecord** tied_begin = array->records + below;
    KeyRecord** tied_both_end =
        array->records +
        (std::upper_bound(seconds + below, seconds + tied_end, second) - seconds);
    below += std::partition_point(tied_begin, tied_both_end, [&](const KeyRecord* r) {
               return r->user_key().compare(user_key) < 0;
             }) - tied_begin;
  }
  return below == 0 || below == array->size ? nullptr : array->records[below - 1];
}

void AnchorDirectory::RecordLinked(const KeyRecord* head) {
  if (arena_ == nullptr) return;
  const uint64_t linked = linked_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (linked < next_build_at_.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> lock(build_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  // A build may have finished, and moved the goal, since the check above.
  if (stopped_ ||
      linked_.load(std::memory_order_relaxed) < next_build_at_.load(std::memory_order_relaxed)) {
    return;
  }
  BuildLocked(head);
}

void AnchorDirectory::StopBuilding() {
  std::lock_guard<std::mutex> lock(build_mu_);
  stopped_ = true;
}

void AnchorDirectory::BuildLocked(const KeyRecord* head) {
  // Records are counted once linked on all their levels, so the walk may
  // meet a few not counted yet (one per thread linking right now). Room for
  // an eighth more covers them; a walk that still runs out of room stops
  // there, and the array covers less of the key space, which is still
  // correct.
  const uint64_t counted = linked_.load(std::memory_order_relaxed);
  const size_t capacity = counted + counted / 8 + 64;
  Array* array = Array::Create(capacity, arena_);
  if (array == nullptr) {
    // Out of memory: searches keep the last array; try again once the level
    // has doubled again, rather than on every record.
    next_build_at_.store(2 * counted, std::memory_order_relaxed);
    return;
  }
  size_t n = 0;
  for (KeyRecord* x = head->Next(kLevel); x != nullptr && n < capacity; x = x->Next(kLevel)) {
    array->prefixes[n] = Prefix(x->user_key());
    array->second_prefixes[n] = Prefix(x->user_key(), 8);
    array->records[n] = x;
    ++n;
  }
  array->size = n;
  bytes_.fetch_add(Array::Bytes(capacity), std::memory_order_relaxed);
  builds_.fetch_add(1, std::memory_order_relaxed);
  next_build_at_.store(std::max<uint64_t>(2 * n, kFirstBuild), std::memory_order_relaxed);
  // Release: a reader that loads this array sees it filled in, and the
  // records in it as the walk saw them.
  current_.store(array, std::memory_order_release);
}

size_t AnchorDirectory::size() const {
  const Array* array = current_.load(std::memory_order_acquire);
  return array == nullptr ? 0 : array->size;
}

}  // namespace teksdb
