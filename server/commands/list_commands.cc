// List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LRANGE LLEN LINDEX
// (edits: list_edit_commands.cc; moves between lists:
// list_move_commands.cc; the layout: list_store.h). Writes run under the
// key's lock; an emptied list is deleted. Reads take no lock: one that
// meets a chunk written after the meta record it read runs again, then
// under the lock (list_store.h).
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
  StoredList list;
  if (!list.Open(r, key)) return;
  if (only_existing && !list.exists()) return reply::Integer(r.out, 0);
  if (!list.Push(r, left, &r.args[2], r.args.size() - 2)) return;
  Keyspace::Batch batch;
  list.Stage(&batch);
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Integer(r.out, list.count());
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
  StoredList list;
  if (!list.Open(r, key)) return;
  if (!list.exists()) {
    return with_count ? reply::NullArray(r.out, r.protocol()) : reply::Null(r.out, r.protocol());
  }
  std::vector<std::string> values;
  if (!list.Pop(r, left, want, &values)) return;
  Keyspace::Batch batch;
  list.Stage(&batch);
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!with_count) return reply::Bulk(r.out, values.front());
  reply::ArrayHeader(r.out, values.size());
  for (const std::string& v : values) reply::Bulk(r.out, v);
}
void LPop(Request& r) { Pop(r, true); }
void RPop(Request& r) { Pop(r, false); }

void LLen(Request& r) {
  StoredList list;
  if (list.Open(r, r.args[1])) reply::Integer(r.out, list.count());
}

void LIndex(Request& r) {
  // Redis looks the key up before it reads the index.
  auto locks = LockOnRerun(r, r.args[1]);
  StoredList list;
  if (!list.Open(r, r.args[1])) return;
  if (!list.exists()) return reply::Null(r.out, r.protocol());
  int64_t index;
  if (!ParseStrictInt64(r.args[2], &index)) return reply::Error(r.out, kNotInteger);
  index = NormalizeIndex(index, list.count());
  if (index < 0 || index >= list.count()) return reply::Null(r.out, r.protocol());
  std::string value;
  if (list.At(r, index, &value)) reply::Bulk(r.out, value);
}

void LRange(Request& r) {
  int64_t start, stop;
  if (!ParseStrictInt64(r.args[2], &start) || !ParseStrictInt64(r.args[3], &stop)) {
    return reply::Error(r.out, kNotInteger);
  }
  auto locks = LockOnRerun(r, r.args[1]);
  StoredList list;
  if (!list.Open(r, r.args[1])) return;
  const int64_t n = list.count();
  start = std::max<int64_t>(0, NormalizeIndex(start, n));
  stop = std::min(NormalizeIndex(stop, n), n - 1);
  if (start > stop) return reply::ArrayHeader(r.out, 0);
  std::vector<std::string> values;
  if (!list.Range(r, start, stop, &values)) return;
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
