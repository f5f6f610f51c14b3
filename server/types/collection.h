// Collection: one command's view of a collection key (a hash, a set, a
// sorted set's members): its meta record (type, expiry, version, member
// count) and its members (keyspace.h), with the command's changes staged in
// one batch. Open reads the meta record; PutMember and DeleteMember stage
// changes and keep the count, as the command sees it; Commit writes them
// and the meta record in one WriteBatch, deleting the key when no member is
// left, as Redis does. A collection created where none is (or an expired
// key of any type lies) gets a new version: the old key's members, if
// any, are never read again.
//
// Thread safety: one command's, on one thread. Commands that write hold
// the key's lock (Keyspace::LockKeys) from before Open to after Commit.
// Commands that only read hold none: when they meet fewer members than the
// count they read, or miss a member, they ask Settled whether the key
// still holds the version they read (a compaction may remove a replaced
// version's members at any time), and start over when it does not.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "request.h"

namespace teksdb::server {

class Collection {
 public:
  // Reads the key r.args[1] (or `key`). False, having replied, on a storage
  // error or when the key holds another type (WRONGTYPE).
  bool Open(Request& r, char type);
  bool Open(Request& r, char type, const std::string& key);
  // A collection that replaces whatever `key` holds (SINTERSTORE and
  // friends): a new version at the first PutMember, no TTL; Commit deletes
  // the key if no member was put and it held something. False, having
  // replied, on a storage error.
  bool Replace(Request& r, char type, const std::string& key);
  bool exists() const { return meta_.has_value(); }
  int64_t count() const { return count_; }
  // The version members are read and written under (0 before the first
  // PutMember of a collection that did not exist).
  uint64_t version() const { return version_; }

  // False, having replied, on a storage error.
  bool ReadMember(Request& r, const std::string& member, std::optional<std::string>* value);
  // ReadMember for commands without the key's lock: a miss is checked
  // (Settled); false, having replied or set r.retry, when the command must
  // stop.
  bool ReadMemberUnlocked(Request& r, const std::string& member,
                          std::optional<std::string>* value);
  // Several members at once (one MultiGet); as stored, before this
  // command's staged changes.
  bool ReadMembers(Request& r, const std::vector<std::string>& members,
                   std::vector<std::optional<std::string>>* values);
  // Reads whether each of `members` is stored, in one MultiGet, so that
  // the PutMember and DeleteMember calls that follow need no read of their
  // own (HSET, SADD, HDEL, SREM of several members).
  bool LoadPresence(Request& r, const std::vector<std::string>& members);
  bool PutMember(Request& r, const std::string& member, const std::string& value, bool* existed);
  bool DeleteMember(Request& r, const std::string& member, bool* existed);
  // HDEL and SREM: deletes the members r.args[2...]; *removed says how many
  // were there.
  bool DeleteListed(Request& r, int64_t* removed);
  // Members in order, as stored (before this command's staged changes).
  bool ForEach(Request& r, const std::function<bool(const std::string&, const std::string&)>& visit);
  bool Commit(Request& r);
  // The batch Commit writes, for records beside the members (a sorted set's
  // score index, under version()).
  Keyspace::Batch& batch() { return batch_; }
  // For commands without the key's lock, after a read that missed or came
  // up short: true if the key still holds the version Open read; false
  // (having set r.retry, so that the command runs again) if not.
  bool Settled(Request& r);

 private:
  // Whether `member` is there now, staged changes included.
  bool Present(Request& r, const std::string& member, bool* present);

  std::string key_;
  char type_ = 0;
  std::optional<Keyspace::Value> meta_;
  uint64_t version_ = 0;
  bool created_ = false;  // version_ is new: Commit writes the owner record too
  int64_t count_ = 0;
  Keyspace::Batch batch_;
  // member -> present after this command's changes so far (or as stored,
  // for members LoadPresence read)
  std::map<std::string, bool> staged_;
  bool dirty_ = false;
  bool replaces_existing_ = false;  // Replace found the key holding something
};

}  // namespace teksdb::server
