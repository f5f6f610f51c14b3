// Moves between lists and pops from several, and their blocking forms:
// RPOPLPUSH LMOVE LMPOP, BLPOP BRPOP BRPOPLPUSH BLMOVE BLMPOP, as Redis 7.0
// answers them (the layout: list_store.h; blocking: blocking.h). They lock
// every key they name, so a move is one atomic write of both lists. Run
// again after a wake (ClientState::block_rerun), a key of another type
// counts as empty: Redis serves a blocked client only from a list.
#include <optional>

#include "ascii_case.h"
#include "blocking.h"
#include "list_store.h"
#include "multi_pop_args.h"
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

// The list at `key` for a pop; *exists false if there is none: false
// having replied (WRONGTYPE, unless run again after a wake: then another
// type counts as none).
bool OpenSource(Request& r, const std::string& key, StoredList* list, bool* exists) {
  if (r.client.block_rerun) {
    std::optional<Keyspace::Value> v;
    const Status s = r.keyspace->Read(key, &v);
    if (!s.ok()) return ReplyStorageError(r, s), false;
    if (v && v->type != Keyspace::kList) return *exists = false, true;
  }
  if (!list->Open(r, key)) return false;
  *exists = list->exists();
  return true;
}

// Pops from `source`'s end and pushes on `destination`'s (the same list
// too: a rotation); *moved is the element, none without a source. False
// having replied an error.
bool MoveElement(Request& r, bool from_left, bool to_left, std::optional<std::string>* moved) {
  const std::string& source = r.args[1];
  const std::string& destination = r.args[2];
  auto locks = r.keyspace->LockKeys({source, destination});
  StoredList from, to;
  bool from_exists;
  if (!OpenSource(r, source, &from, &from_exists)) return false;
  if (!from_exists) return true;
  if (!to.Open(r, destination)) return false;
  Keyspace::Batch batch;
  std::vector<std::string> popped;
  if (!from.Pop(r, from_left, 1, &popped)) return false;
  if (source == destination) {
    if (!from.Push(r, to_left, popped)) return false;
    from.Stage(&batch);
  } else {
    if (!to.Push(r, to_left, popped)) return false;
    from.Stage(&batch);
    to.Stage(&batch);
  }
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  *moved = popped.front();
  return true;
}

// LMOVE / RPOPLPUSH (deadline < 0: never blocks) and BLMOVE / BRPOPLPUSH.
void Move(Request& r, bool from_left, bool to_left, int64_t deadline_ms = -1) {
  std::optional<std::string> moved;
  if (!MoveElement(r, from_left, to_left, &moved)) return;
  if (moved) return reply::Bulk(r.out, *moved);
  // (Where it may not block, inside EXEC, BLMOVE answers as LMOVE.)
  if (deadline_ms < 0 || !r.client.may_block) return reply::Null(r.out, r.protocol());
  BlockOrNull(r, {r.args[1]}, deadline_ms);
}

void RPopLPush(Request& r) { Move(r, false, true); }

void LMove(Request& r) {
  bool from_left, to_left;
  if (ParseEnd(r, r.args[3], &from_left) && ParseEnd(r, r.args[4], &to_left)) {
    Move(r, from_left, to_left);
  }
}

// Pops up to `count` elements from the first of `keys` that holds a list
// (*key empty: none does). False having replied an error.
bool PopFirst(Request& r, const std::vector<std::string>& keys, bool left, int64_t count,
              std::string* key, std::vector<std::string>* values) {
  auto locks = r.keyspace->LockKeys(keys);
  for (const std::string& k : keys) {
    StoredList list;
    bool exists;
    if (!OpenSource(r, k, &list, &exists)) return false;
    if (!exists) continue;
    if (!list.Pop(r, left, count, values)) return false;
    Keyspace::Batch batch;
    list.Stage(&batch);
    const Status s = r.keyspace->Commit(&batch);
    if (!s.ok()) return ReplyStorageError(r, s), false;
    *key = k;
    return true;
  }
  return true;
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] from r.args[at]:
// pops from the first non-empty list; [key, [elements]]. Without one: a
// null array, or (the blocking form) blocks.
void MultiPop(Request& r, size_t at, bool blocking = false) {
  MultiPopArgs args;
  if (!ParseMultiPop(r, at, blocking, "left", "right", &args)) return;
  std::string key;
  std::vector<std::string> values;
  if (!PopFirst(r, args.keys, args.first_end, args.count, &key, &values)) return;
  if (!key.empty()) {
    reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, key);
    reply::ArrayHeader(r.out, values.size());
    for (const std::string& v : values) reply::Bulk(r.out, v);
    return;
  }
  if (args.deadline_ms < 0) return reply::NullArray(r.out, r.protocol());
  BlockOrNull(r, args.keys, args.deadline_ms);
}
void LMPop(Request& r) { MultiPop(r, 1); }

void BLMPop(Request& r) { MultiPop(r, 2, true); }

// BLPOP / BRPOP key [key ...] timeout: [key, element].
void BlockingPop(Request& r, bool left) {
  int64_t deadline_ms;
  if (!ParseBlockTimeout(r, r.args.back(), &deadline_ms)) return;
  const std::vector<std::string> keys(r.args.begin() + 1, r.args.end() - 1);
  std::string key;
  std::vector<std::string> values;
  if (!PopFirst(r, keys, left, 1, &key, &values)) return;
  if (key.empty()) return BlockOrNull(r, keys, deadline_ms);
  reply::ArrayHeader(r.out, 2);
  reply::Bulk(r.out, key);
  reply::Bulk(r.out, values.front());
}
void BLPop(Request& r) { BlockingPop(r, true); }
void BRPop(Request& r) { BlockingPop(r, false); }

void BRPopLPush(Request& r) {
  int64_t deadline_ms;
  if (ParseBlockTimeout(r, r.args[3], &deadline_ms)) Move(r, false, true, deadline_ms);
}

void BLMove(Request& r) {
  bool from_left, to_left;
  int64_t deadline_ms;
  if (ParseEnd(r, r.args[3], &from_left) && ParseEnd(r, r.args[4], &to_left) &&
      ParseBlockTimeout(r, r.args[5], &deadline_ms)) {
    Move(r, from_left, to_left, deadline_ms);
  }
}

}  // namespace

void AddListMoveCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"rpoplpush", 3, RPopLPush},   {"lmove", 5, LMove},   {"lmpop", -4, LMPop},
      {"blpop", -3, BLPop},          {"brpop", -3, BRPop},  {"brpoplpush", 4, BRPopLPush},
      {"blmove", 6, BLMove},         {"blmpop", -5, BLMPop},
  });
}

}  // namespace teksdb::server
