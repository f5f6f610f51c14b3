// Collection implementation: a member-record collection's count in its meta
// record's payload (8 bytes big-endian), a compact one's members there
// (compact_members.h), and the staged batch.
#include "collection.h"

#include <algorithm>

#include "compact_members.h"
#include "compact_puts_merge.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

namespace {

Status Damaged(const std::string& key) {
  return Status::Corruption("compact collection record of key " + key + " is damaged");
}

bool IsInteger(const std::string& member) {
  int64_t n;
  return ParseStrictInt64(member, &n);
}

int64_t Limit(const std::atomic<int64_t>& limit) { return limit.load(std::memory_order_relaxed); }

}  // namespace

int64_t MemberCount(const Keyspace::Value& value) {
  if (value.version != 0) return storage_format::PayloadCount(value.payload);
  char encoding;
  int64_t count = 0;
  compact_members::ReadHeader(value.payload, &encoding, &count);
  return count;
}

Status ForEachStoredMember(
    const Keyspace& keyspace, const Keyspace::Value& value,
    const std::function<bool(const std::string& member, const std::string& value)>& visit) {
  if (value.version != 0) return keyspace.ForEachMember(value.version, visit);
  compact_members::Reader reader(value.payload);
  const bool deadlines = compact_members::DueVersion(value.payload) != 0;
  Slice member, v;
  while (reader.Next(&member, &v)) {
    const Slice field_value = deadlines ? compact_members::ValueOf(v) : v;
    if (!visit(member.ToString(), field_value.ToString())) return Status::OK();
  }
  return reader.corrupt() ? Status::Corruption("compact collection record is damaged")
                          : Status::OK();
}

bool Collection::Open(Request& r, char type) { return Open(r, type, r.args[1]); }

bool Collection::Replace(Request& r, char type, const std::string& key, int64_t expire_ms,
                         bool entries_only) {
  key_ = key;
  type_ = type;
  replace_expire_ms_ = expire_ms;
  entries_only_ = entries_only;
  encoding_ = type == Keyspace::kSet ? compact_members::kIntset : compact_members::kListpack;
  edited_ = compact_members::Empty(encoding_);
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
  encoding_ = type == Keyspace::kSet ? compact_members::kIntset : compact_members::kListpack;
  if (!meta_) return true;
  version_ = meta_->version;
  if (!compact()) {
    count_ = storage_format::PayloadCount(meta_->payload);
    if (type == Keyspace::kHash) hash_flags_ = storage_format::PayloadHashFlags(meta_->payload);
  } else if (!compact_members::ReadHeader(meta_->payload, &encoding_, &count_) ||
             (encoding_ == compact_members::kIntset && type != Keyspace::kSet) ||
             (encoding_ == compact_members::kListpackEx && type != Keyspace::kHash)) {
    ReplyStorageError(r, Damaged(key_));
    return false;
  }
  return true;
}

bool Collection::Settled(Request& r) {
  return !meta_ || meta_->version == 0 || StillHolds(r, key_, meta_->version);
}

bool Collection::FindCompact(Request& r, const std::string& member,
                             std::optional<std::string>* value, int64_t* deadline) {
  compact_members::Reader reader(meta_->payload);
  const bool deadlines = compact_members::DueVersion(meta_->payload) != 0;
  Slice m, v;
  while (reader.Next(&m, &v)) {
    const int order = m.compare(member);
    if (order == 0 && deadlines) {
      if (deadline != nullptr) *deadline = compact_members::DeadlineOf(v);
      if (!PastDeadline(r, member, compact_members::DeadlineOf(v))) {
        *value = compact_members::ValueOf(v).ToString();
      }
      return true;
    }
    if (order == 0) {
      *value = v.ToString();
      return true;
    }
    if (order > 0) return true;
  }
  if (reader.corrupt()) ReplyStorageError(r, Damaged(key_));
  return !reader.corrupt();
}

bool Collection::PastDeadline(Request& r, const std::string& member, int64_t deadline_ms) {
  if (deadline_ms == 0 || deadline_ms > Keyspace::NowMs()) return false;
  ++expired_met_;
  r.keyspace->NoteExpiredField(key_, member);
  return true;
}

bool Collection::ReadMember(Request& r, const std::string& member,
                            std::optional<std::string>* value) {
  value->reset();
  if (!meta_) return true;
  if (meta_->version == 0) return FindCompact(r, member, value);
  // The deadline before the value: a field the sweep deletes in between
  // reads as absent, never as its value with no deadline.
  std::vector<int64_t> deadlines(1, 0);
  Status s = has_deadlines() ? r.keyspace->ReadDeadlines(meta_->version, {member}, &deadlines)
                             : Status::OK();
  if (s.ok()) s = r.keyspace->ReadMember(meta_->version, member, value);
  if (s.ok() && value->has_value() && PastDeadline(r, member, deadlines[0])) value->reset();
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

bool Collection::ReadMemberUnlocked(Request& r, const std::string& member,
                                    std::optional<std::string>* value) {
  return ReadMember(r, member, value) && (value->has_value() || Settled(r));
}

bool Collection::ReadMembers(Request& r, const std::vector<std::string>& members,
                             std::vector<std::optional<std::string>>* values,
                             std::vector<int64_t>* deadlines) {
  std::vector<int64_t> read(members.size(), 0);
  if (deadlines == nullptr) deadlines = &read;
  deadlines->assign(members.size(), 0);
  values->assign(members.size(), std::nullopt);
  if (!meta_) return true;
  if (meta_->version == 0) {
    for (size_t i = 0; i < members.size(); ++i) {
      if (!FindCompact(r, members[i], &(*values)[i], &(*deadlines)[i])) return false;
    }
    return true;
  }
  // (Deadlines first, as ReadMember reads them.)
  Status s = has_deadlines() ? r.keyspace->ReadDeadlines(meta_->version, members, deadlines)
                             : Status::OK();
  if (s.ok()) s = r.keyspace->ReadMembers(meta_->version, members, values);
  for (size_t i = 0; s.ok() && i < members.size(); ++i) {
    if ((*values)[i] && PastDeadline(r, members[i], (*deadlines)[i])) (*values)[i].reset();
  }
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

bool Collection::Editable(Request& r) {
  if (edited_) return true;
  if (meta_ && !compact_members::WellFormed(meta_->payload)) {
    ReplyStorageError(r, Damaged(key_));
    return false;
  }
  edited_ = meta_ ? meta_->payload : compact_members::Empty(encoding_);
  return true;
}

bool Collection::LoadPresence(Request& r, const std::vector<std::string>& members) {
  if (compact()) return Editable(r);
  if (created_) return true;  // converted: staged_ holds every member
  std::vector<std::string> unknown;
  for (const std::string& m : members) {
    if (staged_.count(m) == 0) unknown.push_back(m);
  }
  // As stored: a field past its deadline is there until reclaimed.
  std::vector<std::optional<std::string>> values;
  const Status s = r.keyspace->ReadMembers(version_, unknown, &values);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  for (size_t i = 0; i < unknown.size(); ++i) staged_.emplace(unknown[i], values[i].has_value());
  return LoadDeadlines(r, unknown);
}

bool Collection::LoadDeadlines(Request& r, const std::vector<std::string>& members) {
  if (compact() || !has_deadlines() || created_) return true;
  std::vector<std::string> unknown;
  for (const std::string& m : members) {
    if (deadlines_.count(m) == 0) unknown.push_back(m);
  }
  std::vector<int64_t> deadlines;
  const Status s = r.keyspace->ReadDeadlines(version_, unknown, &deadlines);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  for (size_t i = 0; i < unknown.size(); ++i) deadlines_.emplace(unknown[i], deadlines[i]);
  return true;
}

bool Collection::Present(Request& r, const std::string& member, bool* present) {
  if (compact()) {
    if (!Editable(r)) return false;
    *present = compact_members::Contains(*edited_, member);
    return true;
  }
  const auto it = staged_.find(member);
  if (it != staged_.end() || created_) {
    // (Once converted, staged_ holds every member.)
    *present = it != staged_.end() && it->second;
    return true;
  }
  if (!LoadPresence(r, {member})) return false;
  *present = staged_[member];
  return true;
}

bool Collection::EnableDeadlines(Request& r) {
  if (has_deadlines()) return true;
  dirty_ = true;
  if (!compact()) {
    hash_flags_ |= storage_format::kHashDeadlines;
    return true;
  }
  // A listpack becomes a listpackex: a due version of its own, whose owner
  // record Commit writes.
  if (!Editable(r)) return false;
  uint64_t due_version;
  const Status s = r.keyspace->NewVersion(&due_version);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  edited_ = compact_members::WithDeadlines(*edited_, due_version);
  encoding_ = compact_members::kListpackEx;
  due_created_ = true;
  puts_only_ = false;
  return true;
}

bool Collection::FieldDeadline(Request& r, const std::string& member, bool* present,
                               int64_t* deadline) {
  *deadline = 0;
  if (!Present(r, member, present)) return false;
  if (*present && compact()) {
    *deadline = EditedDeadline(member);
  } else if (*present && has_deadlines()) {
    const auto it = deadlines_.find(member);
    *deadline = it == deadlines_.end() ? 0 : it->second;
  }
  return true;
}

int64_t Collection::EditedDeadline(const std::string& member) const {
  Slice stored;
  return listpack_ex() && compact_members::Find(*edited_, member, &stored)
             ? compact_members::DeadlineOf(stored)
             : 0;
}

bool Collection::SetDeadline(Request& r, const std::string& member, int64_t deadline_ms) {
  if (compact()) {
    Slice stored;
    if (!Editable(r)) return false;
    if (!listpack_ex() || !compact_members::Find(*edited_, member, &stored)) return true;
    const int64_t old = compact_members::DeadlineOf(stored);
    if (old == deadline_ms) return true;
    const std::string value = compact_members::Stored(deadline_ms, compact_members::ValueOf(stored));
    compact_members::Put(&*edited_, member, value);
    const uint64_t due_version = compact_members::DueVersion(*edited_);
    if (old != 0) batch_.DeleteDue(old, due_version, member);
    if (deadline_ms != 0) batch_.PutDue(deadline_ms, due_version, member);
    dirty_ = true;
    return true;
  }
  if (!LoadDeadlines(r, {member})) return false;
  int64_t& stored = deadlines_[member];
  if (stored == deadline_ms) return true;
  if (stored != 0) batch_.DeleteDeadline(version_, member, stored);
  if (deadline_ms != 0) batch_.PutDeadline(version_, member, deadline_ms);
  stored = deadline_ms;
  dirty_ = true;
  return true;
}

bool Collection::PutMember(Request& r, const std::string& member, const std::string& value,
                           bool* existed, bool keep_deadline) {
  dirty_ = true;
  if (compact()) {
    if (!Editable(r)) return false;
    if (listpack_ex()) {
      // The field's deadline kept (HINCRBY) or cleared (HSET), its due
      // entry with it.
      const int64_t old = EditedDeadline(member);
      const int64_t kept = keep_deadline ? old : 0;
      if (old != 0 && kept == 0) batch_.DeleteDue(old, compact_members::DueVersion(*edited_), member);
      *existed = compact_members::Put(&*edited_, member, compact_members::Stored(kept, value));
    } else {
      *existed = compact_members::Put(&*edited_, member, value);
      if (puts_.empty()) puts_ = compact_members::Empty(compact_members::kListpack);
      compact_members::Put(&puts_, member, value);
    }
    count_ += *existed ? 0 : 1;
    // Redis checks a hash's limits at every field it sets, a set's and a
    // sorted set's at every member it adds.
    if (type_ != Keyspace::kHash && *existed) return true;
    grown_ = true;
    const CompactLimits& limits = r.server.compact_limits;
    const int64_t size = static_cast<int64_t>(member.size());
    if (type_ == Keyspace::kHash) {
      oversized_ |= size > Limit(limits.hash_value) ||
                    static_cast<int64_t>(value.size()) > Limit(limits.hash_value);
    } else if (type_ == Keyspace::kZSet) {
      oversized_ |= size > Limit(limits.zset_value);
    } else {
      oversized_ |= size > Limit(limits.set_value);
      non_integer_ |= !IsInteger(member);
    }
    // Converted at the member that takes it past a limit, as Redis does (a
    // large write then goes on record by record, not into an ever longer
    // record).
    return !PastLimits(r) || ConvertToMembers(r);
  }
  if (!Present(r, member, existed)) return false;
  if (!*existed) ++count_;
  staged_[member] = true;
  batch_.PutMember(version_, member, value);
  return !has_deadlines() || keep_deadline || SetDeadline(r, member, 0);
}

bool Collection::DeleteMember(Request& r, const std::string& member, bool* existed) {
  puts_only_ = false;
  if (compact()) {
    if (!Editable(r)) return false;
    const int64_t deadline = EditedDeadline(member);
    if (deadline != 0) batch_.DeleteDue(deadline, compact_members::DueVersion(*edited_), member);
    *existed = compact_members::Erase(&*edited_, member);
    count_ -= *existed ? 1 : 0;
    dirty_ |= *existed;
    return true;
  }
  if (!Present(r, member, existed)) return false;
  if (!*existed) return true;
  --count_;
  staged_[member] = false;
  batch_.DeleteMember(version_, member);
  dirty_ = true;
  return !has_deadlines() || SetDeadline(r, member, 0);
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
                         const std::function<bool(const std::string&, const std::string&)>& visit,
                         const std::string& from, const ExpiredVisit& expired) {
  if (!meta_) return true;
  if (meta_->version != 0 && has_deadlines()) {
    const int64_t now = Keyspace::NowMs();
    const Status s = r.keyspace->ForEachMemberWithDeadline(
        meta_->version,
        [&](const std::string& field, const std::string& value, int64_t deadline) {
          if (deadline != 0 && deadline <= now) return expired ? expired(field) : true;
          return visit(field, value);
        },
        from);
    if (!s.ok()) ReplyStorageError(r, s);
    return s.ok();
  }
  if (meta_->version != 0) {
    const Status s = r.keyspace->ForEachMember(meta_->version, visit, from);
    if (!s.ok()) ReplyStorageError(r, s);
    return s.ok();
  }
  compact_members::Reader reader(meta_->payload);
  const bool deadlines = compact_members::DueVersion(meta_->payload) != 0;
  const int64_t now = deadlines ? Keyspace::NowMs() : 0;
  Slice m, v;
  while (reader.Next(&m, &v)) {
    if (m.compare(from) < 0) continue;
    if (!deadlines) {
      if (!visit(m.ToString(), v.ToString())) return true;
      continue;
    }
    const int64_t deadline = compact_members::DeadlineOf(v);
    const bool past = deadline != 0 && deadline <= now;
    if (past ? expired && !expired(m.ToString())
             : !visit(m.ToString(), compact_members::ValueOf(v).ToString())) {
      return true;
    }
  }
  if (reader.corrupt()) ReplyStorageError(r, Damaged(key_));
  return !reader.corrupt();
}

bool Collection::CompactIndex(Request& r, std::vector<std::string>* entries) {
  if (!meta_) return true;
  entries->reserve(count_);
  compact_members::Reader reader(meta_->payload);
  Slice m, v;
  while (reader.Next(&m, &v)) entries->push_back(IndexEntry(ScoreOf(v.ToString()), m.ToString()));
  if (reader.corrupt()) return ReplyStorageError(r, Damaged(key_)), false;
  std::sort(entries->begin(), entries->end());
  return true;
}

bool Collection::ForEachIndexEntry(Request& r, const std::function<bool(const std::string&)>& visit,
                                   const std::string& from) {
  if (!meta_) return true;
  if (meta_->version != 0) {
    const Status s = r.keyspace->ForEachIndexEntry(meta_->version, visit, from);
    if (!s.ok()) ReplyStorageError(r, s);
    return s.ok();
  }
  std::vector<std::string> entries;
  if (!CompactIndex(r, &entries)) return false;
  for (auto it = std::lower_bound(entries.begin(), entries.end(), from);
       it != entries.end() && visit(*it); ++it) {
  }
  return true;
}

bool Collection::ForEachIndexEntryBackward(Request& r,
                                           const std::function<bool(const std::string&)>& visit,
                                           const std::string& before) {
  if (!meta_) return true;
  if (meta_->version != 0) {
    const Status s = r.keyspace->ForEachIndexEntryBackward(meta_->version, visit, before);
    if (!s.ok()) ReplyStorageError(r, s);
    return s.ok();
  }
  std::vector<std::string> entries;
  if (!CompactIndex(r, &entries)) return false;
  auto end = before.empty() ? entries.end() : std::lower_bound(entries.begin(), entries.end(), before);
  while (end != entries.begin() && visit(*--end)) {
  }
  return true;
}

void Collection::PutIndex(const std::string& entry) {
  if (!compact()) batch_.PutIndex(version_, entry);
}

void Collection::DeleteIndex(const std::string& entry) {
  if (!compact()) batch_.DeleteIndex(version_, entry);
}

bool Collection::PastLimits(Request& r) {
  if (!grown_) return false;
  const CompactLimits& limits = r.server.compact_limits;
  const bool oversized = oversized_ && !entries_only_;
  if (type_ == Keyspace::kHash) return count_ > Limit(limits.hash_entries) || oversized;
  if (type_ == Keyspace::kZSet) return count_ > Limit(limits.zset_entries) || oversized;
  if (encoding_ == compact_members::kIntset && !non_integer_) {
    return count_ > Limit(limits.set_intset_entries);
  }
  // A set that held only integers and was given a string becomes a listpack
  // (Redis 7.2's), unless past its limits; a listpack never goes back.
  if (encoding_ == compact_members::kIntset && !oversized_) {
    compact_members::Reader reader(*edited_);
    Slice member, value;
    while (reader.Next(&member, &value)) {
      oversized_ |= static_cast<int64_t>(member.size()) > Limit(limits.set_value);
    }
  }
  encoding_ = compact_members::kListpack;
  return count_ > Limit(limits.set_entries) || oversized_;
}

bool Collection::ConvertToMembers(Request& r) {
  // A listpackex's deadlines become "E" records and due entries of the new
  // version (those of its due version are left to the sweep and
  // compactions: no meta record names that version any more).
  const bool deadlines = listpack_ex();
  const Status s = r.keyspace->NewVersion(&version_);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  created_ = true;
  compact_members::Reader reader(*edited_);
  Slice member, value;
  while (reader.Next(&member, &value)) {
    const std::string m = member.ToString();
    const std::string v = (deadlines ? compact_members::ValueOf(value) : value).ToString();
    batch_.PutMember(version_, m, v);
    if (type_ == Keyspace::kZSet) batch_.PutIndex(version_, IndexEntry(ScoreOf(v), m));
    staged_[m] = true;
    if (!deadlines) continue;
    const int64_t deadline = compact_members::DeadlineOf(value);
    if (deadline != 0) batch_.PutDeadline(version_, m, deadline);
    deadlines_[m] = deadline;
  }
  if (deadlines) {
    hash_flags_ = storage_format::kHashDeadlines;
    due_created_ = false;
  }
  edited_.reset();
  return true;
}

bool Collection::ConvertNow(Request& r) {
  if (!compact() || !meta_) return true;
  if (!Editable(r)) return false;
  dirty_ = true;
  return ConvertToMembers(r) && Commit(r);
}

bool Collection::Commit(Request& r) {
  if (!dirty_) return true;
  // An empty Replace of a key that held nothing: nothing to write.
  if (count_ <= 0 && !meta_ && !created_ && !replaces_existing_) return true;
  const int64_t expire_ms = meta_ ? meta_->expire_ms : replace_expire_ms_;
  if (count_ <= 0) {
    batch_.Delete(key_);
  } else if (compact()) {
    compact_members::SetEncoding(&*edited_, encoding_);
    Keyspace::Value value{type_, expire_ms, std::move(*edited_), 0};
    // Only members put into the compact record Open read (whose header it
    // checked), in its encoding, and small beside it: the puts alone are
    // written (compact_puts_merge.h).
    const bool puts_only = puts_only_ && !puts_.empty() && meta_ && meta_->payload[0] == encoding_;
    const bool small = puts_.size() * kRecordPerOperand <= value.payload.size();
    if (due_created_) {
      batch_.PutNew(key_, value);  // (a new listpackex: its due version's owner record)
    } else {
      puts_only && small ? batch_.MergePuts(key_, value, puts_) : batch_.Put(key_, value);
    }
  } else {
    const Keyspace::Value meta{type_, expire_ms, storage_format::CountPayload(count_, hash_flags_),
                               version_};
    created_ ? batch_.PutNew(key_, meta) : batch_.Put(key_, meta);
  }
  const Status s = r.keyspace->Commit(&batch_);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

}  // namespace teksdb::server
