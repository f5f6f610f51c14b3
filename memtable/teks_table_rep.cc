// TeksTableRep implementation: the write path (Allocate, InsertKey), the
// sequence-gated point read (Get), and the entry points of ordered reads.
#include "teks_table_rep.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "background_linker.h"
#include "multiget_hint.h"
#include "rocksdb_internals.h"
#include "teks_table_iterator.h"

namespace teksdb {

namespace {

// The link queue's ring, sized like the hash: a memtable sized for few keys
// (a small write buffer) gets a small one (LinkQueue's thread-safety notes).
uint64_t LinkRingSize(size_t initial_hash_slots) {
  uint64_t size = LinkQueue::kMinRingSize;
  while (size < initial_hash_slots && size < LinkQueue::kMaxRingSize) size *= 2;
  return size;
}

std::atomic<uint64_t> next_rep_id{1};

// The memory of a record whose entry turned out to update an existing key
// and was copied out (CopyAsUpdate): the thread that wrote it builds its
// next record there, if the entry fits, instead of taking new arena bytes.
// So an update costs a version (Version::AllocationSize), not a record and
// its tower. Only the rep with `rep_id` may use it: ids are never reused, so
// memory of a destroyed rep's arena is never handed out.
struct SpareRecordMemory {
  uint64_t rep_id = 0;
  char* memory = nullptr;
  int height = 0;
  size_t entry_capacity = 0;
};
thread_local SpareRecordMemory spare_record_memory;

}  // namespace

TeksTableRep::TeksTableRep(const KeyComparator& cmp,
                           ROCKSDB_NAMESPACE::Allocator* allocator,
                           const TeksTableOptions& options, size_t initial_hash_slots,
                           std::shared_ptr<BackgroundLinker> linker,
                           std::shared_ptr<VersionDropPolicy> drop_policy,
                           size_t reuse_budget, std::shared_ptr<KeyCountHint> key_count_hint)
    : MemTableRep(allocator),
      id_(next_rep_id.fetch_add(1, std::memory_order_relaxed)),
      options_(options),
      drop_policy_(options.inplace ? std::move(drop_policy) : nullptr),
      key_count_hint_(std::move(key_count_hint)),
      // Anchors need keys that order bytewise.
      ordered_index_(cmp, KeyOrder(cmp).bytewise() ? allocator : nullptr),
      cuckoo_index_(initial_hash_slots, !options.concurrent_hash, &ordered_index_, allocator,
                    &retired_memory_) {
  if (options_.async) {
    link_queue_.reset(
        new LinkQueue(&ordered_index_, std::move(linker), LinkRingSize(initial_hash_slots)));
  }
  if (drop_policy_ != nullptr && reuse_budget > 0) {
    recycler_.reset(new VersionRecycler(id_, reuse_budget, &epochs_));
  }
}

TeksTableRep::~TeksTableRep() = default;

ROCKSDB_NAMESPACE::KeyHandle TeksTableRep::Allocate(const size_t len, char** buf) {
  SpareRecordMemory& spare = spare_record_memory;
  char* memory;
  int height;
  if (spare.rep_id == id_ && len <= spare.entry_capacity) {
    memory = spare.memory;
    height = spare.height;
    spare.rep_id = 0;
  } else {
    height = RandomRecordHeight();
    memory = AllocateEntryMemory(KeyRecord::AllocationSize(height, len));
  }
  KeyRecord* record = KeyRecord::Create(memory, height);
  record->ParkEntryLength(len);
  *buf = record->first_version()->mutable_entry();
  return record;
}

char* TeksTableRep::AllocateEntryMemory(size_t size) {
  char* memory = retired_memory_.Take(size);
  return memory != nullptr ? memory : allocator_->AllocateAligned(size);
}

bool TeksTableRep::InsertKey(ROCKSDB_NAMESPACE::KeyHandle handle) {
  // The hash's lookups may scan a table a resize is replacing.
  ReaderEpochs::Guard reading(epochs_);
  auto* record = static_cast<KeyRecord*>(handle);
  const size_t len = record->TakeParkedEntryLength();
  const uint64_t hash = cuckoo_index_.Hash(record->user_key());
  KeyRecord* owner = cuckoo_index_.FindLive(record->internal_key(), hash);
  if (owner != nullptr) {
    // Right above (or below) the key's first version, to which no jump
    // leads, the update's jump link would go unused. Not where cut versions'
    // memory is reused: a version without one fits only another such, and
    // the recycler's bins, which keep memory by exact size, would fill with
    // sizes the key's later updates never ask for.
    const bool jump_link =
        recycler_ != nullptr || owner->versions().Newest() != owner->first_version();
    return AddVersion(owner, CopyAsUpdate(record, len, jump_link), len);
  }
  owner = cuckoo_index_.FindOrInsert(hash, record, &MakeOrdered, this);
  if (owner == record) return true;
  // Another writer of this new key won: this record was in the hash, and
  // readers may still look at it, so the entry stays in place.
  return AddVersion(owner, record->UseAsUpdate(), len);
}

namespace {
thread_local uint64_t versions_visited_by_drops = 0;
}  // namespace

uint64_t VersionsVisitedByDropsOnThisThread() { return versions_visited_by_drops; }

bool TeksTableRep::AddVersion(KeyRecord* owner, Version* v, size_t len) {
  VersionChain& chain = owner->versions();
  // A version older than the owner's first one takes the place of a copy
  // of it (version_chain.h, First versions).
  auto copy_first = [this, v, len](const Version* first) {
    return CopyIntoVersion(first->entry(), KeyRecord::EntryLengthLike(first, v, len), true);
  };
  if (drop_policy_ == nullptr) return chain.Insert(v, copy_first);
  if (recycler_ == nullptr) {
    if (!chain.Insert(v, copy_first)) return false;
    if (chain.Newest()->older() != nullptr) {
      chain.DropShadowed(drop_policy_->OldestReadableSequence(), &versions_visited_by_drops);
    }
    return true;
  }
  Version* cut = nullptr;
  VersionChain::Spliced spliced;
  const bool inserted = chain.InsertAndDrop(
      v, copy_first, [this] { return drop_policy_->OldestReadableSequence(); },
      [this](SequenceNumber lo, SequenceNumber hi) { return drop_policy_->MayReadBetween(lo, hi); },
      &versions_visited_by_drops, &cut, &spliced);
  if (cut != nullptr) recycler_->Retire(cut);
  for (int i = 0; i < spliced.count; ++i) recycler_->RetireSpliced(spliced.versions[i]);
  return inserted;
}

Version* TeksTableRep::CopyIntoVersion(const char* entry, size_t len, bool jump_link) {
  const size_t size = Version::AllocationSize(len, jump_link);
  char* memory = recycler_ != nullptr ? recycler_->Take(size) : nullptr;
  if (memory == nullptr) memory = AllocateEntryMemory(size);
  Version* v = Version::Create(memory, len, jump_link);
  std::memcpy(v->mutable_entry(), entry, len);
  return v;
}

Version* TeksTableRep::CopyAsUpdate(KeyRecord* record, size_t len, bool jump_link) {
  Version* v = CopyIntoVersion(record->key_entry(), len, jump_link);
  SpareRecordMemory& spare = spare_record_memory;
  // Keeps the larger of two spares of this rep.
  if (spare.rep_id != id_ || spare.entry_capacity <= len) {
    spare = SpareRecordMemory{id_, record->allocation(), record->height(), len};
  }
  return v;
}

void TeksTableRep::MakeOrdered(void* rep, KeyRecord* record) {
  auto* self = static_cast<TeksTableRep*>(rep);
  if (self->link_queue_ != nullptr) {
    self->link_queue_->Add(record);
  } else {
    self->ordered_index_.Insert(record);
  }
}

bool TeksTableRep::Contains(const char* key) const {
  ReaderEpochs::Guard reading(epochs_);
  const EntryView target = EntryView::Decode(key);
  KeyRecord* record = cuckoo_index_.FindLive(target.internal_key, cuckoo_index_.Hash(target.user_key()));
  if (record == nullptr) return false;
  const SequenceNumber seq = target.sequence();
  const Version* v = record->FirstAtOrBelow(MaxPackedTagOf(seq));
  return v != nullptr && v->sequence() == seq;
}

void TeksTableRep::HashAndPrefetch(size_t n, const Slice* user_keys, uint64_t* hashes) const {
  for (size_t i = 0; i < n; ++i) {
    hashes[i] = cuckoo_index_.Hash(user_keys[i]);
    cuckoo_index_.PrefetchBuckets(hashes[i]);
  }
  for (size_t i = 0; i < n; ++i) cuckoo_index_.PrefetchCandidates(hashes[i]);
}

void TeksTableRep::PrefetchHintedKeys() const {
  const Slice* keys = nullptr;
  const size_t n = MultiGetHint::Take(this, &keys);
  if (n < 2) return;
  uint64_t hashes[MultiGetHint::kMaxKeys];
  HashAndPrefetch(n, keys, hashes);
  for (size_t i = 0; i < n; ++i) cuckoo_index_.PrefetchNewestVersions(hashes[i]);
}

void TeksTableRep::Get(const ROCKSDB_NAMESPACE::LookupKey& k, void* callback_args,
                       bool (*callback_func)(void* arg, const char* entry)) {
  ReaderEpochs::Guard reading(epochs_);
  PrefetchHintedKeys();
  const Slice internal_key = k.internal_key();
  KeyRecord* record = cuckoo_index_.FindLive(internal_key, cuckoo_index_.Hash(UserKeyOf(internal_key)));
  if (record == nullptr) return;
  const uint64_t lookup_tag = PackedTagOf(internal_key);
  // Versions newer than the reader's sequence are skipped, never shown; the
  // callback asks for older ones while it collects merge operands or its
  // ReadCallback rejects a version.
  for (Version* v = record->FirstAtOrBelow(lookup_tag);
       v != nullptr && callback_func(callback_args, v->entry()); v = v->older()) {
  }
}

ROCKSDB_NAMESPACE::Status TeksTableRep::VisitVersions(
    const KeyRecord* record, uint64_t lookup_tag, void* callback_args,
    bool (*callback_func)(void* arg, const char* entry), const EntryChecks& checks) {
  const Version* newer = nullptr;
  for (Version* v = record->FirstAtOrBelow(lookup_tag); v != nullptr; v = v->older()) {
    ROCKSDB_NAMESPACE::Status s = checks.Validate(v->entry());
    if (!s.ok()) return s;
    if (checks.check_order && newer != nullptr && v->sequence() >= newer->sequence()) {
      return checks.OutOfOrder("a key's versions are out of sequence order", newer->entry(),
                               v->entry());
    }
    if (!callback_func(callback_args, v->entry())) break;
    newer = v;
  }
  return ROCKSDB_NAMESPACE::Status::OK();
}

ROCKSDB_NAMESPACE::Status TeksTableRep::GetChecked(
    const ROCKSDB_NAMESPACE::LookupKey& k, void* callback_args,
    bool (*callback_func)(void* arg, const char* entry), const EntryChecks& checks) {
  ReaderEpochs::Guard reading(epochs_);
  PrefetchHintedKeys();
  const Slice internal_key = k.internal_key();
  KeyRecord* record = cuckoo_index_.FindLive(internal_key, cuckoo_index_.Hash(UserKeyOf(internal_key)));
  if (record == nullptr) return ROCKSDB_NAMESPACE::Status::OK();
  return VisitVersions(record, PackedTagOf(internal_key), callback_args, callback_func, checks);
}

ROCKSDB_NAMESPACE::Status TeksTableRep::MultiGetChecked(
    size_t num_keys, const char* const* keys, void** callback_args,
    bool (*callback_func)(void* arg, const char* entry), const EntryChecks& checks) {
  ReaderEpochs::Guard reading(epochs_);
  // RocksDB's MultiGetContext::MAX_BATCH_SIZE: a batch's misses in flight.
  constexpr size_t kBatch = 32;
  Slice internal_keys[kBatch];
  Slice user_keys[kBatch];
  uint64_t hashes[kBatch];
  KeyRecord* records[kBatch];
  for (size_t first = 0; first < num_keys; first += kBatch) {
    const size_t n = std::min(kBatch, num_keys - first);
    for (size_t i = 0; i < n; ++i) {
      internal_keys[i] = EntryView::Decode(keys[first + i]).internal_key;
      user_keys[i] = UserKeyOf(internal_keys[i]);
    }
    HashAndPrefetch(n, user_keys, hashes);
    for (size_t i = 0; i < n; ++i) {
      records[i] = cuckoo_index_.FindLive(internal_keys[i], hashes[i]);
      if (records[i] != nullptr) __builtin_prefetch(records[i]->versions().Newest());
    }
    for (size_t i = 0; i < n; ++i) {
      if (records[i] == nullptr) continue;
      ROCKSDB_NAMESPACE::Status s =
          VisitVersions(records[i], PackedTagOf(internal_keys[i]), callback_args[first + i],
                        callback_func, checks);
      if (!s.ok()) return s;
    }
  }
  return ROCKSDB_NAMESPACE::Status::OK();
}

size_t TeksTableRep::ApproximateMemoryUsage() {
  return cuckoo_index_.MemoryUsage() + ordered_index_.MemoryUsage() +
         (link_queue_ != nullptr ? link_queue_->MemoryUsage() : 0);
}

uint64_t TeksTableRep::ApproximateNumEntries(const Slice& start_ikey, const Slice& end_ikey) {
  WaitUntilLinked();
  return ordered_index_.EstimateCountBetween(start_ikey, end_ikey);
}

void TeksTableRep::UniqueRandomSample(const uint64_t /*num_entries*/,
                                      const uint64_t target_sample_size,
                                      std::unordered_set<const char*>* entries) {
  entries->clear();
  if (target_sample_size == 0) return;
  ReaderEpochs::Guard reading(epochs_);
  WaitUntilLinked();
  thread_local std::mt19937_64 random(std::random_device{}());
  // Algorithm R: after `seen` entries, each is in the reservoir with
  // probability target / seen.
  std::vector<const char*> reservoir;
  uint64_t seen = 0;
  for (KeyRecord* record = ordered_index_.First(); record != nullptr; record = record->Next(0)) {
    for (Version* v = record->versions().Newest(); v != nullptr; v = v->older()) {
      ++seen;
      if (reservoir.size() < target_sample_size) {
        reservoir.push_back(v->entry());
      } else {
        const uint64_t slot = random() % seen;
        if (slot < target_sample_size) reservoir[slot] = v->entry();
      }
    }
  }
  entries->insert(reservoir.begin(), reservoir.end());
}

void TeksTableRep::MarkReadOnly() {
  if (key_count_hint_ != nullptr) key_count_hint_->Record(cuckoo_index_.NumKeys());
  // RocksDB tells the arena it is done allocating next (see
  // anchor_directory.h).
  ordered_index_.StopAnchorBuilds();
}

void TeksTableRep::WaitUntilLinked() {
  if (link_queue_ == nullptr) return;
  link_queue_->NoteOrderedRead();
  link_queue_->WaitUntilLinked();
}

ROCKSDB_NAMESPACE::MemTableRep::Iterator* TeksTableRep::GetIterator(
    ROCKSDB_NAMESPACE::Arena* arena) {
  WaitUntilLinked();
  if (arena == nullptr) return new TeksTableIterator(this, ordered_index_.order());
  // Arena derives from Allocator alone (memory/arena.h), so the pointer is
  // the Allocator's; the owner runs only the destructor, as for RocksDB's
  // own reps.
  auto* arena_allocator = reinterpret_cast<ROCKSDB_NAMESPACE::Allocator*>(arena);
  void* memory = arena_allocator->AllocateAligned(sizeof(TeksTableIterator));
  return new (memory) TeksTableIterator(this, ordered_index_.order());
}

}  // namespace teksdb
