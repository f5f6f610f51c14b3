// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LRANGE LLEN LINDEX
// (edits: list_edit_commands.cc; moves between lists:
// list_move_commands.cc; the layout: list_store.h). Writes run under the
// key's lock; an emptied list is deleted. Reads take no lock: one that
// misses an element the count promised checks that the list was not
// replaced under it, and runs again if it was (StillHolds).
#include <algorithm>

#include "commands.h"
#include "list_store.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

// LPUSH, RPUSH; LPUSHX and RPUSHX (`only_existing`) push only onto a list
// that exists.
void Push(Request& r, bool left, bool only_existing = false) {
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  ListMeta meta;
  bool exists;
  if (!ReadList(r, key, &meta, &exists)) return;
  if (only_existing && !exists) return reply::Integer(r.out, 0);
  Keyspace::Batch batch;
  if (!PushElements(r, &meta, left, std::vector<std::string>(r.args.begin() + 2, r.args.end()),
                    &batch)) {
    return;
  }
  StageListMeta(key, meta, !exists, &batch);
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, meta.count);
}
void LPush(Request& r) { Push(r, true); }
void RPush(Request& r) { Push(r, false); }
void LPushX(Request& r) { Push(r, true, true); }
void RPushX(Request& r) { Push(r, false, true); }

void Pop(Request& r, bool left) {
  if (r.args.size() > 3) {
    return reply::Error(r.out, std::string("ERR wrong number of arguments for '") +
                                   (left ? "lpop" : "rpop") + "' command");
  }
  int64_t want = 1;
  const bool with_count = r.args.size() == 3;
  if (with_count && (!ParseStrictInt64(r.args[2], &want) || want < 0)) {
    return reply::Error(r.out, "ERR value is out of range, must be positive");
  }
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  ListMeta meta;
  bool exists;
  if (!ReadList(r, key, &meta, &exists)) return;
  if (!exists) {
    return with_count ? reply::NullArray(r.out, r.protocol()) : reply::Null(r.out, r.protocol());
  }
  Keyspace::Batch batch;
  std::vector<std::string> values;
  if (!PopElements(r, &meta, left, want, &batch, &values)) return;
  StageListMeta(key, meta, false, &batch);
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!with_count) return reply::Bulk(r.out, values.front());
  reply::ArrayHeader(r.out, values.size());
  for (const std::string& v : values) reply::Bulk(r.out, v);
}
void LPop(Request& r) { Pop(r, true); }
void RPop(Request& r) { Pop(r, false); }

void LLen(Request& r) {
  ListMeta meta;
  bool exists;
  if (ReadList(r, r.args[1], &meta, &exists)) reply::Integer(r.out, meta.count);
}

void LIndex(Request& r) {
  // Redis looks the key up before it reads the index.
  ListMeta meta;
  bool exists;
  if (!ReadList(r, r.args[1], &meta, &exists)) return;
  if (!exists) return reply::Null(r.out, r.protocol());
  int64_t index;
  if (!ParseStrictInt64(r.args[2], &index)) return reply::Error(r.out, kNotInteger);
  index = NormalizeIndex(index, meta.count);
  if (index < 0 || index >= meta.count) return reply::Null(r.out, r.protocol());
  std::optional<std::string> value;
  const Status s = r.keyspace->ReadMember(meta.version, ListElement(meta.first + index), &value);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!value && !StillHolds(r, r.args[1], meta.version)) return;
  value ? reply::Bulk(r.out, *value) : reply::Null(r.out, r.protocol());
}

void LRange(Request& r) {
  int64_t start, stop;
  if (!ParseStrictInt64(r.args[2], &start) || !ParseStrictInt64(r.args[3], &stop)) {
    return reply::Error(r.out, kNotInteger);
  }
  ListMeta meta;
  bool exists;
  if (!ReadList(r, r.args[1], &meta, &exists)) return;
  start = std::max<int64_t>(0, NormalizeIndex(start, meta.count));
  stop = std::min(NormalizeIndex(stop, meta.count), meta.count - 1);
  if (!exists || start > stop) return reply::ArrayHeader(r.out, 0);
  std::vector<std::string> values;
  const std::string first = ListElement(meta.first + start);
  const size_t want = static_cast<size_t>(stop - start + 1);
  const Status s = r.keyspace->ForEachMember(
      meta.version,
      [&](const std::string&, const std::string& value) {
        values.push_back(value);
        return values.size() < want;
      },
      first);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (values.size() < want && !StillHolds(r, r.args[1], meta.version)) return;
  reply::ArrayHeader(r.out, values.size());
  for (const std::string& v : values) reply::Bulk(r.out, v);
}

}  // namespace

void AddListCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"lpush", -3, LPush}, {"rpush", -3, RPush}, {"lpushx", -3, LPushX}, {"rpushx", -3, RPushX}, {"lpop", -2, LPop},  {"rpop", -2, RPop},
      {"llen", 2, LLen},    {"lindex", 3, LIndex}, {"lrange", 4, LRange},
  });
}

}  // namespace teksdb::server
