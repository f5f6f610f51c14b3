// CompactMembers: how a small hash, set or sorted set lies inside its meta
// record (storage_format.h), as Redis keeps one in a listpack or an intset:
// the meta record's version is 0 and its payload holds every member, so
// that reading the whole collection is one point read and writing it one
// put of that record.
//
// Payload layout:
//   [encoding: 1 byte] ([due version: 8 bytes], kListpackEx only)
//   [count: varint] then, per member, in member order
//   (bytewise, the order of a version's member records):
//   [member length: varint] [member] [value length: varint] [value]
// The encoding byte is the name OBJECT ENCODING gives: kListpack for
// hashes, sorted sets and sets of strings, kIntset for sets whose members
// are all integers, kListpackEx for hashes with field deadlines (Redis
// 7.4's listpackex). A hash member's value is the field's value (in a
// kListpackEx, after the field's deadline: 8 bytes big-endian,
// milliseconds since the epoch, 0 for none), a sorted set's its score (8
// raw bytes, sorted_set.h), a set's empty. A kListpackEx's due version
// names the hash in the due entries of its fields' deadlines
// (storage_format.h's "T" records), and has an owner record as a
// collection's version has; the meta record's own version stays 0.
//
// Invariants: members are distinct and in strictly increasing order; the
// count is theirs. Decoding checks every length against the bytes left, so
// a damaged record reads as Corruption, never past its end.
//
// Thread safety: pure functions, a reader over bytes its caller keeps, and
// edits of a payload its caller owns.
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/slice.h"

namespace teksdb::server::compact_members {

constexpr char kListpack = 'l';
constexpr char kIntset = 'i';
constexpr char kListpackEx = 'e';

// The encoding byte and count of a compact payload; false if it is not one.
bool ReadHeader(const ROCKSDB_NAMESPACE::Slice& payload, char* encoding, int64_t* count);

// Walks a compact payload's members in order.
class Reader {
 public:
  // REQUIRES: `payload` outlives the reader.
  explicit Reader(const ROCKSDB_NAMESPACE::Slice& payload);
  // The next member and its value (pointing into the payload); false at
  // the end, or when the bytes are damaged (then corrupt()): in a
  // kListpackEx, a stored value shorter than its deadline too.
  bool Next(ROCKSDB_NAMESPACE::Slice* member, ROCKSDB_NAMESPACE::Slice* value);
  bool corrupt() const { return corrupt_; }

 private:
  ROCKSDB_NAMESPACE::Slice rest_;
  int64_t left_ = 0;
  bool corrupt_ = false;
  bool deadlines_ = false;  // a kListpackEx: each value starts with its deadline
};

// The payload of no member in `encoding` (kListpack or kIntset).
std::string Empty(char encoding);

// kListpackEx: its due version (0 for any other payload); a kListpack
// hash's payload as a kListpackEx of `due_version` whose fields have no
// deadline; the same payload under another due version (COPY).
uint64_t DueVersion(const ROCKSDB_NAMESPACE::Slice& payload);
std::string WithDeadlines(const ROCKSDB_NAMESPACE::Slice& listpack, uint64_t due_version);
void SetDueVersion(std::string* payload, uint64_t due_version);
// A kListpackEx member's stored value: its deadline and the field's value
// (REQUIRES at least 8 bytes: what Reader and WellFormed pass); and the
// stored value of a field's value and deadline.
int64_t DeadlineOf(const ROCKSDB_NAMESPACE::Slice& stored);
ROCKSDB_NAMESPACE::Slice ValueOf(const ROCKSDB_NAMESPACE::Slice& stored);
std::string Stored(int64_t deadline_ms, const ROCKSDB_NAMESPACE::Slice& value);
// Whether a payload is whole: its header, then exactly its count of members
// in strictly increasing order.
bool WellFormed(const ROCKSDB_NAMESPACE::Slice& payload);

// Edits of a payload in place, each O(its size) with no allocation per
// member (a write to a compact collection touches a few members of it).
// REQUIRES: WellFormed(*payload).
// Whether member is there; its stored value (pointing into the payload).
bool Contains(const std::string& payload, const ROCKSDB_NAMESPACE::Slice& member);
bool Find(const std::string& payload, const ROCKSDB_NAMESPACE::Slice& member,
          ROCKSDB_NAMESPACE::Slice* value);
// Sets member's value, inserting it in order if new; whether it was there.
bool Put(std::string* payload, const ROCKSDB_NAMESPACE::Slice& member,
         const ROCKSDB_NAMESPACE::Slice& value);
// Removes member; whether it was there.
bool Erase(std::string* payload, const ROCKSDB_NAMESPACE::Slice& member);
void SetEncoding(std::string* payload, char encoding);

}  // namespace teksdb::server::compact_members
