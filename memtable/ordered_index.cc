// OrderedIndex implementation: lock-free skip-list insert and searches.
#include "ordered_index.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <random>

namespace teksdb {
namespace {

// RandomRecordHeight() raises a record one level with probability
// 1/kBranching; EstimateCountBetween weighs each level by it.
constexpr uint64_t kBranching = 4;

}  // namespace

int RandomRecordHeight() {
  thread_local uint64_t state =
      std::random_device{}() | (uint64_t{std::random_device{}()} << 32) | 1;
  // xorshift64: cheap and good enough for coin flips.
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  uint64_t bits = state;
  int height = 1;
  while (height < KeyRecord::kMaxHeight && bits % kBranching == 0) {
    ++height;
    bits /= kBranching;
  }
  return height;
}

OrderedIndex::OrderedIndex(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                           ROCKSDB_NAMESPACE::Allocator* anchor_arena)
    : order_(cmp),
      head_bytes_(KeyRecord::AllocationSize(KeyRecord::kMaxHeight, 0)),
      head_memory_(new char[head_bytes_]),
      head_(KeyRecord::CreateHead(head_memory_.get())),
      anchors_(anchor_arena) {}

bool OrderedIndex::Before(const KeyRecord* r, const char* key_entry) const {
  return order_.Compare(r->key_entry(), key_entry) < 0;
}

namespace {
thread_local uint64_t records_passed_by_inserts = 0;
}  // namespace

uint64_t OrderedIndex::RecordsPassedByInsertsOnThisThread() { return records_passed_by_inserts; }

void OrderedIndex::FindGap(const char* key_entry, int level, KeyRecord* from,
                           const KeyRecord* bound, Splice* splice) const {
  KeyRecord* x = from;
  uint64_t passed = 0;
  while (true) {
    KeyRecord* n = x->Next(level);
    if (n == nullptr || n == bound || !Before(n, key_entry)) {
      splice->prev[level] = x;
      splice->next[level] = n;
      records_passed_by_inserts += passed;
      return;
    }
    x = n;
    ++passed;
  }
}

int OrderedIndex::LevelWithGapFor(const Splice& splice, const char* key_entry) const {
  // Gaps on higher levels enclose those below, so a key outside one gap
  // may still fall in a wider one above. Each level costs at most two
  // comparisons, and levels sharing the end the key fell past none.
  int level = 0;
  while (level < splice.valid) {
    KeyRecord* prev = splice.prev[level];
    KeyRecord* next = splice.next[level];
    if (prev->Next(level) != next) {
      ++level;  // something was linked into this gap since
    } else if (prev != head_ && !Before(prev, key_entry)) {
      while (level < splice.valid && splice.prev[level] == prev) ++level;
    } else if (next != nullptr && Before(next, key_entry)) {
      while (level < splice.valid && splice.next[level] == next) ++level;
    } else {
      return level;
    }
  }
  return -1;
}

bool OrderedIndex::LandsInGap(const Splice& splice, const KeyRecord* record, int level) const {
  if (level >= splice.valid) return false;
  KeyRecord* prev = splice.prev[level];
  KeyRecord* next = splice.next[level];
  const char* key = record->key_entry();
  return prev->Next(level) == next && (prev == head_ || Before(prev, key)) &&
         (next == nullptr || !Before(next, key));
}

void OrderedIndex::Insert(KeyRecord* record, Splice* splice) {
  const int height = record->height();
  int max = MaxHeight();
  while (height > max &&
         !max_height_.compare_exchange_weak(max, height, std::memory_order_relaxed)) {
  }
  // A reader that sees the new max height before the new levels are linked
  // finds head->Next(level) == nullptr there and simply moves down.
  const char* key = record->key_entry();
  Splice local;
  Splice& s = splice != nullptr ? *splice : local;
  const int gap_level = LevelWithGapFor(s, key);
  if (gap_level >= 0 && height <= s.valid) {
    // The key lands in the splice's gap on gap_level, so also in its
    // (enclosing) gaps above: only the levels below are searched.
    for (int level = gap_level - 1; level >= 0; --level) {
      FindGap(key, level, s.prev[level + 1], s.next[level + 1], &s);
    }
  } else {
    // A record no taller than the anchors' level is searched for from the
    // nearest anchor before it, which is linked on all of its levels; the
    // splice then knows the levels up to the anchors'.
    KeyRecord* start;
    int top;
    StartOf(record->user_key(),
            height <= AnchorDirectory::kLevel + 1 ? Start::kNearestAnchor : Start::kHead,
            &start, &top);
    top = std::max(top, height - 1);
    for (int level = top; level >= 0; --level) {
      FindGap(key, level, level == top ? start : s.prev[level + 1],
              level == top ? nullptr : s.next[level + 1], &s);
    }
    s.valid = top + 1;
  }
  for (int level = 0; level < height; ++level) {
    while (true) {
      // Relaxed: the release CAS publishes the record with this link.
      record->SetNextRelaxed(level, s.next[level]);
      if (s.prev[level]->CasNext(level, s.next[level], record)) break;
      // Someone linked a node into the gap: search again from prev, which
      // still sorts before us (nodes are never removed).
      FindGap(key, level, s.prev[level], nullptr, &s);
    }
    if (level == 0) record->set_linked();
  }
  // REQUIRES: the only record of its user key (its neighbours on level 0
  // when it was linked there hold other keys).
  assert(s.prev[0] == head_ || !SameBytes(s.prev[0]->user_key(), record->user_key()));
  assert(s.next[0] == nullptr || !SameBytes(s.next[0]->user_key(), record->user_key()));
  // A key that comes next in order lands right after this record.
  for (int level = 0; level < height; ++level) s.prev[level] = record;
  // Linked on every level, so a candidate anchor (see anchor_directory.h).
  if (height > AnchorDirectory::kLevel) anchors_.RecordLinked(head_);
}

void OrderedIndex::StartOf(const Slice& user_key, Start start, KeyRecord** x,
                           int* level) const {
  if (start == Start::kNearestAnchor) {
    // The anchor's user key is below `user_key`; so is every record passed
    // here (anchors exist only for bytewise-ordered keys), so each is a
    // valid start too. Past kAnchorWalkSteps of them, the head is better.
    KeyRecord* from = anchors_.Find(user_key);
    for (int passed = 0; from != nullptr; ++passed) {
      KeyRecord* n = from->Next(AnchorDirectory::kLevel);
      if (n == nullptr || n->user_key().compare(user_key) >= 0) {
        records_passed_by_inserts += passed;
        *x = from;
        *level = AnchorDirectory::kLevel;
        return;
      }
      if (passed == kAnchorWalkSteps) {
        records_passed_by_inserts += passed;
        break;
      }
      from = n;
    }
  }
  *x = head_;
  *level = MaxHeight() - 1;
}

// A key's one record sorts by its first entry's internal key, so it is
// either the last record before `internal_key` or the first one at or after
// it: one descent finds both, with no target key to build. A descent from
// an anchor may end on the anchor itself, whose user key is below the
// target's: the same check passes it over.
KeyRecord* OrderedIndex::FindFirstAtOrAfter(const Slice& internal_key, Start start) const {
  const Slice user_key = UserKeyOf(internal_key);
  KeyRecord* x;
  int level;
  StartOf(user_key, start, &x, &level);
  while (true) {
    KeyRecord* n = x->Next(level);
    if (n != nullptr && order_.Compare(n->key_entry(), internal_key) < 0) {
      x = n;
    } else if (level == 0) {
      return x != head_ && SameBytes(x->user_key(), user_key) ? x : n;
    } else {
      --level;
    }
  }
}

KeyRecord* OrderedIndex::FindUserKey(const Slice& internal_key) const {
  KeyRecord* r = FindFirstAtOrAfter(internal_key);
  const Slice user_key = UserKeyOf(internal_key);
  return r != nullptr && SameBytes(r->user_key(), user_key) ? r : nullptr;
}

uint64_t OrderedIndex::EstimateCountBetween(const Slice& start, const Slice& end) const {
  // A count of c nodes on level l stands for c * 4^l records, with a
  // relative error that shrinks as 1/sqrt(c): stop at the first level, from
  // the top, with at least kEnough nodes in range (the level above had
  // fewer, so this one has about 4 * kEnough at most). Level 0 is exact.
  constexpr uint64_t kEnough = 64;
  const int top = MaxHeight() - 1;  // read once: it may grow meanwhile
  KeyRecord* x = head_;  // the last node before `start` on the current level
  uint64_t weight = 1;
  for (int level = 1; level <= top; ++level) weight *= kBranching;
  for (int level = top;; --level, weight /= kBranching) {
    KeyRecord* n = x->Next(level);
    while (n != nullptr && order_.Compare(n->key_entry(), start) < 0) {
      x = n;
      n = x->Next(level);
    }
    uint64_t count = 0;
    for (; n != nullptr && order_.Compare(n->key_entry(), end) < 0; n = n->Next(level)) {
      ++count;
    }
    if (count >= kEnough || level == 0) return count * weight;
  }
}

KeyRecord* OrderedIndex::FindLessThan(const KeyRecord* record, Start start) const {
  const char* key = record->key_entry();
  KeyRecord* x;
  int level;
  StartOf(record->user_key(), start, &x, &level);
  while (true) {
    KeyRecord* n = x->Next(level);
    if (n != nullptr && Before(n, key)) {
      x = n;
    } else if (level == 0) {
      return x == head_ ? nullptr : x;
    } else {
      --level;
    }
  }
}

KeyRecord* OrderedIndex::Last() const {
  KeyRecord* x = head_;
  int level = MaxHeight() - 1;
  while (true) {
    KeyRecord* n = x->Next(level);
    if (n != nullptr) {
      x = n;
    } else if (level == 0) {
      return x == head_ ? nullptr : x;
    } else {
      --level;
    }
  }
}

}  // namespace teksdb
