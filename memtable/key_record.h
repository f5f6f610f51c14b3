// KeyRecord: the one place a user key has in TeksTable (paper §4, Fig. 2).
//
// A record is at once the value the cuckoo hash maps a user key to, the node
// the ordered index (skip list) links, and the head of the key's
// VersionChain. Since the hash points at the node itself, the paper's
// shortcut pointer from hash entry to skip-list node is the record pointer.
//
// Memory layout. Every MemTableRep::Allocate() reserves a whole record, like
// RocksDB's InlineSkipList, so the key bytes sit in the node a scan touches:
//
//   [ next[h-1] ... next[1] ] [ next[0] ] [ chain head = first version's link ]
//   [ entry: varint32 | user key | tag | value ]
//
// Two words in all (a skip-list node has one), nothing else: the chain's
// head is also its first version's link word (version_chain.h, First
// versions), whose owner bits hold the record's state, linked flag and
// height (kFirstVersionOwnerBits) beside the chain's drop memo.
//
// Upper skip-list levels sit at negative offsets from the record. When the
// entry turns out to update a key that already has a record, the rep copies
// it into an allocation of its own (Version::CreateWithJumpLink) and reuses
// the record's memory for its next entry. Only when another writer of a new
// key won the race for it (so others may still read this record's state)
// does the entry stay here, its head word turned into a link of its own and
// next[0] right before it into the version's jump link (UseAsUpdate), the
// rest of the record part unused.
//
// Between Allocate and InsertKey next[0] holds the entry's length
// (ParkEntryLength): nothing reads a record before it is published.
//
// Thread safety:
//   - state: every record is built PENDING (an update's record stays so,
//     unused). A new key's record is PENDING while its inserter settles a
//     race with other inserters of the key in the hash, then LIVE for good,
//     or REMOVED if it lost (and PENDING again if its inserter retries).
//     Only LIVE records are read.
//   - linked: set (release) once the record is in the skip list's level 0;
//     the shortcut seek only jumps to linked records.
//   - next pointers follow InlineSkipList's rules (see ordered_index.h).
//   - state, linked and height share the head word with the chain's head
//     and memo, changed only by read-modify-writes; height never changes.
//   - chain: read only through a LIVE record. A record that never turns
//     LIVE is never read as a record again once its inserter knows that, so
//     UseAsUpdate may reuse its words.
//
// Invariants: the record's own key (its first entry's user key) never
// changes; records are never freed while the memtable lives.
//
// Design notes: docs/DESIGN.md §1.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <new>

#include "version_chain.h"

namespace teksdb {

class KeyRecord {
 public:
  static constexpr int kMaxHeight = 12;
  enum State : uint8_t { kPending = 0, kLive = 1, kRemoved = 2 };

  // Bytes to reserve for a record of `height` whose entry is `entry_len`.
  static size_t AllocationSize(int height, size_t entry_len) {
    return sizeof(std::atomic<KeyRecord*>) * (height - 1) + sizeof(KeyRecord) +
           entry_len;
  }
  // The bytes of the entry of `v` (length prefix, internal key, value)
  // and of what follows it in every entry of this memtable (RocksDB's
  // per-key protection bytes), given `entry_len`, the whole length of the
  // entry `sample`.
  static size_t EntryLengthLike(const Version* v, const Version* sample, size_t entry_len) {
    return EncodedEntryLength(v->entry()) + (entry_len - EncodedEntryLength(sample->entry()));
  }

  // Builds a record of `height` at the start of `memory` (AllocationSize
  // bytes, pointer-aligned). Its entry bytes are to be written by the caller.
  static KeyRecord* Create(char* memory, int height) {
    assert(height >= 1 && height <= kMaxHeight);
    auto* tower = reinterpret_cast<std::atomic<KeyRecord*>*>(memory);
    for (int i = 0; i < height - 1; ++i) new (&tower[i]) std::atomic<KeyRecord*>(nullptr);
    char* at = memory + sizeof(std::atomic<KeyRecord*>) * (height - 1);
    return new (at) KeyRecord(height);
  }

  // The version of the entry the record was allocated with: its link word
  // is the chain's head.
  Version* first_version() { return std::launder(reinterpret_cast<Version*>(&chain_)); }
  const Version* first_version() const {
    return std::launder(reinterpret_cast<const Version*>(&chain_));
  }
  // The record's own user key: that of the entry it was allocated with.
  Slice user_key() const { return first_version()->view().user_key(); }
  // The internal key of the entry it was allocated with.
  Slice internal_key() const { return first_version()->view().internal_key; }
  const char* key_entry() const { return first_version()->entry(); }

  VersionChain& versions() { return chain_; }
  const VersionChain& versions() const { return chain_; }

  // The newest version whose packed tag is <= `packed_tag`, or nullptr.
  // O(1) when every version is newer (DBIter's reseek to sequence 0 past a
  // key's hidden versions): nothing was ever linked below the first version
  // (it was never replaced by a copy), or it was cut away. Else O(log
  // versions).
  Version* FirstAtOrBelow(uint64_t packed_tag) const {
    if (packed_tag < first_version()->packed_tag() && !chain_.FirstReplaced()) return nullptr;
    return chain_.FirstAtOrBelow(packed_tag);
  }

  // The entry length the rep reserved, kept in next[0] between Allocate and
  // InsertKey (see the file comment). Taking it restores next[0].
  void ParkEntryLength(size_t len) { new (&next0_) ParkedLength{len}; }
  size_t TakeParkedEntryLength() {
    const size_t len = std::launder(reinterpret_cast<ParkedLength*>(&next0_))->len;
    new (&next0_) std::atomic<KeyRecord*>(nullptr);
    return len;
  }

  // Where the allocation this record was built in starts (its tower).
  char* allocation() {
    return reinterpret_cast<char*>(this) - sizeof(std::atomic<KeyRecord*>) * (height() - 1);
  }

  // For an allocation whose entry updates a key another record owns: its
  // version, with a link of its own in place of this record's chain head
  // and a jump link in place of next[0]. The record part is never used
  // again; its state, which inserters that met the record may still read,
  // stays in the version's owner bits.
  // REQUIRES: this record is not, and will never be, LIVE, nor linked.
  Version* UseAsUpdate() {
    assert(state() != kLive);
    first_version()->DetachFromItsChain();
    first_version()->AddJumpLink();
    return first_version();
  }
  int height() const {
    return (first_version()->owner_bits(std::memory_order_relaxed) & kHeightBits) >> kHeightShift;
  }

  // Acquire: observe a fully initialized record and entry.
  KeyRecord* Next(int level) const {
    return next_slot(level).load(std::memory_order_acquire);
  }
  void SetNextRelaxed(int level, KeyRecord* x) {
    next_slot(level).store(x, std::memory_order_relaxed);
  }
  bool CasNext(int level, KeyRecord* expected, KeyRecord* x) {
    return next_slot(level).compare_exchange_strong(
        expected, x, std::memory_order_release, std::memory_order_relaxed);
  }

  State state() const { return static_cast<State>(first_version()->owner_bits() & kStateBits); }
  void set_state(State s) { first_version()->StoreOwnerBits(kStateBits, s); }

  bool linked() const { return (first_version()->owner_bits() & kLinkedBit) != 0; }
  void set_linked() { first_version()->StoreOwnerBits(kLinkedBit, kLinkedBit); }

  // The head node of a skip list: a record with no entry.
  static KeyRecord* CreateHead(char* memory) { return Create(memory, kMaxHeight); }

 private:
  // The record's part of its first version's owner bits.
  enum : uint16_t {
    kStateBits = 3,
    kLinkedBit = 4,
    kHeightShift = 3,
    kHeightBits = 0xf << kHeightShift,
  };
  static_assert(kMaxHeight <= 0xf, "the height fits its owner bits");
  static_assert(((kStateBits | kLinkedBit | kHeightBits) & ~VersionChain::kFirstVersionOwnerBits) ==
                    0,
                "the record's bits are those the chain leaves to its first version");

  explicit KeyRecord(int height)
      : chain_(VersionChain::HeadIsFirstVersionLink{},
               static_cast<uint16_t>(kPending | (height << kHeightShift))) {
    static_assert(
        offsetof(KeyRecord, chain_) == offsetof(KeyRecord, next0_) + Version::kJumpLinkBytes,
        "next[0] sits right before the first version (UseAsUpdate's jump link)");
  }

  struct ParkedLength {
    size_t len;
  };
  static_assert(sizeof(ParkedLength) <= sizeof(std::atomic<KeyRecord*>), "parks in next[0]");

  std::atomic<KeyRecord*>& next_slot(int level) const {
    return const_cast<std::atomic<KeyRecord*>*>(&next0_)[-level];
  }

  std::atomic<KeyRecord*> next0_{nullptr};
  // Also the first version's header (first_version()); last member: the
  // entry bytes follow it.
  VersionChain chain_;
};
static_assert(sizeof(KeyRecord) == 16, "record header is two words");
static_assert(sizeof(VersionChain) == sizeof(Version), "the chain's head is a version's link word");

}  // namespace teksdb
