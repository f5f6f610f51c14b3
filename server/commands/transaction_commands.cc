// Transaction commands: MULTI EXEC DISCARD WATCH UNWATCH, and RESET (which
// also ends a transaction), with Redis 7.0's replies.
//
// MULTI queues the commands that follow (QueueInMulti, called by Execute),
// answering QUEUED; a command refused while queuing (unknown, wrong arity,
// NOAUTH) makes EXEC answer EXECABORT. EXEC locks every key the queued
// commands name and every watched key (command_info.h finds them), holding
// them in the connection's write group (Keyspace::BeginTransaction), then
// runs the commands in order: each sees the earlier ones' writes, a runtime
// error (WRONGTYPE, not an integer) fails that command alone, and their
// writes reach the database in one DB::Write with the group's flush, so no
// other client sees part of a transaction or writes between its commands.
// EXEC answers a null array, running nothing, when a watched key was
// modified since WATCH (watched_keys.h) or a key live at WATCH has expired
// since, as Redis does.
//
// Thread safety: a connection's commands, on one thread at a time; the
// watch registry is shared (watched_keys.h).
#include <algorithm>

#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "database_selection.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

// Commands that act at once inside MULTI instead of being queued.
bool RunsInsideMulti(const std::string& name) {
  return name == "exec" || name == "discard" || name == "multi" || name == "watch" ||
         name == "quit" || name == "reset";
}

void EndMulti(Request& r) {
  r.client.in_multi = false;
  r.client.multi_refused = false;
  r.client.queued.clear();
  r.client.queued_bytes = 0;
  if (r.client.info) r.client.info->multi.store(-1, std::memory_order_relaxed);
}

void Unwatch(Request& r) { r.keyspace->watched().UnwatchAll(&r.client.watcher); }

void Multi(Request& r) {
  if (r.client.in_multi) return reply::Error(r.out, "ERR MULTI calls can not be nested");
  r.client.in_multi = true;
  if (r.client.info) r.client.info->multi.store(0, std::memory_order_relaxed);
  reply::Ok(r.out);
}

void Discard(Request& r) {
  if (!r.client.in_multi) return reply::Error(r.out, "ERR DISCARD without MULTI");
  EndMulti(r);
  Unwatch(r);
  reply::Ok(r.out);
}

// True if EXEC must abort: a watched key was modified, or a key that was
// live at WATCH has expired since (Redis 7.0's isWatchedKeyExpired). The
// keys are locked.
bool WatchBroken(Request& r, bool* failed) {
  std::vector<std::string> live_at_watch;
  if (r.keyspace->watched().Dirty(&r.client.watcher, &live_at_watch)) return true;
  for (const std::string& name : live_at_watch) {
    std::optional<Keyspace::Value> value;
    bool expired = false;
    const ROCKSDB_NAMESPACE::Status s = r.keyspace->InDatabase(Keyspace::NameDatabase(name))
                                            .ReadAny(Keyspace::NameKey(name), &value, &expired);
    if (!s.ok()) {
      ReplyStorageError(r, s);
      *failed = true;
      return true;
    }
    if (expired) return true;
  }
  return false;
}

void Exec(Request& r) {
  if (!r.client.in_multi) return reply::Error(r.out, "ERR EXEC without MULTI");
  const std::vector<std::vector<std::string>> queued = std::move(r.client.queued);
  const bool refused = r.client.multi_refused;
  EndMulti(r);
  if (refused) {
    Unwatch(r);
    return reply::Error(r.out, "EXECABORT Transaction discarded because of previous errors.");
  }
  std::vector<std::string> keys;  // to lock: stripes go by key, whatever the database
  for (const std::string& name : r.client.watcher.keys) keys.push_back(Keyspace::NameKey(name));
  bool whole_keyspace = false;
  for (const std::vector<std::string>& command : queued) {
    AppendRequestKeys(command, &keys, &whole_keyspace);
  }
  r.keyspace->BeginTransaction(keys, whole_keyspace);
  bool failed = false;
  const bool broken = WatchBroken(r, &failed);
  Unwatch(r);
  if (broken) {
    r.keyspace->EndTransaction();
    if (!failed) reply::NullArray(r.out, r.protocol());
    return;
  }
  reply::ArrayHeader(r.out, queued.size());
  r.client.may_block = false;  // BLPOP and friends answer at once
  r.client.in_exec = true;
  for (const std::vector<std::string>& command : queued) {
    Execute(r.server, r.client, command, r.out);
  }
  r.client.in_exec = false;
  r.client.may_block = true;
  r.keyspace->EndTransaction();
}

void Watch(Request& r) {
  if (r.client.in_multi) return reply::Error(r.out, "ERR WATCH inside MULTI is not allowed");
  const std::vector<std::string> keys(r.args.begin() + 1, r.args.end());
  // Under the keys' stripes: no write of them falls between a writer's
  // look at the registry and this registration (watched_keys.h).
  auto locks = r.keyspace->LockKeys(keys);
  for (const std::string& key : keys) {
    std::optional<Keyspace::Value> value;
    bool expired = false;
    const ROCKSDB_NAMESPACE::Status s = r.keyspace->ReadAny(key, &value, &expired);
    if (!s.ok()) return ReplyStorageError(r, s);
    r.keyspace->watched().Watch(&r.client.watcher, r.keyspace->Name(key), expired);
  }
  reply::Ok(r.out);
}

void UnwatchCommand(Request& r) {
  Unwatch(r);
  reply::Ok(r.out);
}

// RESET: the connection as new (RESP2, database 0, replies on, tracking
// off, no name, no transaction, nothing watched, no subscription, not a
// monitor, NO-TOUCH off; lib-name and lib-ver stay, as Redis 7.2's), as
// the default user, authenticated only if it needs no password.
void Reset(Request& r) {
  EndMulti(r);
  Unwatch(r);
  UnsubscribeAll(r.server, r.client);
  SetClientProtocol(r.client, 2);
  SetClientName(r.client, "");
  SelectDatabase(r, 0);
  r.client.replies_off = false;
  r.client.replies_to_skip = 0;
  r.server.tracking.Disable(r.client.id);
  r.client.tracking = false;
  r.client.tracking_prefixes = 0;
  r.server.monitors.Remove(r.client.id);
  if (r.client.info) {
    r.client.info->monitor.store(false, std::memory_order_relaxed);
    r.client.info->no_touch.store(false, std::memory_order_relaxed);
  }
  SetClientDefaultUser(r.server, r.client);
  reply::Simple(r.out, "RESET");
}

}  // namespace

bool QueueInMulti(ClientState& client, const Command& command,
                  const std::vector<std::string>& args, std::string* out) {
  if (!client.in_multi || RunsInsideMulti(command.name)) return false;
  client.queued.push_back(args);
  client.queued_bytes += ArgumentsBytes(args);
  if (client.info) client.info->multi.store(static_cast<int>(client.queued.size()), std::memory_order_relaxed);
  reply::Simple(out, "QUEUED");
  return true;
}

void ReplyRefused(ClientState& client, const std::string& name, const std::string& error,
                  std::string* out) {
  if (name == "exec") {
    // EXEC itself refused ends the transaction (if any), saying why.
    client.in_multi = false;
    client.multi_refused = false;
    client.queued.clear();
    client.queued_bytes = 0;
    if (client.info) client.info->multi.store(-1, std::memory_order_relaxed);
    client.keyspace->watched().UnwatchAll(&client.watcher);
    const size_t code_end = error.find(' ');
    return reply::Error(out, "EXECABORT Transaction discarded because of: " +
                                 (error.compare(0, code_end, "ERR") == 0 ? error.substr(code_end + 1)
                                                                         : error));
  }
  if (client.in_multi) client.multi_refused = true;
  reply::Error(out, error);
}

void AddTransactionCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"multi", 1, Multi},      {"exec", 1, Exec},   {"discard", 1, Discard},
      {"watch", -2, Watch},     {"unwatch", 1, UnwatchCommand}, {"reset", 1, Reset},
  });
}

}  // namespace teksdb::server
