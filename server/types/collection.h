// Collection: one command's view of a collection key (a hash, a set, a
// sorted set's members): its meta record (type, expiry, encoding, member
// count) and its members, with the command's changes staged in one batch.
// Open reads the meta record; PutMember and DeleteMember stage changes and
// keep the count, as the command sees it; Commit writes them and the meta
// record in one WriteBatch, deleting the key when no member is left, as
// Redis does.
//
// Two encodings, as Redis has listpacks and hash tables:
// - compact (compact_members.h): every member inside the meta record
//   (version 0), so a read of the whole collection is the meta record's
//   one point read and a write one put of it. New collections start so.
// - members: one record per member under the collection's version
//   (storage_format.h), for collections past the CONFIG limits
//   (compact_limits.h). PutMember converts a compact collection at the
//   member that takes it past a limit, where Redis converts, once: it gets
//   a new version and every member its record (a sorted set its score
//   index too), staged in the command's batch, and it never converts back. A collection created where none is (or an
//   expired key of any type lies) starts afresh: the old key's members, if
//   any, are never read again.
//
// Reads (ReadMember, ForEach, ForEachIndexEntry) see the collection as
// stored, before this command's staged changes, in its stored encoding.
//
// Hash field deadlines (Redis 7.4's HEXPIRE; DESIGN.md §14): a hash that
// is given one (EnableDeadlines) keeps each field's deadline beside it: a
// compact hash becomes a listpackex (compact_members.h: the deadline
// inside the field's stored value, a due version to name it by), a hash
// of one record per field gains HashFlags after its count
// (storage_format.h) and an "E" record beside each "H" record that has a
// deadline; each deadline has a due entry for the sweep. A listpackex past
// the listpack limits converts as a listpack does, its deadlines with it.
// Reads skip a field past its deadline (a point read notes it for its
// connection to reclaim: Keyspace::NoteExpiredField; expired_met counts
// those a write command met); HLEN's count counts it until it is
// reclaimed, as Redis's does. PutMember clears the field's deadline (HSET)
// unless told to keep it (HINCRBY); DeleteMember deletes it with the
// field. A hash with no deadline pays one test per read.
//
// Thread safety: one command's, on one thread. Commands that write hold
// the key's lock (Keyspace::LockKeys) from before Open to after Commit.
// Commands that only read hold none: when they meet fewer members than the
// count they read, or miss a member, they ask Settled whether the key
// still holds the version they read (a compaction may remove a replaced
// version's members at any time), and start over when it does not. A
// compact collection is read whole with its meta record, so it is always
// settled.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compact_members.h"
#include "request.h"
#include "storage_format.h"

namespace teksdb::server {

class Collection {
 public:
  // Reads the key r.args[1] (or `key`). False, having replied, on a storage
  // error or when the key holds another type (WRONGTYPE).
  bool Open(Request& r, char type);
  bool Open(Request& r, char type, const std::string& key);
  // A collection that replaces whatever `key` holds (SINTERSTORE and
  // friends): a new version at the first PutMember, expiring at
  // `expire_ms` (0: no TTL; RESTORE's); Commit deletes the key if no member
  // was put and it held something. `entries_only`: a hash or sorted set
  // stays compact whatever its values' sizes, up to its limit of entries
  // (RESTORE of a listpack, as Redis keeps one). False, having replied, on
  // a storage error.
  bool Replace(Request& r, char type, const std::string& key, int64_t expire_ms = 0,
               bool entries_only = false);
  bool exists() const { return meta_.has_value(); }
  int64_t count() const { return count_; }
  // Whether the members are in the meta record (see above): true for a
  // collection that did not exist, until a PutMember converts it.
  bool compact() const { return version_ == 0; }
  // Whether the hash's fields may have deadlines (see above), as this
  // command left it so far.
  bool has_deadlines() const {
    return (hash_flags_ & storage_format::kHashDeadlines) != 0 || listpack_ex();
  }
  // Fields past their deadline that this command's reads met (see above).
  int64_t expired_met() const { return expired_met_; }

  // False, having replied, on a storage error.
  bool ReadMember(Request& r, const std::string& member, std::optional<std::string>* value);
  // ReadMember for commands without the key's lock: a miss is checked
  // (Settled); false, having replied or set r.retry, when the command must
  // stop.
  bool ReadMemberUnlocked(Request& r, const std::string& member,
                          std::optional<std::string>* value);
  // Several members at once (one MultiGet); as stored, before this
  // command's staged changes. `deadlines`, if set: each hash field's
  // deadline as read beside it (0: none).
  bool ReadMembers(Request& r, const std::vector<std::string>& members,
                   std::vector<std::optional<std::string>>* values,
                   std::vector<int64_t>* deadlines = nullptr);
  // Reads whether each of `members` is stored, in one MultiGet, so that
  // the PutMember and DeleteMember calls that follow need no read of their
  // own (HSET, SADD, HDEL, SREM of several members).
  bool LoadPresence(Request& r, const std::vector<std::string>& members);
  // `keep_deadline`: a hash field keeps its deadline (HINCRBY), else loses
  // it (HSET).
  bool PutMember(Request& r, const std::string& member, const std::string& value, bool* existed,
                 bool keep_deadline = false);
  bool DeleteMember(Request& r, const std::string& member, bool* existed);
  // HDEL and SREM: deletes the members r.args[2...]; *removed says how many
  // were there.
  bool DeleteListed(Request& r, int64_t* removed);
  // Members in order, as stored, from `from` on, until `visit` returns
  // false. Hash fields past their deadline are skipped, each passed to
  // `expired` if set (which may stop the walk too).
  using ExpiredVisit = std::function<bool(const std::string& field)>;
  bool ForEach(Request& r, const std::function<bool(const std::string&, const std::string&)>& visit,
               const std::string& from = std::string(), const ExpiredVisit& expired = nullptr);

  // Hash field deadlines (REQUIRES the key's lock, a hash that exists).
  // Makes the hash one that may have them (a compact one a listpackex).
  bool EnableDeadlines(Request& r);
  // The field's stored deadline (0: none) and whether it is there, staged
  // changes included. A field past its deadline is there until reclaimed.
  bool FieldDeadline(Request& r, const std::string& member, bool* present, int64_t* deadline);
  // Sets (0: clears) a present field's deadline. REQUIRES has_deadlines().
  bool SetDeadline(Request& r, const std::string& member, int64_t deadline_ms);
  // A sorted set's score index (sorted_set.h's IndexEntry: score, then
  // member), as stored: forward from `from` on, or backward from below
  // `before` (all entries if empty) down.
  bool ForEachIndexEntry(Request& r, const std::function<bool(const std::string&)>& visit,
                         const std::string& from = std::string());
  bool ForEachIndexEntryBackward(Request& r, const std::function<bool(const std::string&)>& visit,
                                 const std::string& before = std::string());
  // Stages a sorted set's index change beside its member's (nothing to
  // stage while compact: the index is the members' order).
  void PutIndex(const std::string& entry);
  void DeleteIndex(const std::string& entry);
  bool Commit(Request& r);
  // Converts a compact collection to one record per member now and
  // commits (REQUIRES the key's lock): SORT's, as Redis's SORT turns a
  // small sorted set into its skip list. No-op for any other.
  bool ConvertNow(Request& r);
  // For commands without the key's lock, after a read that missed or came
  // up short: true if the key still holds the version Open read; false
  // (having set r.retry, so that the command runs again) if not.
  bool Settled(Request& r);
  // Settled for a read of the whole collection that met `seen` members and
  // whose meta record may be the pipeline's read-ahead (HGETALL, SMEMBERS:
  // connection.cc's IsPointRead), older than the members it read: a
  // record-per-member scan is checked whatever it met.
  bool WholeReadSettled(Request& r, int64_t seen) {
    return (seen >= count_ && compact()) || Settled(r);
  }

 private:
  // Whether `member` is there now, staged changes included.
  bool Present(Request& r, const std::string& member, bool* present);
  // A hash field's deadline as ReadMember sees it: true if the field is
  // there and past it (then it reads as absent).
  bool PastDeadline(Request& r, const std::string& member, int64_t deadline_ms);
  // Reads the stored deadlines of `members` not known yet into deadlines_.
  bool LoadDeadlines(Request& r, const std::vector<std::string>& members);
  // Whether the compact payload this command edits is a listpackex.
  bool listpack_ex() const { return compact() && encoding_ == compact_members::kListpackEx; }
  // A compact collection's payload, copied for a write (edited_).
  bool Editable(Request& r);
  // The value of `member` in the stored compact payload (and, if set, its
  // deadline: 0 for none).
  bool FindCompact(Request& r, const std::string& member, std::optional<std::string>* value,
                   int64_t* deadline = nullptr);
  // A listpackex's: `member`'s deadline in the payload this command edits
  // (0: none, or not there).
  int64_t EditedDeadline(const std::string& member) const;
  // Every index entry of a compact sorted set as stored, in order.
  bool CompactIndex(Request& r, std::vector<std::string>* entries);
  // Whether a compact collection is past a limit after a PutMember,
  // checked where Redis checks (sets: settles encoding_ first).
  bool PastLimits(Request& r);
  // Stages every member (and index entry) under a new version, each marked
  // present in staged_: the collection is one record per member from then
  // on.
  bool ConvertToMembers(Request& r);

  std::string key_;
  char type_ = 0;
  std::optional<Keyspace::Value> meta_;
  char encoding_ = 0;  // compact: compact_members::kListpack or kIntset
  // compact, once a write began: the payload after this command's changes
  std::optional<std::string> edited_;
  // compact: the members this command put (a compact payload), what Commit
  // writes as a merge operand when puts are all it did (compact_puts_merge.h)
  std::string puts_;
  bool puts_only_ = true;  // no member deleted
  bool grown_ = false;        // a write that Redis checks the limits at (PutMember)
  bool oversized_ = false;    // a member or value written is past the value limit
  bool non_integer_ = false;  // a set member written is not an integer
  // the version members are written under; 0 while compact (storage_format.h)
  uint64_t version_ = 0;
  bool created_ = false;  // version_ is new (converted): Commit writes the owner record too
  int64_t count_ = 0;
  Keyspace::Batch batch_;
  // member -> present after this command's changes so far (or as stored,
  // for members LoadPresence read; every member once converted)
  std::map<std::string, bool> staged_;
  bool dirty_ = false;
  uint8_t hash_flags_ = 0;  // a record-per-member hash's (storage_format.h)
  // The listpackex's due version (compact_members.h) is new: Commit writes
  // its owner record.
  bool due_created_ = false;
  // has_deadlines(): the deadline of each field loaded so far, as staged
  std::map<std::string, int64_t> deadlines_;
  int64_t expired_met_ = 0;
  bool replaces_existing_ = false;  // Replace found the key holding something
  int64_t replace_expire_ms_ = 0;   // Replace's TTL
  bool entries_only_ = false;       // Replace's: only the entry limit converts
};

// A stored collection's member count (its meta record's), whatever its encoding.
int64_t MemberCount(const Keyspace::Value& value);
// Every member of a stored collection, in order, whatever its encoding
// (DEBUG DIGEST, MEMORY USAGE), until `visit` returns false. Corruption for
// a damaged compact record.
ROCKSDB_NAMESPACE::Status ForEachStoredMember(
    const Keyspace& keyspace, const Keyspace::Value& value,
    const std::function<bool(const std::string& member, const std::string& value)>& visit);

}  // namespace teksdb::server
