// Moves between lists and pops from several: RPOPLPUSH LMOVE LMPOP, as
// Redis 7.0 answers them (the layout: list_store.h). They lock every key
// they name, so a move is one atomic write of both lists.
#include "ascii_case.h"
#include "list_store.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

// LEFT or RIGHT; false having replied a syntax error.
bool ParseEnd(Request& r, const std::string& arg, bool* left) {
  const std::string end = AsciiLower(arg);
  if (end != "left" && end != "right") return reply::Error(r.out, kSyntaxError), false;
  *left = end == "left";
  return true;
}

// Pops from `source`'s end and pushes on `destination`'s (the same list
// too: a rotation); replies the element, or null without a source.
void Move(Request& r, bool from_left, bool to_left) {
  const std::string& source = r.args[1];
  const std::string& destination = r.args[2];
  auto locks = r.keyspace->LockKeys({source, destination});
  ListMeta from, to;
  bool from_exists, to_exists;
  if (!ReadList(r, source, &from, &from_exists)) return;
  if (!from_exists) return reply::Null(r.out, r.protocol());
  if (!ReadList(r, destination, &to, &to_exists)) return;
  Keyspace::Batch batch;
  std::vector<std::string> moved;
  if (!PopElements(r, &from, from_left, 1, &batch, &moved)) return;
  if (source == destination) {
    if (!PushElements(r, &from, to_left, moved, &batch)) return;
    StageListMeta(source, from, false, &batch);
  } else {
    if (!PushElements(r, &to, to_left, moved, &batch)) return;
    StageListMeta(source, from, false, &batch);
    StageListMeta(destination, to, !to_exists, &batch);
  }
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s);
  reply::Bulk(r.out, moved.front());
}

void RPopLPush(Request& r) { Move(r, false, true); }

void LMove(Request& r) {
  bool from_left, to_left;
  if (ParseEnd(r, r.args[3], &from_left) && ParseEnd(r, r.args[4], &to_left)) {
    Move(r, from_left, to_left);
  }
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]: pops from the first
// non-empty list; [key, [elements]], or a null array.
void LMPop(Request& r) {
  int64_t numkeys;
  if (!ParseStrictInt64(r.args[1], &numkeys) || numkeys <= 0) {
    return reply::Error(r.out, "ERR numkeys should be greater than 0");
  }
  const size_t end_at = 2 + static_cast<size_t>(numkeys);
  if (numkeys > static_cast<int64_t>(r.args.size()) || end_at >= r.args.size()) {
    return reply::Error(r.out, kSyntaxError);
  }
  bool left;
  if (!ParseEnd(r, r.args[end_at], &left)) return;
  int64_t count = -1;
  for (size_t i = end_at + 1; i < r.args.size(); ++i) {
    if (count != -1 || AsciiLower(r.args[i]) != "count" || i + 1 == r.args.size()) {
      return reply::Error(r.out, kSyntaxError);
    }
    if (!ParseStrictInt64(r.args[++i], &count) || count <= 0) {
      return reply::Error(r.out, "ERR count should be greater than 0");
    }
  }
  if (count == -1) count = 1;
  const std::vector<std::string> keys(r.args.begin() + 2, r.args.begin() + end_at);
  auto locks = r.keyspace->LockKeys(keys);
  for (const std::string& key : keys) {
    ListMeta meta;
    bool exists;
    if (!ReadList(r, key, &meta, &exists)) return;
    if (!exists) continue;
    Keyspace::Batch batch;
    std::vector<std::string> values;
    if (!PopElements(r, &meta, left, count, &batch, &values)) return;
    StageListMeta(key, meta, false, &batch);
    const Status s = r.keyspace->Commit(&batch);
    if (!s.ok()) return ReplyStorageError(r, s);
    reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, key);
    reply::ArrayHeader(r.out, values.size());
    for (const std::string& v : values) reply::Bulk(r.out, v);
    return;
  }
  reply::NullArray(r.out, r.protocol());
}

}  // namespace

void AddListMoveCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"rpoplpush", 3, RPopLPush}, {"lmove", 5, LMove}, {"lmpop", -4, LMPop},
  });
}

}  // namespace teksdb::server
