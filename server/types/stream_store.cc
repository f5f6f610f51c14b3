// The stream records of stream_store.h.
#include "stream_store.h"

#include <cstdio>

#include "listpack.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

constexpr char kEntryTag = 'e', kNodeTag = 'n', kGroupTag = 'g', kConsumerTag = 'c',
               kPendingTag = 'p', kConsumerPendingTag = 'q';
// Redis's STREAM_LISTPACK_MAX_SIZE, and the entry flag of an entry with
// its node's master fields.
constexpr int64_t kListpackMaxBytes = int64_t{1} << 30;
constexpr int64_t kSameFieldsFlag = 2;

void PutU64(std::string* out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}
void PutU32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xff));
}
// Reads 8 (or 4) bytes big-endian at *pos; 0 past the end (a damaged
// record reads as zeros, never out of bounds).
uint64_t GetU64(std::string_view s, size_t* pos) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | (*pos < s.size() ? static_cast<uint8_t>(s[(*pos)++]) : 0);
  return v;
}
uint32_t GetU32(std::string_view s, size_t* pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | (*pos < s.size() ? static_cast<uint8_t>(s[(*pos)++]) : 0);
  return v;
}
std::string GetBytes(std::string_view s, size_t* pos, size_t n) {
  if (*pos > s.size() || s.size() - *pos < n) n = *pos > s.size() ? 0 : s.size() - *pos;
  std::string out(s.substr(*pos, n));
  *pos += n;
  return out;
}
StreamId GetId(std::string_view s, size_t* pos) {
  StreamId id;
  id.ms = GetU64(s, pos);
  id.seq = GetU64(s, pos);
  return id;
}

std::string Tagged(char tag, const std::string& rest) { return std::string(1, tag) + rest; }
std::string GroupPrefix(char tag, const std::string& group) {
  std::string s(1, tag);
  PutU32(&s, static_cast<uint32_t>(group.size()));
  return s + group;
}
std::string ConsumerMember(const std::string& group, const std::string& consumer) {
  return GroupPrefix(kConsumerTag, group) + consumer;
}
std::string PendingMember(const std::string& group, StreamId id) {
  return GroupPrefix(kPendingTag, group) + id.Bytes();
}
std::string ConsumerPendingPrefix(const std::string& group, const std::string& consumer) {
  std::string s = GroupPrefix(kConsumerPendingTag, group);
  PutU32(&s, static_cast<uint32_t>(consumer.size()));
  return s + consumer;
}

std::string EncodeEntry(StreamId node, const StreamFields& fields) {
  std::string v = node.Bytes();
  PutU32(&v, static_cast<uint32_t>(fields.size()));
  for (const auto& [field, value] : fields) {
    PutU32(&v, static_cast<uint32_t>(field.size()));
    v += field;
    PutU32(&v, static_cast<uint32_t>(value.size()));
    v += value;
  }
  return v;
}
void DecodeEntry(std::string_view v, StreamId* node, StreamFields* fields) {
  size_t pos = 0;
  *node = GetId(v, &pos);
  const uint32_t n = GetU32(v, &pos);
  fields->clear();
  for (uint32_t i = 0; i < n && pos < v.size(); ++i) {
    std::string field = GetBytes(v, &pos, GetU32(v, &pos));
    std::string value = GetBytes(v, &pos, GetU32(v, &pos));
    fields->emplace_back(std::move(field), std::move(value));
  }
}

std::string EncodePending(const PendingEntry& p) {
  std::string v;
  PutU64(&v, static_cast<uint64_t>(p.delivery_ms));
  PutU64(&v, p.delivery_count);
  return v + p.consumer;
}
PendingEntry DecodePending(StreamId id, std::string_view v) {
  PendingEntry p;
  size_t pos = 0;
  p.id = id;
  p.delivery_ms = static_cast<int64_t>(GetU64(v, &pos));
  p.delivery_count = GetU64(v, &pos);
  p.consumer = GetBytes(v, &pos, v.size() > pos ? v.size() - pos : 0);
  return p;
}

// An FNV-1a hash of a node's master fields (count and bytes of each), to
// tell whether a new entry has the same fields.
uint64_t FieldsHash(const StreamFields& fields) {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](std::string_view s) {
    for (const unsigned char c : std::to_string(s.size()) + ":") h = (h ^ c) * 1099511628211ULL;
    for (const unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  };
  for (const auto& field : fields) mix(field.first);
  return h;
}

bool IsEntry(const std::string& member) { return !member.empty() && member[0] == kEntryTag; }

}  // namespace

bool StreamId::Increment() {
  if (seq != UINT64_MAX) {
    ++seq;
  } else if (ms != UINT64_MAX) {
    ++ms;
    seq = 0;
  } else {
    return false;
  }
  return true;
}

bool StreamId::Decrement() {
  if (seq != 0) {
    --seq;
  } else if (ms != 0) {
    --ms;
    seq = UINT64_MAX;
  } else {
    return false;
  }
  return true;
}

std::string StreamId::Text() const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%llu-%llu", static_cast<unsigned long long>(ms),
                static_cast<unsigned long long>(seq));
  return buf;
}

std::string StreamId::Bytes() const {
  std::string s;
  PutU64(&s, ms);
  PutU64(&s, seq);
  return s;
}

StreamId StreamId::FromBytes(std::string_view bytes) {
  size_t pos = 0;
  return GetId(bytes, &pos);
}

bool StreamStore::Open(Request& r, const std::string& key) {
  bool other_type;
  if (!Load(r, key, &other_type)) return false;
  if (other_type) return reply::Error(r.out, kWrongType), false;
  return true;
}

bool StreamStore::Load(Request& r, const std::string& key, bool* other_type) {
  key_ = key;
  std::optional<Keyspace::Value> value;
  const Status s = r.keyspace->Read(key, &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  *other_type = value && value->type != Keyspace::kStream;
  exists_ = value.has_value() && !*other_type;
  if (!exists_) return true;
  meta_ = StreamMeta();
  meta_.expire_ms = value->expire_ms;
  meta_.version = value->version;
  std::string_view p = value->payload;
  size_t pos = 0;
  meta_.length = GetU64(p, &pos);
  meta_.last_id = GetId(p, &pos);
  meta_.max_deleted = GetId(p, &pos);
  meta_.first_id = GetId(p, &pos);
  meta_.entries_added = GetU64(p, &pos);
  meta_.nodes = GetU64(p, &pos);
  meta_.tail = GetId(p, &pos);
  meta_.tail_live = GetU64(p, &pos);
  meta_.tail_total = GetU64(p, &pos);
  meta_.tail_bytes = GetU64(p, &pos);
  meta_.tail_master_fields = GetU64(p, &pos);
  meta_.tail_master_hash = GetU64(p, &pos);
  return true;
}

bool StreamStore::Create(Request& r) {
  meta_ = StreamMeta();
  const Status s = r.keyspace->NewVersion(&meta_.version);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  exists_ = created_ = true;
  return true;
}

bool StreamStore::Range(Request& r, StreamId start, StreamId end, bool reverse,
                        const std::function<bool(const StreamEntry&)>& visit) {
  if (end < start) return true;
  StreamEntry entry;
  StreamId node;
  auto take = [&](const std::string& member, const std::string& value) {
    if (!IsEntry(member)) return false;
    entry.id = StreamId::FromBytes(std::string_view(member).substr(1));
    if (reverse ? entry.id < start : entry.id > end) return false;
    if (deleted_.count(entry.id) != 0) return true;
    DecodeEntry(value, &node, &entry.fields);
    return visit(entry);
  };
  Status s;
  if (!reverse) {
    s = r.keyspace->ForEachMember(meta_.version, take, Tagged(kEntryTag, start.Bytes()));
  } else {
    StreamId above = end;
    const std::string before = above.Increment() ? Tagged(kEntryTag, above.Bytes())
                                                 : std::string(1, kEntryTag + 1);
    s = r.keyspace->ForEachMemberBackward(meta_.version, take, before);
  }
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return true;
}

bool StreamStore::ReadEntry(Request& r, StreamId id, std::optional<StreamEntry>* entry) {
  entry->reset();
  if (deleted_.count(id) != 0) return true;
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta_.version, Tagged(kEntryTag, id.Bytes()), &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (value) {
    StreamId node;
    entry->emplace();
    (*entry)->id = id;
    DecodeEntry(*value, &node, &(*entry)->fields);
  }
  return true;
}

bool StreamStore::EdgeId(Request& r, bool last, std::optional<StreamId>* id) {
  id->reset();
  return Range(r, StreamId(), StreamId::Max(), last, [&](const StreamEntry& e) {
    *id = e.id;
    return false;
  });
}

void StreamStore::Append(StreamId id, const StreamFields& fields, int64_t node_max_bytes,
                         int64_t node_max_entries) {
  using listpack::EntryBytes;
  size_t total_bytes = 0;
  for (const auto& [field, value] : fields) total_bytes += field.size() + value.size();
  if (node_max_bytes <= 0 || node_max_bytes > kListpackMaxBytes) node_max_bytes = kListpackMaxBytes;
  const uint64_t hash = FieldsHash(fields);
  const bool new_node =
      meta_.tail_total == 0 ||
      meta_.tail_bytes + total_bytes >= static_cast<uint64_t>(node_max_bytes) ||
      (node_max_entries > 0 && meta_.tail_total >= static_cast<uint64_t>(node_max_entries));
  bool same_fields;
  if (new_node) {
    // A listpack: header and end, then the master entry (count 1, deleted
    // 0, the fields, a 0 terminator).
    meta_.tail = id;
    meta_.tail_live = meta_.tail_total = 0;
    meta_.tail_master_fields = fields.size();
    meta_.tail_master_hash = hash;
    meta_.tail_bytes = 7 + EntryBytes(int64_t{1}) + EntryBytes(int64_t{0}) +
                       EntryBytes(static_cast<int64_t>(fields.size())) + EntryBytes(int64_t{0});
    for (const auto& field : fields) meta_.tail_bytes += EntryBytes(field.first);
    ++meta_.nodes;
    same_fields = true;
  } else {
    same_fields = fields.size() == meta_.tail_master_fields && hash == meta_.tail_master_hash;
    meta_.tail_bytes += EntryBytes(static_cast<int64_t>(meta_.tail_live + 1)) -
                        EntryBytes(static_cast<int64_t>(meta_.tail_live));
  }
  // The entry: flags, the id's deltas from the master id, the fields
  // (values only when they are the master's), and its element count.
  const int64_t n = static_cast<int64_t>(fields.size());
  size_t entry_bytes = EntryBytes(same_fields ? kSameFieldsFlag : int64_t{0}) +
                       EntryBytes(static_cast<int64_t>(id.ms - meta_.tail.ms)) +
                       EntryBytes(static_cast<int64_t>(id.seq - meta_.tail.seq)) +
                       EntryBytes(same_fields ? n + 3 : 2 * n + 4);
  if (!same_fields) entry_bytes += EntryBytes(n);
  for (const auto& [field, value] : fields) {
    if (!same_fields) entry_bytes += EntryBytes(field);
    entry_bytes += EntryBytes(value);
  }
  meta_.tail_bytes += entry_bytes;
  ++meta_.tail_live;
  ++meta_.tail_total;
  PutNode(meta_.tail, NodeCounts{meta_.tail_live, meta_.tail_total, id});
  batch_.PutMember(meta_.version, Tagged(kEntryTag, id.Bytes()), EncodeEntry(meta_.tail, fields));
  ++meta_.length;
  ++meta_.entries_added;
  meta_.last_id = id;
  if (meta_.length == 1) meta_.first_id = id;
}

bool StreamStore::ReadNode(Request& r, StreamId node, NodeCounts* counts) {
  const auto cached = nodes_.find(node);
  if (cached != nodes_.end()) {
    *counts = cached->second;
    return true;
  }
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta_.version, Tagged(kNodeTag, node.Bytes()), &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  *counts = NodeCounts();
  if (value) {
    size_t pos = 0;
    counts->live = GetU64(*value, &pos);
    counts->total = GetU64(*value, &pos);
    counts->last = GetId(*value, &pos);
  }
  return true;
}

void StreamStore::PutNode(StreamId node, const NodeCounts& counts) { nodes_[node] = counts; }

bool StreamStore::DropFromNode(Request& r, StreamId node) {
  NodeCounts counts;
  if (!ReadNode(r, node, &counts)) return false;
  counts.live = counts.live > 0 ? counts.live - 1 : 0;
  if (node == meta_.tail && meta_.tail_total != 0) meta_.tail_live = counts.live;
  if (counts.live > 0) {
    PutNode(node, counts);
    return true;
  }
  // Its last live entry gone: Redis frees the listpack.
  PutNode(node, NodeCounts());
  if (meta_.nodes > 0) --meta_.nodes;
  if (node == meta_.tail) meta_.tail_total = meta_.tail_live = 0;
  return true;
}

bool StreamStore::Delete(Request& r, StreamId id, bool* deleted) {
  *deleted = false;
  if (deleted_.count(id) != 0) return true;
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta_.version, Tagged(kEntryTag, id.Bytes()), &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (!value) return true;
  StreamId node;
  StreamFields fields;
  DecodeEntry(*value, &node, &fields);
  batch_.DeleteMember(meta_.version, Tagged(kEntryTag, id.Bytes()));
  deleted_.insert(id);
  if (meta_.length > 0) --meta_.length;
  *deleted = true;
  return DropFromNode(r, node);
}

bool StreamStore::ReadFirstId(Request& r) {
  std::optional<StreamId> first;
  if (!EdgeId(r, false, &first)) return false;
  meta_.first_id = first ? *first : StreamId();
  return true;
}

bool StreamStore::Trim(Request& r, const StreamTrim& trim, int64_t* deleted) {
  *deleted = 0;
  if (trim.strategy == StreamTrim::Strategy::kNone) return true;
  const bool by_length = trim.strategy == StreamTrim::Strategy::kMaxLen;
  // Node by node from the first (their records are in id order), as
  // Redis walks its radix tree.
  StreamId cursor;
  for (bool more = true; more;) {
    if (by_length && meta_.length <= trim.maxlen) break;
    std::optional<StreamId> node, next;
    NodeCounts counts;
    Status s = r.keyspace->ForEachMember(
        meta_.version,
        [&](const std::string& member, const std::string& value) {
          if (member.empty() || member[0] != kNodeTag) return false;
          const StreamId id = StreamId::FromBytes(std::string_view(member).substr(1));
          const auto cached = nodes_.find(id);
          NodeCounts these;
          if (cached != nodes_.end()) {
            these = cached->second;
          } else {
            size_t pos = 0;
            these.live = GetU64(value, &pos);
            these.total = GetU64(value, &pos);
            these.last = GetId(value, &pos);
          }
          if (these.live == 0) return true;  // removed in this command
          if (!node) {
            node = id;
            counts = these;
            return true;
          }
          next = id;
          return false;
        },
        Tagged(kNodeTag, cursor.Bytes()));
    if (!s.ok()) return ReplyStorageError(r, s), false;
    if (!node) break;
    const uint64_t live = counts.live;
    if (trim.limit != 0 && *deleted + static_cast<int64_t>(live) > trim.limit) break;
    StreamId node_end = StreamId::Max();
    if (next) {
      node_end = *next;
      node_end.Decrement();
    }
    // MAXLEN: whether the rest still holds maxlen; MINID: whether the
    // node's last id (deleted or not, as Redis reads it) is below minid.
    const bool remove_node = by_length ? meta_.length - live >= trim.maxlen : counts.last < trim.minid;
    if (!remove_node && trim.approx) break;
    bool dropped = true;
    const bool ok = Range(r, *node, node_end, false, [&](const StreamEntry& e) {
      if (!remove_node && (by_length ? meta_.length <= trim.maxlen : e.id >= trim.minid)) {
        return false;
      }
      batch_.DeleteMember(meta_.version, Tagged(kEntryTag, e.id.Bytes()));
      deleted_.insert(e.id);
      --meta_.length;
      ++*deleted;
      dropped = DropFromNode(r, *node);
      return dropped;
    });
    if (!ok || !dropped) return false;
    more = remove_node && next.has_value();
    if (next) cursor = *next;
  }
  if (*deleted > 0) {
    if (meta_.length == 0) {
      meta_.first_id = StreamId();
    } else if (!ReadFirstId(r)) {
      return false;
    }
  }
  return true;
}

bool StreamStore::ReadGroup(Request& r, const std::string& group, std::optional<StreamGroup>* out) {
  out->reset();
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta_.version, Tagged(kGroupTag, group), &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (value) {
    size_t pos = 0;
    out->emplace();
    (*out)->last_id = GetId(*value, &pos);
    (*out)->entries_read = static_cast<int64_t>(GetU64(*value, &pos));
  }
  return true;
}

void StreamStore::PutGroup(const std::string& group, const StreamGroup& g) {
  std::string v = g.last_id.Bytes();
  PutU64(&v, static_cast<uint64_t>(g.entries_read));
  batch_.PutMember(meta_.version, Tagged(kGroupTag, group), v);
}

bool StreamStore::ForEachGroup(
    Request& r, const std::function<bool(const std::string&, const StreamGroup&)>& visit) {
  const Status s = r.keyspace->ForEachMember(
      meta_.version,
      [&](const std::string& member, const std::string& value) {
        if (member.empty() || member[0] != kGroupTag) return false;
        size_t pos = 0;
        StreamGroup g;
        g.last_id = GetId(value, &pos);
        g.entries_read = static_cast<int64_t>(GetU64(value, &pos));
        return visit(member.substr(1), g);
      },
      std::string(1, kGroupTag));
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return true;
}

bool StreamStore::DestroyGroup(Request& r, const std::string& group) {
  batch_.DeleteMember(meta_.version, Tagged(kGroupTag, group));
  for (const char tag : {kConsumerTag, kPendingTag, kConsumerPendingTag}) {
    const std::string prefix = GroupPrefix(tag, group);
    const Status s = r.keyspace->ForEachMember(
        meta_.version,
        [&](const std::string& member, const std::string&) {
          if (member.compare(0, prefix.size(), prefix) != 0) return false;
          batch_.DeleteMember(meta_.version, member);
          return true;
        },
        prefix);
    if (!s.ok()) return ReplyStorageError(r, s), false;
  }
  return true;
}

bool StreamStore::ReadConsumer(Request& r, const std::string& group, const std::string& consumer,
                               std::optional<int64_t>* seen_ms) {
  seen_ms->reset();
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta_.version, ConsumerMember(group, consumer), &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (value) {
    size_t pos = 0;
    *seen_ms = static_cast<int64_t>(GetU64(*value, &pos));
  }
  return true;
}

void StreamStore::PutConsumer(const std::string& group, const std::string& consumer,
                              int64_t seen_ms) {
  std::string v;
  PutU64(&v, static_cast<uint64_t>(seen_ms));
  batch_.PutMember(meta_.version, ConsumerMember(group, consumer), v);
}

bool StreamStore::ForEachConsumer(Request& r, const std::string& group,
                                  const std::function<bool(const std::string&, int64_t)>& visit) {
  const std::string prefix = GroupPrefix(kConsumerTag, group);
  const Status s = r.keyspace->ForEachMember(
      meta_.version,
      [&](const std::string& member, const std::string& value) {
        if (member.compare(0, prefix.size(), prefix) != 0) return false;
        size_t pos = 0;
        return visit(member.substr(prefix.size()), static_cast<int64_t>(GetU64(value, &pos)));
      },
      prefix);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return true;
}

bool StreamStore::DeleteConsumer(Request& r, const std::string& group, const std::string& consumer,
                                 int64_t* pending) {
  *pending = 0;
  std::vector<PendingEntry> owned;
  if (!ForEachPending(r, group, &consumer, StreamId(), [&](const PendingEntry& p) {
        owned.push_back(p);
        return true;
      })) {
    return false;
  }
  for (const PendingEntry& p : owned) DeletePending(group, p);
  *pending = static_cast<int64_t>(owned.size());
  batch_.DeleteMember(meta_.version, ConsumerMember(group, consumer));
  return true;
}

bool StreamStore::ForEachPending(Request& r, const std::string& group, const std::string* consumer,
                                 StreamId start,
                                 const std::function<bool(const PendingEntry&)>& visit) {
  if (consumer == nullptr) {
    const std::string prefix = GroupPrefix(kPendingTag, group);
    const Status s = r.keyspace->ForEachMember(
        meta_.version,
        [&](const std::string& member, const std::string& value) {
          if (member.compare(0, prefix.size(), prefix) != 0) return false;
          const StreamId id = StreamId::FromBytes(std::string_view(member).substr(prefix.size()));
          return visit(DecodePending(id, value));
        },
        prefix + start.Bytes());
    if (!s.ok()) return ReplyStorageError(r, s), false;
    return true;
  }
  // A consumer's own list names the entries; each one's details are the
  // group's record.
  const std::string prefix = ConsumerPendingPrefix(group, *consumer);
  std::vector<StreamId> ids;
  bool stopped = false;
  Status s = r.keyspace->ForEachMember(
      meta_.version,
      [&](const std::string& member, const std::string&) {
        if (member.compare(0, prefix.size(), prefix) != 0) return false;
        ids.push_back(StreamId::FromBytes(std::string_view(member).substr(prefix.size())));
        return true;
      },
      prefix + start.Bytes());
  if (!s.ok()) return ReplyStorageError(r, s), false;
  for (const StreamId id : ids) {
    if (stopped) break;
    std::optional<PendingEntry> p;
    if (!ReadPending(r, group, id, &p)) return false;
    if (p && !visit(*p)) stopped = true;
  }
  return true;
}

bool StreamStore::ReadPending(Request& r, const std::string& group, StreamId id,
                              std::optional<PendingEntry>* out) {
  out->reset();
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta_.version, PendingMember(group, id), &value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (value) *out = DecodePending(id, *value);
  return true;
}

void StreamStore::PutPending(const std::string& group, const PendingEntry& p,
                             const std::string* old_consumer) {
  if (old_consumer != nullptr && *old_consumer != p.consumer) {
    batch_.DeleteMember(meta_.version, ConsumerPendingPrefix(group, *old_consumer) + p.id.Bytes());
  }
  batch_.PutMember(meta_.version, PendingMember(group, p.id), EncodePending(p));
  batch_.PutMember(meta_.version, ConsumerPendingPrefix(group, p.consumer) + p.id.Bytes(), "");
}

void StreamStore::DeletePending(const std::string& group, const PendingEntry& p) {
  batch_.DeleteMember(meta_.version, PendingMember(group, p.id));
  batch_.DeleteMember(meta_.version, ConsumerPendingPrefix(group, p.consumer) + p.id.Bytes());
}

bool StreamStore::Commit(Request& r) {
  for (const auto& [node, counts] : nodes_) {
    if (counts.live == 0) {
      batch_.DeleteMember(meta_.version, Tagged(kNodeTag, node.Bytes()));
    } else {
      std::string v;
      PutU64(&v, counts.live);
      PutU64(&v, counts.total);
      v += counts.last.Bytes();
      batch_.PutMember(meta_.version, Tagged(kNodeTag, node.Bytes()), v);
    }
  }
  std::string payload;
  PutU64(&payload, meta_.length);
  for (const StreamId id : {meta_.last_id, meta_.max_deleted, meta_.first_id}) payload += id.Bytes();
  PutU64(&payload, meta_.entries_added);
  PutU64(&payload, meta_.nodes);
  payload += meta_.tail.Bytes();
  for (const uint64_t v : {meta_.tail_live, meta_.tail_total, meta_.tail_bytes,
                           meta_.tail_master_fields, meta_.tail_master_hash}) {
    PutU64(&payload, v);
  }
  const Keyspace::Value value{Keyspace::kStream, meta_.expire_ms, std::move(payload), meta_.version};
  created_ ? batch_.PutNew(key_, value) : batch_.Put(key_, value);
  const Status s = r.keyspace->Commit(&batch_);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  created_ = false;
  nodes_.clear();
  deleted_.clear();
  batch_ = Keyspace::Batch();
  return true;
}

int64_t EstimateEntriesRead(const StreamMeta& meta, StreamId id) {
  if (meta.entries_added == 0) return 0;
  if (meta.length == 0 && id <= meta.last_id) return static_cast<int64_t>(meta.entries_added);
  if (id == meta.last_id) return static_cast<int64_t>(meta.entries_added);
  if (id > meta.last_id) return -1;
  if (meta.max_deleted.zero() || meta.max_deleted < meta.first_id) {
    if (id < meta.first_id) return static_cast<int64_t>(meta.entries_added - meta.length);
    if (id == meta.first_id) return static_cast<int64_t>(meta.entries_added - meta.length + 1);
  }
  return -1;
}

int64_t GroupLag(uint64_t entries_added, int64_t entries_read) {
  const __int128 lag = static_cast<__int128>(entries_added) - entries_read;
  if (lag > INT64_MAX) return INT64_MAX;
  if (lag < INT64_MIN) return INT64_MIN;
  return static_cast<int64_t>(lag);
}

bool HasTombstonesFrom(const StreamMeta& meta, StreamId start) {
  if (meta.length == 0 || meta.max_deleted.zero()) return false;
  if (meta.first_id > meta.max_deleted) return false;
  return start <= meta.max_deleted;
}

}  // namespace teksdb::server
