// The reads and writes of whole values of value_image.h.
#include "value_image.h"

#include <algorithm>

#include "collection.h"
#include "compact_members.h"
#include "list_store.h"
#include "sorted_set.h"
#include "stream_store.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

RedisValue::Type ImageType(char stored_type) {
  switch (stored_type) {
    case Keyspace::kList: return RedisValue::Type::kList;
    case Keyspace::kSet: return RedisValue::Type::kSet;
    case Keyspace::kZSet: return RedisValue::Type::kZSet;
    case Keyspace::kHash: return RedisValue::Type::kHash;
    case Keyspace::kStream: return RedisValue::Type::kStream;
    default: return RedisValue::Type::kString;
  }
}

char StoredType(RedisValue::Type type) {
  switch (type) {
    case RedisValue::Type::kList: return Keyspace::kList;
    case RedisValue::Type::kSet: return Keyspace::kSet;
    case RedisValue::Type::kZSet: return Keyspace::kZSet;
    case RedisValue::Type::kHash: return Keyspace::kHash;
    case RedisValue::Type::kStream: return Keyspace::kStream;
    case RedisValue::Type::kString: break;
  }
  return Keyspace::kString;
}

// A hash of one record per field whose fields may have deadlines: its
// fields with them.
bool ReadFieldsWithDeadlines(Request& r, const Keyspace::Value& stored, RedisValue* value) {
  bool any = false;
  const Status s = r.keyspace->ForEachMemberWithDeadline(
      stored.version, [&](const std::string& field, const std::string& v, int64_t deadline) {
        value->fields.emplace_back(field, v);
        value->field_deadlines.push_back(deadline);
        any |= deadline != 0;
        return true;
      });
  if (!s.ok()) return ReplyStorageError(r, s), false;
  // Without any deadline: a plain hash (RDB_TYPE_HASH), as Redis writes one.
  if (!any) value->field_deadlines.clear();
  return true;
}

// A listpackex (compact_members.h): its fields and their deadlines, all of
// them (it stays one through DUMP and RESTORE, deadlines or not, as
// Redis's: RDB type 25).
bool ReadListpackEx(Request& r, const Keyspace::Value& stored, RedisValue* value) {
  value->compact = true;
  compact_members::Reader reader(stored.payload);
  Slice field, v;
  while (reader.Next(&field, &v)) {
    value->fields.emplace_back(field.ToString(), compact_members::ValueOf(v).ToString());
    value->field_deadlines.push_back(compact_members::DeadlineOf(v));
  }
  if (reader.corrupt()) {
    return ReplyStorageError(r, Status::Corruption("a damaged listpackex record")), false;
  }
  return true;
}

bool ReadMembers(Request& r, const Keyspace::Value& stored, RedisValue* value) {
  if (stored.type == Keyspace::kHash && stored.version != 0 &&
      (storage_format::PayloadHashFlags(stored.payload) & storage_format::kHashDeadlines) != 0) {
    return ReadFieldsWithDeadlines(r, stored, value);
  }
  if (stored.type == Keyspace::kHash && compact_members::DueVersion(stored.payload) != 0) {
    return ReadListpackEx(r, stored, value);
  }
  value->compact = stored.version == 0;
  const Status s = ForEachStoredMember(*r.keyspace, stored, [&](const std::string& m,
                                                                const std::string& v) {
    switch (value->type) {
      case RedisValue::Type::kSet: value->elements.push_back(m); break;
      case RedisValue::Type::kZSet: value->scored.emplace_back(m, ScoreOf(v)); break;
      default: value->fields.emplace_back(m, v); break;
    }
    return true;
  });
  if (!s.ok()) return ReplyStorageError(r, s), false;
  // Members come in member order; a sorted set's go by score, as Redis's.
  std::stable_sort(value->scored.begin(), value->scored.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  return true;
}

bool WriteMembers(Request& r, const std::string& key, const RedisValue& value, int64_t expire_ms) {
  // A listpack stays one up to its entry limit, as Redis's RESTORE keeps it.
  const bool listpack = value.compact && value.type != RedisValue::Type::kSet;
  Collection c;
  if (!c.Replace(r, StoredType(value.type), key, expire_ms, listpack)) return false;
  bool existed;
  switch (value.type) {
    case RedisValue::Type::kSet:
      for (const std::string& m : value.elements) {
        if (!c.PutMember(r, m, std::string(), &existed)) return false;
      }
      break;
    case RedisValue::Type::kZSet:
      for (const auto& [m, score] : value.scored) {
        if (!SetScore(r, &c, m, score, std::nullopt)) return false;
      }
      break;
    default:
      for (const auto& [field, v] : value.fields) {
        if (!c.PutMember(r, field, v, &existed)) return false;
      }
      if (value.field_deadlines.empty()) break;
      if (!c.EnableDeadlines(r)) return false;
      for (size_t i = 0; i < value.fields.size() && i < value.field_deadlines.size(); ++i) {
        const int64_t deadline = value.field_deadlines[i];
        if (deadline != 0 && !c.SetDeadline(r, value.fields[i].first, deadline)) return false;
      }
      break;
  }
  return c.Commit(r);
}

RedisStream::Id ImageId(StreamId id) { return {id.ms, id.seq}; }
StreamId StoredId(RedisStream::Id id) { return {id.ms, id.seq}; }

bool ReadStream(Request& r, const std::string& key, RedisStream* out) {
  StreamStore stream;
  if (!stream.Open(r, key)) return false;
  const StreamMeta& meta = stream.meta();
  out->last_id = ImageId(meta.last_id);
  out->first_id = ImageId(meta.first_id);
  out->max_deleted = ImageId(meta.max_deleted);
  out->entries_added = meta.entries_added;
  if (!stream.Range(r, StreamId(), StreamId::Max(), false, [&](const StreamEntry& e) {
        out->entries.push_back({ImageId(e.id), e.fields});
        return true;
      })) {
    return false;
  }
  std::vector<std::pair<std::string, StreamGroup>> groups;
  if (!stream.ForEachGroup(r, [&](const std::string& name, const StreamGroup& g) {
        groups.emplace_back(name, g);
        return true;
      })) {
    return false;
  }
  for (const auto& [name, g] : groups) {
    RedisStream::Group group{name, ImageId(g.last_id), g.entries_read, {}, {}};
    if (!stream.ForEachPending(r, name, nullptr, StreamId(), [&](const PendingEntry& p) {
          group.pending.push_back({ImageId(p.id), p.delivery_ms, p.delivery_count, p.consumer});
          return true;
        }) ||
        !stream.ForEachConsumer(r, name, [&](const std::string& c, int64_t seen) {
          group.consumers.push_back({c, seen});
          return true;
        })) {
      return false;
    }
    out->groups.push_back(std::move(group));
  }
  return true;
}

bool WriteStream(Request& r, const std::string& key, const RedisStream& image, int64_t expire_ms) {
  StreamStore stream;
  if (!stream.Replace(r, key)) return false;
  for (const RedisStream::Entry& e : image.entries) {
    stream.Append(StoredId(e.id), e.fields, r.server.stream_node_max_bytes.load(),
                  r.server.stream_node_max_entries.load());
  }
  StreamMeta& meta = stream.meta();
  meta.last_id = StoredId(image.last_id);
  meta.first_id = StoredId(image.first_id);
  meta.max_deleted = StoredId(image.max_deleted);
  meta.entries_added = image.entries_added;
  meta.expire_ms = expire_ms;
  for (const RedisStream::Group& g : image.groups) {
    stream.PutGroup(g.name, StreamGroup{StoredId(g.last_id), g.entries_read});
    for (const RedisStream::Consumer& c : g.consumers) stream.PutConsumer(g.name, c.name, c.seen_ms);
    for (const RedisStream::Pending& p : g.pending) {
      stream.PutPending(g.name, PendingEntry{StoredId(p.id), p.consumer, p.delivery_ms, p.delivery_count},
                        nullptr);
    }
  }
  return stream.Commit(r);
}

}  // namespace

bool ReadValueImage(Request& r, const std::string& key, const Keyspace::Value& stored,
                    RedisValue* value) {
  *value = RedisValue();
  value->type = ImageType(stored.type);
  switch (value->type) {
    case RedisValue::Type::kString:
      value->string = stored.payload;
      return true;
    case RedisValue::Type::kList: {
      StoredList list;
      return list.Open(r, key) && list.All(r, &value->elements);
    }
    case RedisValue::Type::kStream:
      return ReadStream(r, key, &value->stream);
    default:
      return ReadMembers(r, stored, value);
  }
}

bool WriteValueImage(Request& r, const std::string& key, const RedisValue& value, int64_t expire_ms) {
  switch (value.type) {
    case RedisValue::Type::kString: {
      Keyspace::Batch batch;
      batch.Put(key, Keyspace::Value{Keyspace::kString, expire_ms, value.string});
      const Status s = r.keyspace->Commit(&batch);
      if (!s.ok()) ReplyStorageError(r, s);
      return s.ok();
    }
    case RedisValue::Type::kList:
      return WriteNewList(r, key, expire_ms, value.elements);
    case RedisValue::Type::kStream:
      return WriteStream(r, key, value.stream, expire_ms);
    default:
      return WriteMembers(r, key, value, expire_ms);
  }
}

}  // namespace teksdb::server
