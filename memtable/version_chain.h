// VersionChain: the versions of one user key, newest first (paper §4.2, §4.3).
//
// Every memtable entry is preceded by a Version header holding a link to the
// next older version of the same user key. A chain is an atomic head pointer
// plus those links, kept sorted by sequence number descending even when
// concurrent writers of one key arrive out of order.
//
// Positioning in O(log versions). A hot key may hold 10^5 versions, and
// readers position inside its chain at any sequence: a get or seek at an old
// snapshot, DBIter's reseek past a key's hidden versions, Prev (the version
// just newer than the current one). Walking from the newest version would
// cost O(versions) each time. So versions carry a jump link to an older
// version (all but the chain's root, the one it was built with, and, where
// it would only lead to the version below, a key's first update), set once
// when they are inserted: the skew-binary jump pointers of Myers'
// "applicative random-access stack" (1983). A version inserted above P jumps
// to P's jump's jump when P's jump and that one span as many versions (then
// it spans twice that plus one), else to P. A search for the first version
// whose tag is <= T takes a jump whenever its target is still newer than T
// and otherwise steps to the older version: O(log versions) steps. Only the
// span's rank (log2(span + 1)) is stored, in the jump word's top byte.
// Correct whatever the jumps are, as long as each points to an older
// version: a jump only ever skips versions newer than its target. So inserts
// out of order and cuts (which may leave a jump pointing into the unlinked
// part, see Invariants) cost speed at worst, never answers. A version linked
// below w newer ones (w writers of the key at once) has the same jumps
// below it as they do, so a search may step through them one by one:
// O(log versions + w).
//
// Dropping in amortized O(1) per update. DropShadowed() cuts the versions
// shadowed by the newest non-merge version every reader sees (the cutter).
// Walking the chain on every update would cost O(versions) whenever nothing
// can be cut (a snapshot holds an old sequence, a deletion below a Put), so
// each chain keeps a memo of what the last attempt learned, in the top bits
// of its head word (see Link words):
//   - a tag of the oldest readable sequence it used (6 bits of a
//     multiplicative hash of it): an attempt with the same value would
//     find the same cutter over the same frozen tail (no version <= it can
//     still be inserted, see REQUIRES below), so it is skipped. Other
//     values sharing the tag (1 in 64, spread by the hash so that no
//     pattern of writes, such as keys updated in turn, shares it every
//     time) skip too, which only delays a drop to the next attempt;
//   - the settled mark: the topmost version with a sequence <= that value
//     carries a tag bit in its link (kSettledMark). The settled part (that
//     version and all below) was fully inspected and is frozen: later
//     inserts have larger sequences, so they all land above the mark. Its
//     blocking summary (holds a SingleDelete / a deletion) is in the memo.
//     The next attempt walks from the head only down to the mark, so each
//     version is visited once when it settles plus once per attempt while
//     it is newer than the oldest readable sequence.
//   - a busy bit: one dropper per chain at a time; a writer that finds it
//     set skips its attempt (not dropping is always correct).
// The memo starts as "attempted at 0": no memtable entry has sequence 0, so
// there is nothing to cut at 0 (WAL replay, where no DB is attached yet).
//
// Link words. A version's link and a chain's head are one word each: the
// target version in bits 3..47 (versions are pointer-aligned; x86-64 and
// aarch64 user addresses fit in 48 bits), three flags in bits 0..2 (the
// settled mark, "has a jump link", "is a head") and 16 bits on top that
// belong to the word's owner: the memo in a head (bits 7..15), whatever the
// version's builder keeps in a link. Every link update keeps a word's top
// bits and its jump flag. Attempts with a smaller oldest readable sequence
// than the mark's (a writer that read it earlier) meet the mark above their
// cutter and do nothing.
//
// First versions. A KeyRecord's chain head is also its first version's
// link word (the record's header is two words, key_record.h): the record
// keeps its state in the head's bits 0..6 (kFirstVersionOwnerBits), and as
// a link the word means "nothing older" (Version::older() of a word with
// the head flag is nullptr), its bit 0 being that version's settled mark.
// So the first version F is always its chain's oldest. A version older than
// F (writers of a new key finishing out of sequence order, or the entry of
// a record that lost the race for the key) is linked below a copy F' of F
// that takes F's place (Insert's `copy_first`; the head's bit 1 then says F
// was replaced): one CAS of the one link that leads to F, from the head or
// from the version above it, since no jump ever targets F (SetJumpAbove).
// F keeps its entry (the record's key) but is out of the chain for good.
// Why a reader standing on F, or about to step to it, needs nothing below
// it: a reader that may see a version older than F reads at a sequence at or
// above that version's, which RocksDB publishes only after the version was
// inserted, so it started after the replacement and reaches F' from the
// head; a reader below that sequence never needs that version. Readers
// that are not gated by sequence (a memtable iterator under DBIter, which
// skips what its snapshot does not see, a tailing iterator, a flush of an
// immutable memtable, where nothing is inserted any more) may miss a
// version inserted behind them, as they may with any insert they passed.
//
// Thread safety:
//   - Insert() is lock-free and may run concurrently with other Insert()s,
//     DropShadowed() and any number of readers. InsertAndDrop() (for reps
//     that reuse cut versions) holds the chain against other inserts and
//     drops of the key; readers still take no locks.
//   - Readers (Newest(), FirstAtOrBelow(), NewerThan(), Oldest(), walking
//     Older()) take no locks.
//   - DropShadowed() REQUIRES that every sequence <= `oldest_readable` has
//     already been inserted (the caller learns it from the last published
//     sequence), so no Insert() ever targets the part of the chain it cuts
//     or marks. It may be called concurrently; its memo serializes callers.
//   - A word's top bits change only by read-modify-writes (as do its links
//     and flags), so no update of one part loses another.
//
// Invariants:
//   - A Version and its entry bytes are never freed while the memtable
//     lives: they sit in the arena, and readers (iterators pinning keys)
//     may hold them arbitrarily long. Nor do they change, unless the
//     version was cut and its rep reuses its memory, which waits until no
//     reader can be looking (reader_epochs.h, version_recycler.h). After a
//     version is linked, only its link's mark bit, the link itself (cut to
//     nullptr, or moved past a version spliced out below it) and its jump
//     (cleared when its target is cut, moved when it is spliced out) change.
//   - Links and jumps only ever point to older versions. Dropping cuts one
//     link to nullptr; splicing (SpliceStripes, snapshot stripes) moves one
//     link and the jumps that led to the spliced version one step older. A reader already past a cut keeps walking the
//     unlinked part, and a search may reach it through a jump, but only
//     when looking for something older than the cutter (every reader reads
//     at or above it, so only a memtable iterator standing on an unlinked
//     version, or a seek below every reader's sequence, does); what it finds
//     there is a version that was in the chain, in the right order, shadowed
//     for every reader by the cutter.
//   - At most one version reachable from the head is marked; the memo's
//     summary covers it and every version below it.
//
// Design notes: docs/DESIGN.md §1, §4, §5 and §6.
#pragma once

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "VersionChain keeps 16 bits in the top of 48-bit user pointers"
#endif

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>
#include <new>
#include <thread>

#include "cpu_relax.h"
#include "rocksdb_internals.h"

namespace teksdb {

class Version {
 public:
  Version() = default;
  // A version whose link's top bits start as `owner_bits` (see Link words).
  explicit Version(uint16_t owner_bits)
      : older_(static_cast<uintptr_t>(owner_bits) << kOwnerShift) {}

  const char* entry() const { return reinterpret_cast<const char*>(this + 1); }
  char* mutable_entry() { return reinterpret_cast<char*>(this + 1); }
  EntryView view() const { return EntryView::Decode(entry()); }
  SequenceNumber sequence() const { return view().sequence(); }
  uint64_t packed_tag() const { return view().packed_tag(); }

  // Acquire: the older version's entry bytes were written before it was
  // published by the release CAS in VersionChain::Insert (the mark is set
  // and cleared by read-modify-writes, which continue that release
  // sequence).
  // A record's first version whose link word is its chain's head (see
  // First versions) has nothing older: its chain never links anything
  // below it.
  Version* older() const {
    const uintptr_t word = older_.load(std::memory_order_acquire);
    return (word & kIsHead) != 0 ? nullptr : LinkTarget(word);
  }

  // The top 16 bits of this version's link, kept for its builder.
  uint16_t owner_bits(std::memory_order order = std::memory_order_acquire) const {
    return OwnerBitsOf(older_.load(order));
  }
  // Replaces the owner bits under `mask` by those of `bits` (release),
  // leaving the link and the rest as they are.
  void StoreOwnerBits(uint16_t mask, uint16_t bits) { StoreOwnerBits(&older_, mask, bits); }

  // Bytes an allocation reserves right before a version that is to get a
  // jump link.
  static constexpr size_t kJumpLinkBytes = 8;

  // Bytes for a version of its own (an update of a key that already has a
  // record) whose entry is `entry_len` bytes: its jump link (unless
  // `jump_link` is false), its header and the entry, rounded up to whole
  // words (so that memory of one such version fits any other of the same
  // size).
  static size_t AllocationSize(size_t entry_len, bool jump_link = true) {
    return ((jump_link ? kJumpLinkBytes : 0) + sizeof(Version) + entry_len + 7) & ~size_t{7};
  }
  // Builds such a version, with its jump link, at the start of `memory`
  // (AllocationSize(entry_len) bytes, pointer-aligned). Its entry bytes are
  // to be written by the caller. The version remembers that it owns
  // its allocation, and its size (OwnAllocationSize).
  static Version* CreateWithJumpLink(char* memory, size_t entry_len) {
    return Create(memory, entry_len, true);
  }
  // The same, with a jump link only if `jump_link`: a version with none is
  // still found, by stepping from the version above it. Worth it where a
  // jump could only lead to the version right below, which a step reaches
  // as fast (the first update of a key: no jump ever targets a record's
  // first version, SetJumpAbove).
  static Version* Create(char* memory, size_t entry_len, bool jump_link) {
    const size_t units = AllocationSize(entry_len, jump_link) / 8;
    const uint16_t owner_bits =
        units <= kOwnAllocationUnits ? static_cast<uint16_t>(kOwnsAllocation | units) : 0;
    auto* v = new (memory + (jump_link ? kJumpLinkBytes : 0)) Version(owner_bits);
    if (jump_link) v->AddJumpLink();
    return v;
  }
  // The size of the allocation this version was built at the start of by
  // Create, or 0 if it shares its memory (a record's first
  // version) or its allocation is too large to say.
  size_t OwnAllocationSize() const {
    const uintptr_t word = older_.load(std::memory_order_relaxed);
    const uint16_t bits = OwnerBitsOf(word);
    if ((word & kIsHead) != 0 || (bits & kOwnsAllocation) == 0) return 0;
    return static_cast<size_t>(bits & kOwnAllocationUnits) * 8;
  }
  // Where that allocation starts: at its jump link, if it has one.
  char* allocation() {
    return reinterpret_cast<char*>(this) - (jump_link() != nullptr ? kJumpLinkBytes : 0);
  }
  // Gives this version a jump link, kept in the kJumpLinkBytes right before
  // it (whatever was there is no longer used). Every version but a chain's
  // root needs one to be found in O(log versions). Call before inserting it;
  // its owner bits stay.
  void AddJumpLink() {
    assert((older_.load(std::memory_order_relaxed) & kIsHead) == 0);
    new (reinterpret_cast<char*>(this) - kJumpLinkBytes) JumpLink();
    older_.fetch_or(kHasJumpLink, std::memory_order_relaxed);
  }
  // The owner bits a chain leaves to the builder of a first version whose
  // link word is its head (the rest hold the chain's drop memo).
  static constexpr uint16_t kFirstVersionOwnerBits = 0x7f;
  // Turns a first version whose link word is its chain's head into a
  // version with a link of its own, linked to nothing yet; its builder's
  // owner bits stay, the chain's memo goes. REQUIRES: the chain is never
  // read or inserted into again.
  void DetachFromItsChain() {
    const uintptr_t kept = static_cast<uintptr_t>(kFirstVersionOwnerBits) << kOwnerShift;
    uintptr_t word = older_.load(std::memory_order_relaxed);
    while (!older_.compare_exchange_weak(word, word & kept, std::memory_order_release,
                                         std::memory_order_relaxed)) {
    }
  }

 private:
  friend class VersionChain;
  // The low bits of a link: "this version is the chain's settled mark",
  // "this version has a jump link", and "this word is a chain's head". In a
  // head that is also its first version's link (First versions), bit 0 is
  // that version's mark and bit 1 says it was replaced by a copy. Versions
  // are pointer-aligned (record and Allocate layouts).
  static constexpr uintptr_t kSettledMark = 1;
  static constexpr uintptr_t kHasJumpLink = 2;
  static constexpr uintptr_t kFirstReplaced = 2;
  static constexpr uintptr_t kIsHead = 4;
  static constexpr uintptr_t kFlagBits = kSettledMark | kHasJumpLink | kIsHead;
  // Where a link word's owner bits start (see Link words).
  static constexpr int kOwnerShift = 48;
  static constexpr uintptr_t kOwnerBits = ~uintptr_t{0} << kOwnerShift;
  // What an update of a word's link keeps of it.
  static constexpr uintptr_t kKeptByLinkUpdates = kOwnerBits | kHasJumpLink;
  static Version* LinkTarget(uintptr_t link) {
    return reinterpret_cast<Version*>(link & ~(kFlagBits | kOwnerBits));
  }
  static uint16_t OwnerBitsOf(uintptr_t link) {
    return static_cast<uint16_t>(link >> kOwnerShift);
  }
  // The one way owner bits change, in a version's link or a chain's head: a
  // CAS loop that keeps the link, so that a concurrent link update is
  // retried rather than lost. Release.
  static void StoreOwnerBits(std::atomic<uintptr_t>* link, uint16_t mask, uint16_t bits) {
    const uintptr_t clear = static_cast<uintptr_t>(mask) << kOwnerShift;
    const uintptr_t set = static_cast<uintptr_t>(bits & mask) << kOwnerShift;
    uintptr_t word = link->load(std::memory_order_relaxed);
    while (!link->compare_exchange_weak(word, (word & ~clear) | set, std::memory_order_release,
                                        std::memory_order_relaxed)) {
    }
  }
  bool marked() const {
    return (older_.load(std::memory_order_relaxed) & kSettledMark) != 0;
  }

  // A jump target and the rank of its span in one word: the target's
  // address in the low 56 bits (user-space addresses of every 64-bit Linux
  // target fit), the rank above. Rank 0: no jump.
  struct JumpLink {
    std::atomic<uint64_t> word{0};
  };
  static constexpr int kRankShift = 56;
  // The owner bits of a version built by Create: a flag and its
  // allocation's size in words. KeyRecord, which keeps its own state in
  // its first version's (bits kFirstVersionOwnerBits), never sets the flag.
  static constexpr uint16_t kOwnsAllocation = 0x8000;
  static constexpr uint16_t kOwnAllocationUnits = 0x7fff;
  const JumpLink* jump_link() const {
    const uintptr_t word = older_.load(std::memory_order_relaxed);
    if ((word & (kHasJumpLink | kIsHead)) != kHasJumpLink) return nullptr;
    return reinterpret_cast<const JumpLink*>(reinterpret_cast<const char*>(this) -
                                             kJumpLinkBytes);
  }
  uint64_t jump_word() const {
    const JumpLink* link = jump_link();
    // The release CAS in Insert published this word with the version, which
    // the caller reached by an acquire load; acquire here only keeps that
    // rule visible where the word is read.
    return link == nullptr ? 0 : link->word.load(std::memory_order_acquire);
  }
  static Version* JumpTarget(uint64_t word) {
    return reinterpret_cast<Version*>(word & ((uint64_t{1} << kRankShift) - 1));
  }
  static int JumpRank(uint64_t word) { return static_cast<int>(word >> kRankShift); }
  // Sets the jump link of a version about to be linked right above `older`
  // (nullptr: at the bottom, no jump). Never to a first version whose link
  // is its chain's head: a copy may replace it (First versions), and then
  // only the one link to it must lead there, which its replacement moves.
  void SetJumpAbove(const Version* older) {
    JumpLink* link = const_cast<JumpLink*>(jump_link());
    if (link == nullptr) return;
    uint64_t word = 0;
    if (older != nullptr && (older->older_.load(std::memory_order_relaxed) & kIsHead) == 0) {
      const uint64_t older_word = older->jump_word();
      const Version* older_target = JumpTarget(older_word);
      const uint64_t target_word = older_target != nullptr ? older_target->jump_word() : 0;
      const Version* target = older;
      int rank = 1;
      if (older_word != 0 && target_word != 0 && JumpRank(older_word) == JumpRank(target_word)) {
        target = JumpTarget(target_word);
        rank = JumpRank(older_word) + 1;
      }
      const uint64_t address = reinterpret_cast<uintptr_t>(target);
      if ((address >> kRankShift) == 0) {
        word = address | (static_cast<uint64_t>(rank) << kRankShift);
      }
    }
    // Relaxed: the release CAS in Insert publishes it with the version.
    link->word.store(word, std::memory_order_relaxed);
  }

  // A Version* with the flags in its low bits, as an integer so that the
  // mark can be set and cleared with read-modify-writes.
  std::atomic<uintptr_t> older_{0};
};
static_assert(sizeof(Version) == 8, "entry bytes follow the 8-byte header");
static_assert(alignof(Version) >= 8, "the low three bits of a link are free for flags");

// What a reverse walk over one chain keeps between steps: the versions its
// searches passed, each newer than the next, so that the next step resumes
// from the last of them still newer than its version rather than from the
// newest (VersionChain::NewerThan). A walk over a whole chain then costs
// O(1) amortized per step. It holds at most kCapacity versions and forgets
// them all when full or when its memory cannot be had (then the next step
// searches from the newest version: slower, never wrong). The caller clears
// it when it moves to another chain.
class ReverseFinger {
 public:
  void Clear() { size_ = 0; }

 private:
  friend class VersionChain;
  static constexpr int kCapacity = 64;
  bool empty() const { return size_ == 0; }
  Version* top() const { return stack_[size_ - 1]; }
  void Pop() { --size_; }
  void Push(Version* v) {
    if (stack_ == nullptr) stack_.reset(new (std::nothrow) Version*[kCapacity]);
    if (stack_ == nullptr) return;
    if (size_ == kCapacity) size_ = 0;
    stack_[size_++] = v;
  }
  std::unique_ptr<Version*[]> stack_;
  int size_ = 0;
};

class VersionChain {
 public:
  // How many pairs of versions below the newest a splice attempt looks at
  // (SpliceStripes).
  static constexpr int kStripeLookahead = 4;
  // The versions one InsertAndDrop spliced out, each to be retired alone.
  struct Spliced {
    Version* versions[kStripeLookahead];
    int count = 0;
  };

  // Starts a chain holding only `first`, its memo "attempted at 0".
  explicit VersionChain(Version* first)
      : newest_(reinterpret_cast<uintptr_t>(first) | Version::kIsHead) {}

  // Starts a chain whose head word is also the link word of its only
  // version, the Version at this chain's own address (First versions); the
  // word's top bits start as `owner_bits` (within kFirstVersionOwnerBits).
  struct HeadIsFirstVersionLink {};
  VersionChain(HeadIsFirstVersionLink, uint16_t owner_bits)
      : newest_(reinterpret_cast<uintptr_t>(this) | Version::kIsHead |
                (static_cast<uintptr_t>(owner_bits) << Version::kOwnerShift)) {
    assert((owner_bits & ~kFirstVersionOwnerBits) == 0);
  }
  static constexpr uint16_t kFirstVersionOwnerBits = Version::kFirstVersionOwnerBits;

  // Whether a first version whose link word is this chain's head was ever
  // replaced by a copy, so that versions older than it may be linked.
  bool FirstReplaced() const {
    return (newest_.load(std::memory_order_acquire) & Version::kFirstReplaced) != 0;
  }

  Version* Newest() const { return Version::LinkTarget(newest_.load(std::memory_order_acquire)); }

  // Links `v` at its place by sequence, setting its jump link if it has one
  // (Version::AddJumpLink). Returns false, leaving the chain unchanged, if a
  // version with the same sequence is already present (the exact (user key,
  // seq) duplicate RocksDB asks reps to refuse), or if `v` belongs below a
  // first version whose link word is the head and `copy_first(first)`, to
  // be linked in its place (see First versions), gives nullptr. Walks from
  // the newest version: writers of one key arrive in sequence order up to
  // the few that run at once.
  template <typename CopyFirst>
  bool Insert(Version* v, CopyFirst copy_first) {
    // A link word keeps flags in the low bits and owner bits in the top ones.
    assert((reinterpret_cast<uintptr_t>(v) & (Version::kFlagBits | Version::kOwnerBits)) == 0);
    const SequenceNumber seq = v->sequence();
    const uintptr_t v_kept =
        v->older_.load(std::memory_order_relaxed) & Version::kKeptByLinkUpdates;
    Version* copy = nullptr;
    while (true) {
      std::atomic<uintptr_t>* link = &newest_;
      // Links changed here never carry the mark (DropShadowed's REQUIRES
      // keeps the marked version below every insert); masking anyway keeps
      // a stray mark from ever being dereferenced.
      uintptr_t raw = link->load(std::memory_order_acquire);
      Version* next = Version::LinkTarget(raw);
      // The link that led to `next`, and what it held.
      std::atomic<uintptr_t>* above = nullptr;
      uintptr_t above_raw = 0;
      while (next != nullptr && next->sequence() > seq) {
        above = link;
        above_raw = raw;
        link = &next->older_;
        raw = link->load(std::memory_order_acquire);
        next = (raw & Version::kIsHead) != 0 ? nullptr : Version::LinkTarget(raw);
      }
      if (next != nullptr && next->sequence() == seq) return false;
      if (above != nullptr && (raw & Version::kIsHead) != 0) {
        // Below the first version, whose link word is the head.
        if (copy == nullptr) copy = copy_first(Version::LinkTarget(above_raw));
        if (copy == nullptr) return false;
        if (ReplaceFirst(above, above_raw, copy, v, v_kept)) return true;
        continue;
      }
      v->SetJumpAbove(next);
      // Relaxed suffices: the release CAS below publishes it with `v`.
      v->older_.store(reinterpret_cast<uintptr_t>(next) | v_kept, std::memory_order_relaxed);
      if (link->compare_exchange_weak(raw, reinterpret_cast<uintptr_t>(v) | KeptByLinkUpdate(raw),
                                      std::memory_order_release, std::memory_order_relaxed)) {
        return true;
      }
    }
  }
  // Insert into a chain whose first version has a link of its own (every
  // chain but a KeyRecord's).
  bool Insert(Version* v) {
    return Insert(v, [](const Version*) -> Version* { return nullptr; });
  }

  // The newest version whose packed tag is <= `packed_tag` (the first entry
  // at or after an internal key of this user key), or nullptr. O(log
  // versions); O(1) when the newest version qualifies.
  Version* FirstAtOrBelow(uint64_t packed_tag) const {
    return Descend(Newest(), packed_tag, [](Version*) {});
  }

  // How many versions this thread's searches (FirstAtOrBelow, NewerThan,
  // Oldest) have stepped past, in every chain. Tests check that a search
  // costs O(log versions) with this count; timing could not show it.
  static uint64_t SearchStepsOnThisThread() { return search_steps_on_this_thread; }

  // The version just newer than `v` still reachable from the head, or nullptr
  // if `v` is (or sorts like) the newest. Found by sequence, not by link, so
  // `v` may have been dropped since the caller reached it. O(log versions).
  // With a `finger`, which the caller keeps for this chain across the steps
  // of a reverse walk, the search resumes where the last one left off: O(1)
  // amortized per step.
  Version* NewerThan(const Version* v, ReverseFinger* finger = nullptr) const {
    const uint64_t packed_tag = v->packed_tag();
    // The answer is the oldest version above `v`: at or below any version
    // above it, such as the finger's top.
    Version* at = Newest();
    if (finger != nullptr) {
      while (!finger->empty() && finger->top()->packed_tag() <= packed_tag) finger->Pop();
      if (!finger->empty()) {
        at = finger->top();
        finger->Pop();
      }
    }
    Version* newer = nullptr;
    Descend(at, packed_tag, [&](Version* passed) {
      newer = passed;
      if (finger != nullptr) finger->Push(passed);
    });
    return newer;
  }

  // The oldest version reachable by links or jumps. O(log versions). After
  // a cut it may be an unlinked version (see Invariants), which a reverse
  // walk then leaves in order.
  Version* Oldest() const {
    Version* last_above = nullptr;
    Version* at_zero = Descend(Newest(), 0, [&](Version* passed) { last_above = passed; });
    return at_zero != nullptr ? at_zero : last_above;
  }

  // Unlinks the versions shadowed by the newest version every reader stops
  // at: the newest non-merge version with sequence <= `oldest_readable`.
  // The cut must also leave flush and compaction with the same result, and a
  // SingleDelete does not shadow like the others: it cancels exactly one
  // older Put, possibly one outside this memtable. So nothing is cut when the
  // stopping version is a SingleDelete or the part below holds one, nor below
  // a Put that a later SingleDelete may cancel when the part below holds a
  // deletion (it would have to resurface then).
  // Skips the attempt when the memo shows it would learn nothing new, or
  // when another thread is attempting (see the file comment). Adds the
  // number of versions it looked at to `*visited`. Returns whether anything
  // was cut.
  // A cut also clears the jumps of the versions left above it that point
  // into the cut part.
  bool DropShadowed(SequenceNumber oldest_readable, uint64_t* visited) {
    const uintptr_t busy = uintptr_t{kMemoBusy} << Version::kOwnerShift;
    const uintptr_t before = newest_.fetch_or(busy, std::memory_order_acquire);
    if ((before & busy) != 0) return false;
    return DropHeld(Version::OwnerBitsOf(before) & kMemoBits, oldest_readable, visited, nullptr);
  }

  // Insert, then DropShadowed with `oldest_readable()` read after the
  // insert, then SpliceStripes, holding the chain (the memo's busy bit,
  // waited for) throughout: no other insert or drop of this key runs
  // meanwhile. So once it returns, nothing reachable from the head (links,
  // jumps, and the jumps an insert computes from them) leads into what it
  // cut or spliced out, and those versions, which nothing changes any
  // more, are the caller's to retire (reader_epochs.h). Not lock-free:
  // writers of one key wait for each other, for O(1) amortized work each.
  // Returns false, leaving the chain unchanged and nothing cut, if `v`'s
  // sequence is already present.
  // `copy_first` as for Insert.
  template <typename CopyFirst, typename OldestReadable, typename MayReadBetween>
  bool InsertAndDrop(Version* v, CopyFirst copy_first, OldestReadable oldest_readable,
                     MayReadBetween may_read_between, uint64_t* visited, Version** cut_part,
                     Spliced* spliced) {
    *cut_part = nullptr;
    spliced->count = 0;
    uint16_t memo = Hold();
    const bool inserted = Insert(v, copy_first);
    if (inserted && Newest()->older() != nullptr) {
      memo = AttemptHeld(memo, oldest_readable(), visited, cut_part);
      SpliceStripes(may_read_between, visited, spliced);
    }
    Version::StoreOwnerBits(&newest_, kMemoBits, memo);  // lets go
    return inserted;
  }

 private:
  // The memo, in the head word's owner bits above kFirstVersionOwnerBits:
  // busy, the settled part's blocking summary, the tag of the last
  // attempt's oldest readable sequence. (A first version's link word with
  // the memo in it never reads as owning its allocation: OwnAllocationSize
  // and DetachFromItsChain.)
  enum : uint16_t {
    kMemoBusy = 1 << 7,
    kMemoHoldsSingleDelete = 1 << 8,
    kMemoHoldsDeletion = 1 << 9,
    kMemoSummary = kMemoHoldsSingleDelete | kMemoHoldsDeletion,
  };
  static constexpr int kMemoTagShift = 10;
  static constexpr uint16_t kMemoTagMask = 0x3f;
  static constexpr uint16_t kMemoBits = kMemoBusy | kMemoSummary | (kMemoTagMask << kMemoTagShift);
  static_assert((kMemoBits & kFirstVersionOwnerBits) == 0,
                "the memo leaves the first version's bits");
  // The top 6 bits of Fibonacci hashing: sequences a fixed distance apart
  // share a tag at some positions only.
  static uint16_t MemoTag(SequenceNumber seq) {
    return static_cast<uint16_t>((seq * 0x9E3779B97F4A7C15ULL) >> 58);
  }

  // What a link update of the word `raw` keeps of it: its owner bits and
  // jump flag; in a head, also its first version's mark and replaced flag.
  static uintptr_t KeptByLinkUpdate(uintptr_t raw) {
    return raw & ((raw & Version::kIsHead) != 0 ? Version::kOwnerBits | Version::kFlagBits
                                                 : Version::kKeptByLinkUpdates);
  }

  // Puts `copy` (of the first version `above_raw` leads to, whose link word
  // is the head) in its place, `v` linked below it, by one CAS of `above`,
  // the one link to it (versions never jump to it: SetJumpAbove). Returns
  // false, changing nothing, if `above` changed meanwhile.
  bool ReplaceFirst(std::atomic<uintptr_t>* above, uintptr_t above_raw, Version* copy, Version* v,
                    uintptr_t v_kept) {
    v->SetJumpAbove(nullptr);
    v->older_.store(v_kept, std::memory_order_relaxed);
    copy->SetJumpAbove(v);
    const uintptr_t copy_kept =
        copy->older_.load(std::memory_order_relaxed) & Version::kKeptByLinkUpdates;
    copy->older_.store(reinterpret_cast<uintptr_t>(v) | copy_kept, std::memory_order_relaxed);
    // Set first: a reader that learns of the copy's versions learns that
    // the first version no longer ends the chain (KeyRecord::FirstAtOrBelow).
    newest_.fetch_or(Version::kFirstReplaced, std::memory_order_release);
    if (above == &newest_) above_raw |= Version::kFirstReplaced;
    return above->compare_exchange_strong(
        above_raw, reinterpret_cast<uintptr_t>(copy) | KeptByLinkUpdate(above_raw),
        std::memory_order_release, std::memory_order_relaxed);
  }

  static uint16_t BlockingSummary(uint8_t type) {
    if (type == kEntrySingleDeletion) return kMemoHoldsSingleDelete;
    if (IsDeleteLike(type)) return kMemoHoldsDeletion;
    return 0;
  }

  // May the versions below a cutter of `type` go, given the blocking
  // summary of everything below it?
  static bool MayDropBelow(uint8_t type, uint16_t below) {
    if (!IsPutLike(type) && !IsDeleteLike(type)) return false;
    if ((below & kMemoHoldsSingleDelete) != 0) return false;
    return !(IsPutLike(type) && (below & kMemoHoldsDeletion) != 0);
  }

  // Takes the memo's busy bit, waiting while another thread holds it;
  // returns the memo as it was (busy clear). Acquire: the last holder's
  // changes are visible.
  uint16_t Hold() {
    const uintptr_t busy = uintptr_t{kMemoBusy} << Version::kOwnerShift;
    for (int spins = 0;; ++spins) {
      if ((newest_.load(std::memory_order_relaxed) & busy) == 0) {
        const uintptr_t before = newest_.fetch_or(busy, std::memory_order_acquire);
        if ((before & busy) == 0) return Version::OwnerBitsOf(before) & kMemoBits;
      }
      if (spins < 64) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
  }

  // DropShadowed's attempt, by the holder of the busy bit (`memo` is the
  // memo it found); lets go of it, with the memo updated (release: the next
  // holder sees the memo, marks, cut and cleared jumps written here). If
  // `cut_part` is given, it gets the newest version cut (their older links
  // lead through all of them), or nullptr.
  bool DropHeld(uint16_t memo, SequenceNumber oldest_readable, uint64_t* visited,
                Version** cut_part) {
    Version* cut = nullptr;
    Version::StoreOwnerBits(&newest_, kMemoBits, AttemptHeld(memo, oldest_readable, visited, &cut));
    if (cut_part != nullptr) *cut_part = cut;
    return cut != nullptr;
  }

  // DropHeld's attempt, still holding: returns the memo to let go with.
  uint16_t AttemptHeld(uint16_t memo, SequenceNumber oldest_readable, uint64_t* visited,
                       Version** cut) {
    const uint16_t tag = MemoTag(oldest_readable);
    uint16_t summary = memo & kMemoSummary;  // the settled part's, kept unless it grows
    if (((memo >> kMemoTagShift) & kMemoTagMask) != tag) {
      Settle(oldest_readable, &summary, cut, visited);
    }
    return summary | static_cast<uint16_t>(tag << kMemoTagShift);
  }

  // Snapshot stripes, by the holder of the busy bit. Walking down from the
  // second newest version over at most kStripeLookahead pairs above the
  // settled mark, a version `gone` is unlinked if it and its newer
  // neighbour `keeper` are Puts, `gone` owns its allocation, and
  // `may_read_between(gone's sequence, keeper's)` says no reader reads
  // between them (nor can any write below keeper still arrive): every
  // reader at or above keeper's sequence stops at keeper or above, every
  // reader below gone's never reached it. The walk looks past the third
  // newest because a pair the policy could not yet clear (keeper not
  // published when it asked) stays below the next inserts. Links and jumps
  // point to older versions only, so just the versions above gone, all
  // passed on the way down, can lead to it: keeper's link moves to gone's
  // older neighbour, and their jumps that lead to gone too, with rank 1
  // (any older target is correct). A reader standing on gone keeps walking
  // from it to that same neighbour. The settled part stays as it was. Adds
  // the pairs it looked at to `*visited`.
  template <typename MayReadBetween>
  void SpliceStripes(MayReadBetween may_read_between, uint64_t* visited, Spliced* spliced) {
    Version* newest = Newest();
    if (newest->marked()) return;
    Version* above[kStripeLookahead + 1] = {newest};
    int passed = 1;
    Version* keeper = newest->older();
    for (int looked = 0; looked < kStripeLookahead && keeper != nullptr && !keeper->marked();
         ++looked) {
      Version* gone = keeper->older();
      if (gone == nullptr || gone->marked()) return;
      ++*visited;
      if (keeper->view().type() == kEntryValue && gone->view().type() == kEntryValue &&
          gone->OwnAllocationSize() != 0 &&
          !may_read_between(gone->sequence(), keeper->sequence())) {
        Version* below = gone->older();
        for (int i = 0; i < passed; ++i) MoveJumpOff(above[i], gone, below);
        MoveJumpOff(keeper, gone, below);
        // Keeps the word's owner bits and flags (a CAS loop, as for any
        // link word whose owner bits another thread may change).
        uintptr_t word = keeper->older_.load(std::memory_order_relaxed);
        while (!keeper->older_.compare_exchange_weak(
            word,
            (word & (Version::kOwnerBits | Version::kFlagBits)) |
                reinterpret_cast<uintptr_t>(below),
            std::memory_order_release, std::memory_order_relaxed)) {
        }
        spliced->versions[spliced->count++] = gone;
        continue;  // the same keeper, over its new older neighbour
      }
      above[passed++] = keeper;
      keeper = gone;
    }
  }

  // If `v` jumps to `from`, it jumps to `to` (older, or nullptr: no jump)
  // instead, or nowhere if `to` is a first version whose link word is the
  // head (no jump targets one: SetJumpAbove). Release: a reader taking the
  // new jump sees `to`'s entry.
  static void MoveJumpOff(Version* v, const Version* from, Version* to) {
    Version::JumpLink* link = const_cast<Version::JumpLink*>(v->jump_link());
    if (link == nullptr) return;
    if (Version::JumpTarget(link->word.load(std::memory_order_relaxed)) != from) return;
    const uint64_t address = reinterpret_cast<uintptr_t>(to);
    const uint64_t word =
        to != nullptr && (address >> Version::kRankShift) == 0 &&
                (to->older_.load(std::memory_order_relaxed) & Version::kIsHead) == 0
            ? address | (uint64_t{1} << Version::kRankShift)
            : 0;
    link->word.store(word, std::memory_order_release);
  }

  // Clears the jumps of `cutter` and every version above it that lead
  // below it, into the part just cut (which is intact: nothing reuses it
  // before its cutter retires it). Readers that already read such a jump
  // may still take it; see reader_epochs.h for why that is safe.
  void ClearJumpsBelow(Version* cutter, uint64_t* visited) {
    const SequenceNumber floor = cutter->sequence();
    for (Version* v = Newest(); v != nullptr; v = v->older()) {
      ++*visited;
      Version::JumpLink* link = const_cast<Version::JumpLink*>(v->jump_link());
      if (link != nullptr) {
        const Version* target = Version::JumpTarget(link->word.load(std::memory_order_relaxed));
        if (target != nullptr && target->sequence() < floor) {
          link->word.store(0, std::memory_order_relaxed);
        }
      }
      if (v == cutter) break;
    }
  }

  // One attempt, by the holder of the memo's busy bit: moves the settled
  // mark up to the topmost version <= `oldest_readable`, cutting below the
  // cutter if it is above the old mark and allowed. `*summary` is the
  // settled part's blocking summary, before and after.
  void Settle(SequenceNumber oldest_readable, uint16_t* summary, Version** cut,
              uint64_t* visited) {
    // Down to the new settled top. Meeting the mark first means nothing
    // <= oldest_readable was added above it (or this caller's sequence is
    // older than the mark's): the settled part and its verdict stand.
    Version* top = Newest();
    uint64_t seen = 0;
    while (top != nullptr && !top->marked() && top->sequence() > oldest_readable) {
      ++seen;
      top = top->older();
    }
    if (top == nullptr || top->marked()) {
      *visited += seen;
      return;
    }
    // From the new top to the cutter, the first non-merge version; merge
    // operands between never block a cut.
    Version* cutter = top;
    while (cutter != nullptr && !cutter->marked() && !EndsVersionSearch(cutter->view().type())) {
      ++seen;
      cutter = cutter->older();
    }
    Version* old_mark = cutter != nullptr && cutter->marked() ? cutter : nullptr;
    uint16_t below = 0;
    if (cutter != nullptr && old_mark == nullptr) {
      // Below the cutter, down to the old mark: what it holds, plus the old
      // settled part's summary.
      ++seen;
      for (Version* v = cutter->older(); v != nullptr; v = v->older()) {
        ++seen;
        if (v->marked()) {
          below |= *summary;
          old_mark = v;
          break;
        }
        below |= BlockingSummary(v->view().type());
      }
      const uint8_t type = cutter->view().type();
      if (cutter->older() != nullptr && MayDropBelow(type, below)) {
        // Only this thread writes links of settled versions (REQUIRES), and
        // readers just see the old link or nullptr. The old mark is gone
        // with the cut part.
        // A reader entering an epoch after the cut part's retirement is
        // published sees the cut (reader_epochs.h).
        *cut = Version::LinkTarget(
            cutter->older_.fetch_and(Version::kKeptByLinkUpdates, std::memory_order_relaxed));
        ClearJumpsBelow(cutter, &seen);
        old_mark = nullptr;
        below = 0;
      }
      *summary = BlockingSummary(type) | below;
    } else if (old_mark == nullptr) {
      *summary = 0;  // only merge operands settled so far
    }
    if (old_mark != nullptr) {
      old_mark->older_.fetch_and(~Version::kSettledMark, std::memory_order_relaxed);
    }
    *visited += seen;
    top->older_.fetch_or(Version::kSettledMark, std::memory_order_relaxed);
  }

  // The search: from `at` down to the first version whose packed tag is <=
  // `packed_tag` (returned, or nullptr), taking a jump whenever its target
  // is still above it. Calls `passed(v)` for each version passed on the way,
  // newest first; the last one passed is the answer's newer neighbour.
  template <typename Passed>
  static Version* Descend(Version* at, uint64_t packed_tag, Passed passed) {
    uint64_t& steps = search_steps_on_this_thread;
    while (at != nullptr && at->packed_tag() > packed_tag) {
      ++steps;
      passed(at);
      Version* jump = Version::JumpTarget(at->jump_word());
      at = jump != nullptr && jump->packed_tag() > packed_tag ? jump : at->older();
    }
    return at;
  }

  static inline thread_local uint64_t search_steps_on_this_thread = 0;

  // A link word like Version::older_ (so Insert treats both alike), the
  // memo in its owner bits.
  std::atomic<uintptr_t> newest_;
};

}  // namespace teksdb
