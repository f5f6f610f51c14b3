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

// The field's deletion, if its deadline passed, added to `batch`, for a
// hash of one record per field (`m` its meta record).
Status ReclaimRecordField(Keyspace& view, const std::string& key, const std::string& field,
                          const Keyspace::Value& m, Keyspace::Batch* batch, bool* reclaimed,
                          bool* key_deleted) {
  if ((storage_format::PayloadHashFlags(m.payload) & storage_format::kHashDeadlines) == 0) {
    return Status::OK();
  }
  std::vector<int64_t> deadlines;
  Status s = view.ReadDeadlines(m.version, {field}, &deadlines);
  if (!s.ok() || deadlines[0] == 0 || deadlines[0] > Keyspace::NowMs()) return s;
  std::optional<std::string> value;
  s = view.ReadMember(m.version, field, &value);
  if (!s.ok()) return s;
  batch->DeleteDeadline(m.version, field, deadlines[0]);
  int64_t count = storage_format::PayloadCount(m.payload);
  if (value) {
    batch->DeleteMember(m.version, field);
    --count;
  }
  if (count <= 0) {
    batch->Delete(key);
  } else {
    batch->Put(key, Keyspace::Value{m.type, m.expire_ms,
                                    storage_format::CountPayload(
                                        count, storage_format::PayloadHashFlags(m.payload)),
                                    m.version});
  }
  *reclaimed = value.has_value();
  *key_deleted = count <= 0;
  return Status::OK();
}

// The same for a listpackex hash (compact_members.h), its fields and their
// deadlines inside `m`.
void ReclaimCompactField(const std::string& key, const std::string& field,
                         const Keyspace::Value& m, Keyspace::Batch* batch, bool* reclaimed,
                         bool* key_deleted) {
  const uint64_t due_version = compact_members::DueVersion(m.payload);
  if (due_version == 0 || !compact_members::WellFormed(m.payload)) return;
  std::string payload = m.payload;
  ROCKSDB_NAMESPACE::Slice stored;
  if (!compact_members::Find(payload, field, &stored)) return;
  const int64_t deadline = compact_members::DeadlineOf(stored);
  if (deadline == 0 || deadline > Keyspace::NowMs()) return;
  compact_members::Erase(&payload, field);
  char encoding;
  int64_t count = 0;
  compact_members::ReadHeader(payload, &encoding, &count);
  batch->DeleteDue(deadline, due_version, field);
  if (count <= 0) {
    batch->Delete(key);
  } else {
    batch->Put(key, Keyspace::Value{m.type, m.expire_ms, std::move(payload), 0});
  }
  *reclaimed = true;
  *key_deleted = count <= 0;
}

}  // namespace

Status ReclaimField(Keyspace& view, const std::string& key, const std::string& field,
                    uint64_t version, int64_t due_deadline, bool* reclaimed, bool* key_deleted) {
  *reclaimed = *key_deleted = false;
  auto locks = view.LockKeys({key});
  std::optional<Keyspace::Value> meta;
  Status s = view.Read(key, &meta);
  if (!s.ok()) return s;
  const bool holds = meta && meta->type == Keyspace::kHash &&
                     (version == 0 || meta->version == version ||
                      (meta->version == 0 && compact_members::DueVersion(meta->payload) == version));
  Keyspace::Batch batch;
  if (due_deadline != 0) batch.DeleteDue(due_deadline, version, field);
  if (!holds) {
    // The hash is gone, replaced, or moved (RENAME, MOVE, SWAPDB since the
    // sweep read the owner record). The entry goes only if its version is
    // dead: the owner record still names this key, which, under its lock,
    // nothing can give the version back to.
    if (due_deadline == 0) return s;
    int db;
    std::string owner_key;
    bool found;
    s = view.OwnerOf(version, &db, &owner_key, &found);
    if (!s.ok() || (found && (db != view.database() || owner_key != key))) return s;
    return view.Commit(&batch);
  }
  if (meta->version == 0) {
    ReclaimCompactField(key, field, *meta, &batch, reclaimed, key_deleted);
  } else {
    s = ReclaimRecordField(view, key, field, *meta, &batch, reclaimed, key_deleted);
    if (!s.ok()) return s;
  }
  // (The entry itself goes whether the field did or was not due after
  // all: rewritten, persisted or given another deadline, whose own entry
  // stays.)
  if (!*reclaimed && due_deadline == 0) return s;
  s = view.Commit(&batch);
  if (!s.ok()) *reclaimed = *key_deleted = false;
  return s;
}

Status ReclaimDue(Keyspace& keyspace, size_t max, const Told& told,
                  const std::function<bool()>& stop, bool* any, uint64_t* reclaimed,
                  std::string* from) {
  *reclaimed = 0;
  std::vector<std::tuple<int64_t, uint64_t, std::string>> due;
  Status s = keyspace.ForEachDue(
      Keyspace::NowMs(),
      [&](int64_t deadline, uint64_t version, const std::string& field) {
        due.emplace_back(deadline, version, field);
        return due.size() < max;
      },
      any, *from);
  if (s.ok() && !*any && !from->empty()) {
    from->clear();  // (entries kept below it: the next step looks)
    *any = true;
  }
  for (size_t i = 0; s.ok() && i < due.size() && !stop(); ++i) {
    const auto& [deadline, version, field] = due[i];
    *from = storage_format::DueKey(deadline, version, field) + '\0';
    int db;
    std::string key;
    bool found;
    s = keyspace.OwnerOf(version, &db, &key, &found);
    if (!s.ok()) break;
    if (!found) {
      // A version without an owner record is dead for good.
      Keyspace::Batch batch;
      batch.DeleteDue(deadline, version, field);
      s = keyspace.Commit(&batch);
      continue;
    }
    Keyspace view = keyspace.InDatabase(db);
    bool field_reclaimed, key_deleted;
    s = ReclaimField(view, key, field, version, deadline, &field_reclaimed, &key_deleted);
    if (s.ok() && field_reclaimed) {
      ++*reclaimed;
      if (told) told(db, key, key_deleted);
    }
  }
  return s;
}

}  // namespace teksdb::server::field_deadlines
