// FieldDeadlines implementation: one field's reclaim under its key's lock,
// and the sweep's walk of due entries.
#include "field_deadlines.h"

#include <optional>
#include <tuple>
#include <vector>

namespace teksdb::server::field_deadlines {

using ROCKSDB_NAMESPACE::Status;

namespace {

// The deadline of `field` in the hash `key` holds, if the hash has
// deadlines (and is `version`, unless 0); 0 otherwise. `meta`: the hash's.
Status DeadlineOf(Keyspace& view, const std::string& key, const std::string& field,
                  uint64_t version, std::optional<Keyspace::Value>* meta, int64_t* deadline) {
  *deadline = 0;
  Status s = view.Read(key, meta);
  if (!s.ok() || !*meta) return s;
  const Keyspace::Value& m = **meta;
  const bool with_deadlines =
      m.type == Keyspace::kHash && m.version != 0 &&
      (storage_format::PayloadHashFlags(m.payload) & storage_format::kHashDeadlines) != 0;
  if (!with_deadlines || (version != 0 && m.version != version)) return Status::OK();
  std::vector<int64_t> deadlines;
  s = view.ReadDeadlines(m.version, {field}, &deadlines);
  if (s.ok()) *deadline = deadlines[0];
  return s;
}

}  // namespace

Status ReclaimField(Keyspace& view, const std::string& key, const std::string& field,
                    uint64_t version, bool* reclaimed, bool* key_deleted) {
  *reclaimed = *key_deleted = false;
  auto locks = view.LockKeys({key});
  std::optional<Keyspace::Value> meta;
  int64_t deadline;
  Status s = DeadlineOf(view, key, field, version, &meta, &deadline);
  if (!s.ok() || deadline == 0 || deadline > Keyspace::NowMs()) return s;
  const Keyspace::Value& m = *meta;
  std::optional<std::string> value;
  s = view.ReadMember(m.version, field, &value);
  if (!s.ok()) return s;
  Keyspace::Batch batch;
  batch.DeleteDeadline(m.version, field, deadline);
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
