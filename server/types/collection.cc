// Collection implementation: the member count in the meta record's
// payload (8 bytes big-endian) and the staged batch.
#include "collection.h"

#include "resp_reply.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

namespace {
int64_t DecodeCount(const std::string& payload) {
  uint64_t n = 0;
  for (size_t i = 0; i < 8 && i < payload.size(); ++i) {
    n = (n << 8) | static_cast<unsigned char>(payload[i]);
  }
  return static_cast<int64_t>(n);
}
std::string EncodeCount(int64_t count) {
  std::string payload(8, '\0');
  for (int i = 0; i < 8; ++i) {
    payload[i] = static_cast<char>(static_cast<uint64_t>(count) >> (56 - 8 * i));
  }
  return payload;
}
}  // namespace

bool Collection::Open(Request& r, char type) { return Open(r, type, r.args[1]); }

bool Collection::Replace(Request& r, char type, const std::string& key) {
  key_ = key;
  type_ = type;
  dirty_ = true;
  std::optional<Keyspace::Value> old;
  const Status s = r.keyspace->Read(key, &old);
  if (!s.ok()) ReplyStorageError(r, s);
  replaces_existing_ = old.has_value();
  return s.ok();
}

bool Collection::Open(Request& r, char type, const std::string& key) {
  key_ = key;
  type_ = type;
  const Status s = r.keyspace->Read(key_, &meta_);
  if (!s.ok()) {
    ReplyStorageError(r, s);
    return false;
  }
  if (meta_ && meta_->type != type) {
    reply::Error(r.out, kWrongType);
    return false;
  }
  count_ = meta_ ? DecodeCount(meta_->payload) : 0;
  version_ = meta_ ? meta_->version : 0;
  return true;
}

bool Collection::Settled(Request& r) { return !meta_ || StillHolds(r, key_, version_); }

bool Collection::ReadMember(Request& r, const std::string& member,
                            std::optional<std::string>* value) {
  value->reset();
  if (version_ == 0 || created_) return true;
  const Status s = r.keyspace->ReadMember(version_, member, value);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

bool Collection::ReadMemberUnlocked(Request& r, const std::string& member,
                                    std::optional<std::string>* value) {
  return ReadMember(r, member, value) && (value->has_value() || Settled(r));
}

bool Collection::ReadMembers(Request& r, const std::vector<std::string>& members,
                             std::vector<std::optional<std::string>>* values) {
  if (version_ == 0 || created_) {
    values->assign(members.size(), std::nullopt);
    return true;
  }
  const Status s = r.keyspace->ReadMembers(version_, members, values);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

bool Collection::LoadPresence(Request& r, const std::vector<std::string>& members) {
  std::vector<std::string> unknown;
  for (const std::string& m : members) {
    if (staged_.count(m) == 0) unknown.push_back(m);
  }
  std::vector<std::optional<std::string>> values;
  if (!ReadMembers(r, unknown, &values)) return false;
  for (size_t i = 0; i < unknown.size(); ++i) staged_.emplace(unknown[i], values[i].has_value());
  return true;
}

bool Collection::Present(Request& r, const std::string& member, bool* present) {
  const auto it = staged_.find(member);
  if (it != staged_.end()) {
    *present = it->second;
    return true;
  }
  std::optional<std::string> value;
  if (!ReadMember(r, member, &value)) return false;
  *present = value.has_value();
  return true;
}

bool Collection::PutMember(Request& r, const std::string& member, const std::string& value,
                           bool* existed) {
  if (version_ == 0) {
    const Status s = r.keyspace->NewVersion(&version_);
    if (!s.ok()) {
      ReplyStorageError(r, s);
      return false;
    }
    created_ = true;
  }
  if (!Present(r, member, existed)) return false;
  if (!*existed) ++count_;
  staged_[member] = true;
  batch_.PutMember(version_, member, value);
  dirty_ = true;
  return true;
}

bool Collection::DeleteMember(Request& r, const std::string& member, bool* existed) {
  if (!Present(r, member, existed)) return false;
  if (!*existed) return true;
  --count_;
  staged_[member] = false;
  batch_.DeleteMember(version_, member);
  dirty_ = true;
  return true;
}

bool Collection::DeleteListed(Request& r, int64_t* removed) {
  *removed = 0;
  if (!LoadPresence(r, std::vector<std::string>(r.args.begin() + 2, r.args.end()))) return false;
  for (size_t i = 2; i < r.args.size(); ++i) {
    bool existed;
    if (!DeleteMember(r, r.args[i], &existed)) return false;
    *removed += existed ? 1 : 0;
  }
  return true;
}

bool Collection::ForEach(Request& r,
                         const std::function<bool(const std::string&, const std::string&)>& visit) {
  if (!meta_) return true;
  const Status s = r.keyspace->ForEachMember(version_, visit);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

bool Collection::Commit(Request& r) {
  if (!dirty_) return true;
  const Keyspace::Value meta{type_, meta_ ? meta_->expire_ms : 0, EncodeCount(count_), version_};
  // An empty Replace of a key that held nothing: nothing to write.
  if (count_ <= 0 && !meta_ && !created_ && !replaces_existing_) return true;
  if (count_ <= 0) {
    batch_.Delete(key_);
  } else if (created_) {
    batch_.PutNew(key_, meta);
  } else {
    batch_.Put(key_, meta);
  }
  const Status s = r.keyspace->Commit(&batch_);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

}  // namespace teksdb::server
