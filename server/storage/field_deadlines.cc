// FieldDeadlines implementation: one field's reclaim under its key's lock,
// and the sweep's walk of due entries.
#include "field_deadlines.h"

#include <optional>
#include <tuple>
#include <vector>

#include "compact_members.h"

namespace teksdb::server::field_deadlines {

using ROCKSDB_NAMESPACE::Status;

namespace {

// ReclaimField for a hash of one record per field, `meta` its meta record.
Status ReclaimRecordField(Keyspace& view, const std::string& key, const std::string& field,
                          uint64_t version, const Keyspace::Value& m, bool* reclaimed,
                          bool* key_deleted) {
  if ((storage_format::PayloadHashFlags(m.payload) & storage_format::kHashDeadlines) == 0 ||
      (version != 0 && m.version != version)) {
    return Status::OK();
  }
  std::vector<int64_t> deadlines;
  Status s = view.ReadDeadlines(m.version, {field}, &deadlines);
  if (!s.ok() || deadlines[0] == 0 || deadlines[0] > Keyspace::NowMs()) return s;
  std::optional<std::string> value;
  s = view.ReadMember(m.version, field, &value);
  if (!s.ok()) return s;
  Keyspace::Batch batch;
  batch.DeleteDeadline(m.version, field, deadlines[0]);
  int64_t count = storage_format::PayloadCount(m.payload);
  if (value) {
    batch.DeleteMember(m.version, field);
    --count;
  }
  if (count <= 0) {
    batch.Delete(key);
  } else {
    batch.Put(key, Keyspace::Value{m.type, m.expire_ms,
                                   storage_format::CountPayload(
                                       count, storage_format::PayloadHashFlags(m.payload)),
                                   m.version});
  }
  s = view.Commit(&batch);
  *reclaimed = s.ok() && value.has_value();
  *key_deleted = s.ok() && count <= 0;
  return s;
}

// ReclaimField for a listpackex hash (compact_members.h), its fields and
// their deadlines inside `m`; `version`, if not 0, its due version.
Status ReclaimCompactField(Keyspace& view, const std::string& key, const std::string& field,
                           uint64_t version, const Keyspace::Value& m, bool* reclaimed,
                           bool* key_deleted) {
  const uint64_t due_version = compact_members::DueVersion(m.payload);
  if (due_version == 0 || (version != 0 && due_version != version) ||
      !compact_members::WellFormed(m.payload)) {
    return Status::OK();
  }
  std::string payload = m.payload;
  ROCKSDB_NAMESPACE::Slice stored;
  if (!compact_members::Find(payload, field, &stored)) return Status::OK();
  const int64_t deadline = compact_members::DeadlineOf(stored);
  if (deadline == 0 || deadline > Keyspace::NowMs()) return Status::OK();
  compact_members::Erase(&payload, field);
  char encoding;
  int64_t count = 0;
  compact_members::ReadHeader(payload, &encoding, &count);
  Keyspace::Batch batch;
  batch.DeleteDue(deadline, due_version, field);
  if (count <= 0) {
    batch.Delete(key);
  } else {
    batch.Put(key, Keyspace::Value{m.type, m.expire_ms, std::move(payload), 0});
  }
  const Status s = view.Commit(&batch);
  *reclaimed = s.ok();
  *key_deleted = s.ok() && count <= 0;
  return s;
}

}  // namespace

Status ReclaimField(Keyspace& view, const std::string& key, const std::string& field,
                    uint64_t version, bool* reclaimed, bool* key_deleted) {
  *reclaimed = *key_deleted = false;
  auto locks = view.LockKeys({key});
  std::optional<Keyspace::Value> meta;
  const Status s = view.Read(key, &meta);
  if (!s.ok() || !meta || meta->type != Keyspace::kHash) return s;
  return meta->version == 0
             ? ReclaimCompactField(view, key, field, version, *meta, reclaimed, key_deleted)
             : ReclaimRecordField(view, key, field, version, *meta, reclaimed, key_deleted);
}

Status ReclaimDue(Keyspace& keyspace, size_t max, const Told& told,
                  const std::function<bool()>& stop, bool* any, uint64_t* reclaimed) {
  *reclaimed = 0;
  std::vector<std::tuple<int64_t, uint64_t, std::string>> due;
  Status s = keyspace.ForEachDue(
      Keyspace::NowMs(),
      [&](int64_t deadline, uint64_t version, const std::string& field) {
        due.emplace_back(deadline, version, field);
        return due.size() < max;
      },
      any);
  for (size_t i = 0; s.ok() && i < due.size() && !stop(); ++i) {
    const auto& [deadline, version, field] = due[i];
    int db;
    std::string key;
    bool found;
    s = keyspace.OwnerOf(version, &db, &key, &found);
    if (!s.ok()) break;
    if (found) {
      Keyspace view = keyspace.InDatabase(db);
      bool field_reclaimed, key_deleted;
      s = ReclaimField(view, key, field, version, &field_reclaimed, &key_deleted);
      if (!s.ok()) break;
      if (field_reclaimed) {
        ++*reclaimed;
        if (told) told(db, key, key_deleted);
      }
    }
    // The entry itself: acted on, or stale (the field's own record said
    // otherwise, or its hash is gone).
    Keyspace::Batch batch;
    batch.DeleteDue(deadline, version, field);
    s = keyspace.Commit(&batch);
  }
  return s;
}

}  // namespace teksdb::server::field_deadlines
