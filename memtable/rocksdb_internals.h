// What TeksTable needs from RocksDB that its installed headers do not
// declare, and how a memtable entry is laid out.
//
// RocksDB passes a MemTableRep an `Allocator*` (really a ConcurrentArena) and
// a `const LookupKey&`, but `memory/allocator.h` and `db/lookup_key.h` are
// not installed. Built as a plugin inside a RocksDB source tree
// (TEKSDB_IN_ROCKSDB_TREE, rocksdb_version.h), TeksTable includes those real
// headers. Built outside, it declares copies of their layouts below, member
// for member and virtual for virtual, so that calls into the library's
// objects land where the library put them; the same goes for the user
// comparator inside the KeyComparator RocksDB hands a rep (`db/memtable.h`).
// The layouts are the same in every release from 7.8.3 to 11.8.1;
// tests/memtable/rocksdb_layout_test.cc checks all three against the librocksdb
// built against. Update them together when RocksDB moves.
//
// Entry format (written by MemTable::Add, frozen by RocksDB's API contract):
//   varint32(internal_key_len) | user_key | fixed64(seq << 8 | type) |
//   varint32(value_len) | value [| protection bytes]
//
// Thread safety: everything here is a pure function of immutable bytes.
//
// Design notes: docs/DESIGN.md §7.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "rocksdb/comparator.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/slice.h"
#include "rocksdb/types.h"
#include "teksdb/rocksdb_version.h"

#if TEKSDB_IN_ROCKSDB_TREE
#include "db/lookup_key.h"
#include "memory/allocator.h"
#endif

namespace ROCKSDB_NAMESPACE {

#if !TEKSDB_IN_ROCKSDB_TREE
class Logger;

// Layout of memory/allocator.h's Allocator (base of Arena and ConcurrentArena).
class Allocator {
 public:
  virtual ~Allocator() {}
  virtual char* Allocate(size_t bytes) = 0;
  virtual char* AllocateAligned(size_t bytes, size_t huge_page_size = 0,
                                Logger* logger = nullptr) = 0;
  virtual size_t BlockSize() const = 0;
};

// Layout of db/dbformat.h's LookupKey (db/lookup_key.h from 10.x). The
// constructor is exported by librocksdb; the destructor and the accessors
// are inline there as here (a static release build of RocksDB exports no
// destructor).
class LookupKey {
 public:
  LookupKey(const Slice& user_key, SequenceNumber sequence,
            const Slice* ts = nullptr);
  ~LookupKey() {
    if (start_ != space_) delete[] start_;
  }
  LookupKey(const LookupKey&) = delete;
  LookupKey& operator=(const LookupKey&) = delete;
  Slice memtable_key() const {
    return Slice(start_, static_cast<size_t>(end_ - start_));
  }
  Slice internal_key() const {
    return Slice(kstart_, static_cast<size_t>(end_ - kstart_));
  }
  Slice user_key() const {
    return Slice(kstart_, static_cast<size_t>(end_ - kstart_ - 8));
  }

 private:
  const char* start_;
  const char* kstart_;
  const char* end_;
  char space_[200];
};

// Layout of db/memtable.h's MemTable::KeyComparator, the comparator every
// memtable rep RocksDB creates is given: MemTableRep::KeyComparator's vtable
// pointer, then its one member, an InternalKeyComparator (db/dbformat.h):
// that class's vtable pointer, then its one member, a UserComparatorWrapper
// (util/user_comparator_wrapper.h), whose one member is the user
// comparator. (librocksdb's MemTable::KeyComparator::operator() loads the
// user comparator from offset 16, as here.)
struct MemTableKeyComparatorLayout {
  const void* vtable;
  const void* internal_key_comparator_vtable;
  const Comparator* user_comparator;
};
// The dynamic type's name (Itanium ABI mangling) of that class.
constexpr const char* kMemTableKeyComparatorTypeName = "N7rocksdb8MemTable13KeyComparatorE";
#define TEKSDB_STRINGIFY_(x) #x
#define TEKSDB_STRINGIFY(x) TEKSDB_STRINGIFY_(x)
static_assert(std::string_view(TEKSDB_STRINGIFY(ROCKSDB_NAMESPACE)) == "rocksdb",
              "kMemTableKeyComparatorTypeName names the class in namespace rocksdb");
#undef TEKSDB_STRINGIFY
#undef TEKSDB_STRINGIFY_
#endif  // !TEKSDB_IN_ROCKSDB_TREE

// The user comparator that orders `cmp`'s user keys, when `cmp` is
// RocksDB's own MemTable::KeyComparator; nullptr for any other KeyComparator
// (one that code outside RocksDB passed to a factory), whose order is
// unknown, and outside a RocksDB tree also when librocksdb was built without
// RTTI (RocksDB's release default), which leaves its dynamic type unknown.
// Out of line (rocksdb_internals.cc): inlined into a caller that holds a
// smaller KeyComparator, GCC's -Warray-bounds flags the read the type check
// rules out.
const Comparator* UserComparatorOf(const MemTableRep::KeyComparator& cmp);

}  // namespace ROCKSDB_NAMESPACE

namespace teksdb {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "entry tags are decoded as little-endian fixed64");

using ROCKSDB_NAMESPACE::SequenceNumber;
using ROCKSDB_NAMESPACE::Slice;

// db/dbformat.h's ValueType values that can appear in a memtable entry.
enum EntryType : uint8_t {
  kEntryDeletion = 0x0,
  kEntryValue = 0x1,
  kEntryMerge = 0x2,
  kEntrySingleDeletion = 0x7,
  kEntryBlobIndex = 0x11,
  kEntryDeletionWithTimestamp = 0x14,
  kEntryWideColumnEntity = 0x16,
  kEntryValuePreferredSeqno = 0x18,  // TimedPut, RocksDB 9.1 and later
};

// db/dbformat.h's kValueTypeForSeek: the type of the keys a seek or a
// lookup builds (the largest type, so every entry at the sequence sorts at
// or after them).
#if TEKSDB_ROCKSDB_SEEKS_WITH_PREFERRED_SEQNO_TYPE
constexpr EntryType kEntryTypeForSeek = kEntryValuePreferredSeqno;
#else
constexpr EntryType kEntryTypeForSeek = kEntryWideColumnEntity;
#endif

// Bytes of the packed (seq << 8 | type) tag that ends every internal key.
constexpr size_t kTagSize = 8;

// The user key and the packed tag of an internal key (user key | tag).
inline Slice UserKeyOf(const Slice& internal_key) {
  assert(internal_key.size() >= kTagSize);
  return Slice(internal_key.data(), internal_key.size() - kTagSize);
}
inline uint64_t PackedTagOf(const Slice& internal_key) {
  assert(internal_key.size() >= kTagSize);
  uint64_t tag;
  std::memcpy(&tag, internal_key.data() + internal_key.size() - kTagSize, kTagSize);
  return tag;  // little-endian hosts only, as RocksDB's EncodeFixed64
}

// The packed tag of (seq, type).
inline uint64_t PackedTag(SequenceNumber seq, uint8_t type) {
  assert((seq >> 56) == 0);  // RocksDB's sequences have 56 bits
  return (seq << 8) | type;
}

// The largest packed tag of `seq` (type 0xff, above every entry type): it
// sorts before every entry with that sequence, so the first version at or
// below it is the newest one a reader at `seq` sees.
inline uint64_t MaxPackedTagOf(SequenceNumber seq) { return PackedTag(seq, 0xff); }

// True when a reader that finds this type stops looking at older versions of
// the key (everything except merge operands).
inline bool EndsVersionSearch(uint8_t type) {
  return type != kEntryMerge;
}

inline bool IsPutLike(uint8_t type) {
  return type == kEntryValue || type == kEntryBlobIndex || type == kEntryWideColumnEntity ||
         type == kEntryValuePreferredSeqno;
}
inline bool IsDeleteLike(uint8_t type) {
  return type == kEntryDeletion || type == kEntryDeletionWithTimestamp;
}

// A decoded view of one memtable entry.
// Reads the varint32 at `p` into `*value`; returns where it ends.
inline const char* DecodeVarint32(const char* p, uint32_t* value) {
  uint32_t result = 0;
  int shift = 0;
  const auto* q = reinterpret_cast<const uint8_t*>(p);
  while (true) {
    uint32_t byte = *q++;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
    assert(shift <= 28);  // a varint32 has at most 5 bytes
  }
  *value = result;
  return reinterpret_cast<const char*>(q);
}

struct EntryView {
  Slice internal_key;

  static EntryView Decode(const char* entry) {
    uint32_t len = 0;
    const char* key = DecodeVarint32(entry, &len);
    return EntryView{Slice(key, len)};
  }

  Slice user_key() const { return UserKeyOf(internal_key); }
  uint64_t packed_tag() const { return PackedTagOf(internal_key); }
  SequenceNumber sequence() const { return packed_tag() >> 8; }
  uint8_t type() const { return static_cast<uint8_t>(packed_tag() & 0xff); }
};

// The bytes of a memtable entry up to the end of its value; RocksDB may
// follow them with per-key protection bytes (memtable_protection_bytes_per_key).
inline size_t EncodedEntryLength(const char* entry) {
  const EntryView view = EntryView::Decode(entry);
  uint32_t value_len = 0;
  const char* value =
      DecodeVarint32(view.internal_key.data() + view.internal_key.size(), &value_len);
  return static_cast<size_t>(value - entry) + value_len;
}

inline bool SameBytes(const Slice& a, const Slice& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace teksdb
