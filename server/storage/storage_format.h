// StorageFormat: how teksdb-server lays Redis keys out in RocksDB (format 8,
// versioned collections in 16 databases, small ones inside their meta
// record, which merge operands may follow, lists in chunks, hash fields with
// deadlines), in one place: the record keys,
// the meta record's encoding, and the format record that a database
// carries from its creation. Keyspace (keyspace.h) reads and writes through it; the stale
// member filter (stale_member_filter.h) decodes with it.
//
// Records, in key order (every byte string below is a RocksDB key):
//   "E" version field           a hash field's deadline (value: milliseconds
//                               since the epoch, 8 bytes big-endian), for
//                               the fields of a hash with deadlines that
//                               have one
//   "H" version member          a collection member: a hash field (value:
//                               the field's value), a set member (empty), a
//                               list's chunk of elements (member: its id
//                               biased by 2^63, big-endian), a sorted-set member
//                               (value: its score)
//   "M" slot key                the key's meta record: [type][expiry][version]
//                               [payload], below; `slot` (one byte, 0-15)
//                               is the database's slot, below
//   "O" version                 owner record of a collection version: the
//                               slot and key that hold it (the stale member
//                               filter's way from a member to its meta)
//   "T" deadline version field  the deadlines by time, for the expiry sweep
//                               (deadline 8 bytes big-endian, value empty;
//                               version: the hash's, or a listpackex's due
//                               version, compact_members.h): a hint,
//                               checked against the field's own deadline
//                               before anything is deleted
//   "Z" version score member    a sorted set's score index
//   "\xff" name                 server records: the format, the version
//                               ceiling (version_allocator.h), the
//                               function libraries ("function-library:"
//                               name, value: the library's code), the
//                               databases' slots ("db-slots"); FLUSHALL
//                               keeps them, every other record sorts below
//                               kServerRecords
// versions are 8 bytes big-endian, so one version's members are contiguous
// and in member order (a whole hash is a seek and a scan).
//
// Databases and slots: SELECT's databases 0-15 each keep their meta
// records under one slot; the "db-slots" record (16 bytes, byte i: the
// slot of database i; absent: database i in slot i) says which. SWAPDB
// swaps two of its bytes, O(1) whatever the databases hold; a record's
// slot never changes, so members and owner records are never rewritten.
//
// Meta value: the type byte ('s' string, 'h' hash, 'S' set, 'l' list, 'z'
// sorted set, 'x' stream), the expiry (milliseconds since the epoch, 8 bytes
// big-endian; 0: none), then for a collection its version (8 bytes
// big-endian), then the payload: a string's value; a hash's, set's or
// sorted set's member count (8 bytes big-endian; a hash's may be followed
// by one byte of HashFlags), or, when its version is
// 0, the compact collection itself (compact_members.h: no member, index
// or owner record at all; members put into it may follow as merge
// operands, compact_puts_merge.h); a small list's elements (version 0),
// a large list's count, first and last chunk and generation
// (types/list_store.h); a
// stream's length, ids and counters (stream_store.h: its entries, groups,
// consumers and pending entries are member records).
//
// Invariants: a version names one collection for ever (version_allocator.h
// never hands one out twice, restarts included), so members are reached
// only through the meta record's current version, and replacing or deleting
// a collection is one write of its meta record, whatever its size: the
// members of the old version are invisible from that write on and are
// removed by compactions (stale_member_filter.h).
//
// Thread safety: pure functions and constants.
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/db.h"
#include "rocksdb/slice.h"

namespace teksdb::server::storage_format {

// Bumped whenever a record's layout changes; a database of another format
// is refused at start (Prepare).
constexpr int kFormat = 8;
// SELECT's databases, each in one slot.
constexpr int kDatabases = 16;
// The format record's value, "teksdb-server format 8": also what a replica
// and its primary compare (both must read the same records).
std::string FormatName();

constexpr char kString = 's';
constexpr char kHash = 'h';
constexpr char kSet = 'S';
constexpr char kList = 'l';
constexpr char kZSet = 'z';
constexpr char kStream = 'x';

constexpr char kMemberTag = 'H';
constexpr char kMetaTag = 'M';
constexpr char kOwnerTag = 'O';
constexpr char kIndexTag = 'Z';
constexpr char kDeadlineTag = 'E';
constexpr char kDueTag = 'T';

// Every data record sorts below this key; server records start with it.
inline ROCKSDB_NAMESPACE::Slice ServerRecords() { return ROCKSDB_NAMESPACE::Slice("\xff", 1); }
std::string FormatKey();
std::string VersionCeilingKey();
// The function libraries' records: every one starts with the prefix.
std::string FunctionLibraryPrefix();
std::string FunctionLibraryKey(const std::string& name);
std::string DatabaseSlotsKey();

// A meta record's contents. `version` is 0 for strings.
struct Meta {
  char type = kString;
  int64_t expire_ms = 0;  // 0: never
  std::string payload;
  uint64_t version = 0;
};

inline bool IsCollection(char type) { return type != kString; }

// A meta record decoded in place: its payload points into the bytes
// decoded, valid while they are.
struct MetaView {
  char type = kString;
  int64_t expire_ms = 0;
  ROCKSDB_NAMESPACE::Slice payload;
  uint64_t version = 0;
};

// "M" slot: the prefix of one slot's meta records.
std::string MetaPrefix(uint8_t slot);
std::string MetaKey(uint8_t slot, const ROCKSDB_NAMESPACE::Slice& key);
// MetaKey into `out`, reusing its buffer.
void AssignMetaKey(uint8_t slot, const ROCKSDB_NAMESPACE::Slice& key, std::string* out);
// The slot and key of a meta record's key; false for any other record.
bool ParseMetaKey(const ROCKSDB_NAMESPACE::Slice& record, uint8_t* slot,
                  ROCKSDB_NAMESPACE::Slice* key);
// An owner record's value (slot, key), and the meta record it names.
std::string OwnerValue(uint8_t slot, const ROCKSDB_NAMESPACE::Slice& key);
std::string MetaKeyOfOwner(const ROCKSDB_NAMESPACE::Slice& owner);
std::string EncodeMeta(const Meta& meta);
// False for bytes no meta record holds (too short, an unknown type).
bool DecodeMeta(const ROCKSDB_NAMESPACE::Slice& bytes, Meta* meta);
bool DecodeMetaView(const ROCKSDB_NAMESPACE::Slice& bytes, MetaView* meta);

// "H" version, "Z" version and "E" version: the prefixes of one version's
// records.
std::string MemberPrefix(uint64_t version);
std::string IndexPrefix(uint64_t version);
std::string DeadlinePrefix(uint64_t version);
std::string OwnerKey(uint64_t version);
// "T": the prefix of every due entry; one entry's key, and its parts
// (false for bytes that are not one).
inline ROCKSDB_NAMESPACE::Slice DuePrefix() { return ROCKSDB_NAMESPACE::Slice("T", 1); }
std::string DueKey(int64_t deadline_ms, uint64_t version, const ROCKSDB_NAMESPACE::Slice& field);
bool ParseDueKey(const ROCKSDB_NAMESPACE::Slice& record, int64_t* deadline_ms, uint64_t* version,
                 ROCKSDB_NAMESPACE::Slice* field);
// The tag and version of a member, index, deadline, due or owner record's
// key; false for any other record.
bool ParseVersionedKey(const ROCKSDB_NAMESPACE::Slice& record, char* tag, uint64_t* version);

// A record-per-member collection's payload: its member count, and for a
// hash the HashFlags byte after it (absent: none).
enum HashFlags : uint8_t {
  kHashDeadlines = 1,  // fields may have deadlines ("E" records)
};
int64_t PayloadCount(const ROCKSDB_NAMESPACE::Slice& payload);
uint8_t PayloadHashFlags(const ROCKSDB_NAMESPACE::Slice& payload);
std::string CountPayload(int64_t count, uint8_t hash_flags = 0);

// The smallest key above every key that starts with `prefix` (empty when
// there is none: `prefix` is all 0xff bytes).
std::string PrefixEnd(const std::string& prefix);

void AppendU64(std::string* out, uint64_t v);
uint64_t ReadU64(const char* bytes);

// At start: writes the format record into a database with no records at
// all, accepts one that has this format's, and refuses (InvalidArgument,
// saying what it found and what this server reads) any other: data of an
// older teksdb-server (format 1 had no format record; format 2 had one
// database; format 3 no compact collections) or of another program.
ROCKSDB_NAMESPACE::Status Prepare(ROCKSDB_NAMESPACE::DB* db);

}  // namespace teksdb::server::storage_format
