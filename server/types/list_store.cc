// ListStore implementation.
#include "list_store.h"

#include "resp_reply.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;
using storage_format::AppendU64;

std::string ListElement(int64_t index) {
  std::string name;
  AppendU64(&name, static_cast<uint64_t>(index) ^ (uint64_t{1} << 63));
  return name;
}

Keyspace::Value EncodeList(const ListMeta& m) {
  std::string payload;
  AppendU64(&payload, static_cast<uint64_t>(m.count));
  AppendU64(&payload, static_cast<uint64_t>(m.first));
  return Keyspace::Value{Keyspace::kList, m.expire_ms, std::move(payload), m.version};
}

bool ReadList(Request& r, const std::string& key, ListMeta* meta, bool* exists) {
  std::optional<Keyspace::Value> v;
  const Status s = r.keyspace->Read(key, &v);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (v && v->type != Keyspace::kList) return reply::Error(r.out, kWrongType), false;
  *exists = v.has_value() && v->payload.size() >= 16;
  *meta = ListMeta{};
  if (*exists) {
    meta->count = static_cast<int64_t>(storage_format::ReadU64(v->payload.data()));
    meta->first = static_cast<int64_t>(storage_format::ReadU64(v->payload.data() + 8));
    meta->expire_ms = v->expire_ms;
    meta->version = v->version;
  }
  return true;
}

bool ReadElements(Request& r, const std::string& key, const ListMeta& meta,
                  std::vector<std::string>* elements) {
  elements->clear();
  if (meta.count == 0) return true;
  const Status s = r.keyspace->ForEachMember(
      meta.version,
      [&](const std::string&, const std::string& value) {
        elements->push_back(value);
        return static_cast<int64_t>(elements->size()) < meta.count;
      },
      ListElement(meta.first));
  if (!s.ok()) return ReplyStorageError(r, s), false;
  return static_cast<int64_t>(elements->size()) >= meta.count || StillHolds(r, key, meta.version);
}

bool PopElements(Request& r, ListMeta* meta, bool left, int64_t n, Keyspace::Batch* batch,
                 std::vector<std::string>* values) {
  n = std::min(n, meta->count);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = left ? meta->first + i : meta->first + meta->count - 1 - i;
    std::optional<std::string> value;
    const Status s = r.keyspace->ReadMember(meta->version, ListElement(index), &value);
    if (!s.ok()) return ReplyStorageError(r, s), false;
    values->push_back(value.value_or(""));
    batch->DeleteMember(meta->version, ListElement(index));
  }
  meta->count -= n;
  if (left) meta->first += n;
  return true;
}

bool PushElements(Request& r, ListMeta* meta, bool left, const std::vector<std::string>& values,
                  Keyspace::Batch* batch) {
  if (meta->version == 0 && !values.empty()) {
    const Status s = r.keyspace->NewVersion(&meta->version);
    if (!s.ok()) return ReplyStorageError(r, s), false;
  }
  for (const std::string& value : values) {
    if (left) {
      batch->PutMember(meta->version, ListElement(--meta->first), value);
    } else {
      batch->PutMember(meta->version, ListElement(meta->first + meta->count), value);
    }
    ++meta->count;
  }
  return true;
}

void StageListMeta(const std::string& key, const ListMeta& meta, bool created,
                   Keyspace::Batch* batch) {
  if (meta.count == 0) {
    batch->Delete(key);
  } else if (created) {
    batch->PutNew(key, EncodeList(meta));
  } else {
    batch->Put(key, EncodeList(meta));
  }
}

bool RewriteList(Request& r, const std::string& key, const ListMeta& meta,
                 const std::vector<std::string>& elements) {
  ListMeta fresh;
  fresh.expire_ms = meta.expire_ms;
  Keyspace::Batch batch;
  if (!PushElements(r, &fresh, false, elements, &batch)) return false;
  StageListMeta(key, fresh, /*created=*/true, &batch);
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

}  // namespace teksdb::server
