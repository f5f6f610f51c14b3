// Execute: the table lookup, arity and AUTH checks, and Redis's error
// replies for requests that never reach a handler.
#include "commands.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <utility>

#include "acl_catalog.h"
#include "acl_check.h"
#include "ascii_case.h"
#include "command_info.h"
#include "expiry_sweeper.h"
#include "keyspace_events.h"
#include "replication.h"
#include "resp_reply.h"
#include "script_engine.h"

namespace teksdb::server {
namespace {

// How often a read runs again when its key's version keeps being replaced
// under it (Request::retry): each time, another writer replaced the key and
// a compaction removed the version read, in between.
constexpr int kMaxAttempts = 100;

// Command names to their place in CommandTable().
const std::unordered_map<std::string, size_t>& IndexByName() {
  static const std::unordered_map<std::string, size_t> index = [] {
    std::unordered_map<std::string, size_t> by_name;
    for (size_t i = 0; i < CommandTable().size(); ++i) by_name.emplace(CommandTable()[i].name, i);
    return by_name;
  }();
  return index;
}

// Which commands of CommandTable() have subcommands (checked only for them).
const std::vector<bool>& WithSubcommands() {
  static const std::vector<bool> with = [] {
    std::vector<bool> flags;
    for (const Command& c : CommandTable()) flags.push_back(HasSubcommands(c.name));
    return flags;
  }();
  return with;
}

// Whether each command of the table has COMMAND's flag `flag`.
std::vector<bool> FlaggedByIndex(const char* flag) {
  std::vector<bool> flags;
  for (const Command& c : CommandTable()) {
    const CommandInfo* info = FindCommandInfo(c.name);
    flags.push_back(info != nullptr && std::strstr(info->flags, flag) != nullptr);
  }
  return flags;
}
// "write" (as command_info.h's Writes); "denyoom": may grow memory
// (refused past maxmemory); "no_multi": refused inside MULTI (SAVE,
// SHUTDOWN, SYNC); "stale": answered by a replica cut from its primary.
const std::vector<bool>& WritesByIndex() {
  static const std::vector<bool> writes = [] {
    std::vector<bool> flags;
    for (const Command& c : CommandTable()) {
      const CommandInfo* info = FindCommandInfo(c.name);
      flags.push_back(info != nullptr && Writes(*info));
    }
    return flags;
  }();
  return writes;
}
const std::vector<bool>& DenyOomByIndex() {
  static const std::vector<bool> deny = FlaggedByIndex("denyoom");
  return deny;
}
const std::vector<bool>& NoMultiByIndex() {
  static const std::vector<bool> no_multi = FlaggedByIndex("no_multi");
  return no_multi;
}
const std::vector<bool>& StaleByIndex() {
  static const std::vector<bool> stale = [] {
    std::vector<bool> flags = FlaggedByIndex("stale");
    // Containers whose every subcommand Redis 7.0 flags "stale".
    for (const char* name : {"acl", "client", "config", "latency", "pubsub", "slowlog"}) {
      flags[IndexByName().at(name)] = true;
    }
    return flags;
  }();
  return stale;
}

// Whether a command queued in the client's MULTI is marked in `by_index`
// (EXEC counts as writing if one of them writes, and so on, as Redis's).
bool AnyQueued(const ClientState& client, const std::vector<bool>& by_index, bool marked) {
  return std::any_of(client.queued.begin(), client.queued.end(), [&](const auto& args) {
    const auto it = IndexByName().find(AsciiLower(args[0]));
    return it != IndexByName().end() && by_index[it->second] == marked;
  });
}

// Whether Redis refuses the command once memory is past maxmemory
// (noeviction): a "denyoom" command, an EXEC of one, and anything queued
// into MULTI (which could grow without bound) but EXEC, DISCARD, QUIT and
// RESET. (EVAL's and FCALL's scripts: by their flags, script_engine.h.)
bool DeniedOnOom(const ClientState& client, const std::vector<std::string>& args,
                 const std::string& name, size_t index) {
  if (DenyOomByIndex()[index] || IsDenyOomSubcommand(args)) return true;
  if (!client.in_multi) return false;
  if (name != "exec") return name != "discard" && name != "quit" && name != "reset";
  return AnyQueued(client, DenyOomByIndex(), true);
}

// When MONITOR shows each command of the table: after it ran (Redis 7.0's
// call()), never (admin commands), or, for scripts ("skip_monitor"),
// before they run, so that the commands they call follow them.
enum class MonitorFeed { kAfter, kNever, kBefore };
const std::vector<MonitorFeed>& MonitorFeedByIndex() {
  static const std::vector<MonitorFeed> feeds = [] {
    const std::vector<bool> admin = FlaggedByIndex("admin");
    const std::vector<bool> skip = FlaggedByIndex("skip_monitor");
    std::vector<MonitorFeed> by_index;
    for (size_t i = 0; i < admin.size(); ++i) {
      by_index.push_back(admin[i] ? MonitorFeed::kNever
                         : skip[i] ? MonitorFeed::kBefore
                                   : MonitorFeed::kAfter);
    }
    return by_index;
  }();
  return feeds;
}

// Whether each command of the table is a read CLIENT TRACKING remembers:
// read-only, and neither Pub/Sub nor a script (whose reads count inside
// it).
const std::vector<bool>& TrackedReadsByIndex() {
  static const std::vector<bool> tracked = [] {
    std::vector<bool> flags;
    for (const Command& c : CommandTable()) {
      const CommandInfo* info = FindCommandInfo(c.name);
      flags.push_back(info != nullptr && !Writes(*info) &&
                      std::strstr(info->flags, "readonly") != nullptr &&
                      std::strstr(info->acl_categories, "@pubsub") == nullptr &&
                      std::strstr(info->acl_categories, "@scripting") == nullptr);
    }
    return flags;
  }();
  return tracked;
}

// Whether a command "may replicate", as Redis 7.0 says (what CLIENT PAUSE
// WRITE and FAILOVER hold back): a write; PFCOUNT, PUBLISH, SPUBLISH
// (FlaggedMayReplicate); a script unless it declares no-writes
// (EVAL's shebang line, EVALSHA's cached script, FCALL's function; one
// that declares nothing, or is not found, may write); EXEC by what it
// queued.
bool MayReplicate(ServerState& server, const ClientState& client,
                  const std::vector<std::string>& args, size_t index) {
  if (WritesByIndex()[index]) return true;
  const std::string& name = CommandTable()[index].name;
  if (!FlaggedMayReplicate(name)) {
    if (name != "exec") return false;
    return std::any_of(client.queued.begin(), client.queued.end(), [&](const auto& queued) {
      const auto it = IndexByName().find(AsciiLower(queued[0]));
      return it != IndexByName().end() && MayReplicate(server, client, queued, it->second);
    });
  }
  if (name == "eval" || name == "evalsha" || name == "fcall") {
    ScriptEngine::RunFlags flags;
    bool found = false;
    if (name == "eval") {
      found = ScriptEngine::BodyFlags(args[1], &flags);
    } else if (name == "evalsha") {
      found = server.scripts->CachedFlags(args[1], &flags);
    } else {
      ScriptEngine::FunctionInfo function;
      found = server.scripts->FindFunction(args[1], &function);
      flags = function.run;
    }
    return !found || !flags.declared || !flags.no_writes;
  }
  return true;
}

// Whether the pause in force holds the command back: CLIENT PAUSE ALL
// holds every command, WRITE (and FAILOVER) those that may replicate. The
// commands of an EXEC and of a script are not held: EXEC was, whole.
ClientPause::Kind PausedBy(ServerState& server, const ClientState& client,
                           const std::vector<std::string>& args, size_t index) {
  if (client.in_script || client.in_exec) return ClientPause::kNone;
  server.pause.ExpireDue(Keyspace::NowMs());
  const ClientPause::Kind kind = server.pause.kind();
  if (kind == ClientPause::kAll) return ClientPause::kAll;
  if (kind == ClientPause::kWrite && MayReplicate(server, client, args, index)) {
    return ClientPause::kWrite;
  }
  return ClientPause::kNone;
}

// Redis's reply to an unknown command: the name and the arguments'
// beginning, 128 bytes each at most.
std::string UnknownCommand(const std::vector<std::string>& args) {
  std::string list;
  for (size_t i = 1; i < args.size() && list.size() < 128; ++i) {
    list += "'" + args[i].substr(0, 128 - list.size()) + "' ";
  }
  return "ERR unknown command '" + args[0].substr(0, 128) + "', with args beginning with: " + list;
}

}  // namespace

const std::vector<Command>& CommandTable() {
  static const std::vector<Command> table = [] {
    std::vector<Command> commands;
    AddStringCommands(&commands);
    AddBitmapCommands(&commands);
    AddBitFieldCommands(&commands);
    AddSortCommands(&commands);
    AddHyperLogLogCommands(&commands);
    AddKeyCommands(&commands);
    AddHashCommands(&commands);
    AddHashFieldExpireCommands(&commands);
    AddSetCommands(&commands);
    AddSetAlgebraCommands(&commands);
    AddListCommands(&commands);
    AddListEditCommands(&commands);
    AddListMoveCommands(&commands);
    AddZSetCommands(&commands);
    AddZSetRangeCommands(&commands);
    AddZSetPopCommands(&commands);
    AddZSetAlgebraCommands(&commands);
    AddScanCommands(&commands);
    AddServerCommands(&commands);
    AddTransactionCommands(&commands);
    AddPubSubCommands(&commands);
    AddScriptCommands(&commands);
    AddPersistenceCommands(&commands);
    AddCopyCommands(&commands);
    AddDumpRestoreCommands(&commands);
    AddMigrateCommand(&commands);
    AddStreamCommands(&commands);
    AddStreamReadCommands(&commands);
    AddStreamGroupCommands(&commands);
    AddStreamInfoCommand(&commands);
    AddDatabaseCommands(&commands);
    AddInfoCommand(&commands);
    AddDebugCommand(&commands);
    AddGeoCommands(&commands);
    AddGeoSearchCommands(&commands);
    AddClientCommands(&commands);
    AddIntrospectionCommands(&commands);
    AddModuleCommand(&commands);
    AddClusterCommands(&commands);
    AddLcsCommand(&commands);
    AddReplicationCommands(&commands);
    AddAclCommand(&commands);
    return commands;
  }();
  return table;
}

size_t CommandCount() { return CommandTable().size(); }

const Command* LookupCommand(const std::string& lower_case_name) {
  const auto it = IndexByName().find(lower_case_name);
  return it == IndexByName().end() ? nullptr : &CommandTable()[it->second];
}

namespace {
void Run(ServerState& server, ClientState& client, const std::vector<std::string>& args,
         std::string* out);
}  // namespace

void Execute(ServerState& server, ClientState& client, const std::vector<std::string>& args,
             std::string* out) {
  // CLIENT REPLY OFF|SKIP: the reply is dropped (a connection's commands
  // only, not those inside EXEC or a script, whose replies are the EXEC's
  // or the script's).
  const bool top_level = !client.in_script && client.may_block;
  const size_t start = out->size();
  Run(server, client, args, out);
  if (!top_level || (!client.replies_off && client.replies_to_skip == 0)) return;
  if (client.replies_to_skip > 0) --client.replies_to_skip;
  // (Un)subscribe confirmations are pushed, as Pub/Sub messages are.
  if (AsciiLower(args[0]).find("subscribe") != std::string::npos) return;
  out->resize(start);
}

void CountBlockedEnd(ServerState& server, const std::vector<std::string>& args,
                     const std::string& error) {
  const auto it = IndexByName().find(AsciiLower(args[0]));
  if (it == IndexByName().end()) return;
  CommandStats& stats = server.stats.command(it->second);
  stats.Record(0, server.stats.latency_tracking());
  if (error.empty()) return;
  stats.failed.fetch_add(1, std::memory_order_relaxed);
  server.stats.RecordError(error);
}

void ReclaimExpiredReads(ServerState& server, ClientState& client) {
  // The deletes are the server's, as the sweep's (NOLOOP tracking sees
  // them), written through its own view. A failed one is left to the sweep.
  for (const Keyspace::ExpiredRead& read : client.expired_reads) {
    if (read.is_field) {
      server.sweeper->ReclaimReadField(*server.keyspace, read.db, read.key, read.field);
    } else {
      server.sweeper->ReclaimRead(*server.keyspace, read.db, read.key);
    }
  }
  client.expired_reads.clear();
}

namespace {
void Run(ServerState& server, ClientState& client, const std::vector<std::string>& args,
         std::string* out) {
  server.commands.fetch_add(1, std::memory_order_relaxed);
  // When the connection's command before this one ended, if it ran right
  // before it (ClientState::last_command_end): this one's start.
  std::optional<std::chrono::steady_clock::time_point> previous_end;
  if (!client.in_script) previous_end = std::exchange(client.last_command_end, std::nullopt);
  const std::string name = AsciiLower(args[0]);
  const auto it = IndexByName().find(name);
  if (it == IndexByName().end()) {
    server.stats.RecordError(UnknownCommand(args));
    ReplyRefused(client, name, UnknownCommand(args), out);
    return;
  }
  if (client.info && !client.in_script) {  // CLIENT LIST's cmd (refused ones too, as Redis)
    client.info->last_command.store(AclCommandId(it->second, args) + 1, std::memory_order_relaxed);
  }
  // A command refused before it runs: INFO's rejected_calls and errorstats.
  auto refuse = [&](const std::string& error) {
    server.stats.command(it->second).rejected.fetch_add(1, std::memory_order_relaxed);
    server.stats.RecordError(error);
    ReplyRefused(client, name, error, out);
  };
  const Command& command = CommandTable()[it->second];
  if (!ArityFits(command, args.size())) {
    return refuse("ERR wrong number of arguments for '" + name + "' command");
  }
  if (server.acl.AuthRequired() && !client.authenticated && name != "auth" &&
      name != "hello" && name != "quit") {
    return refuse("NOAUTH Authentication required.");
  }
  if (client.in_multi && NoMultiByIndex()[it->second]) {
    return refuse("ERR Command not allowed inside a transaction");
  }
  if (WithSubcommands()[it->second]) {
    if (const std::string error = SubcommandError(args); !error.empty()) {
      return refuse(error);
    }
  }
  // ACL: the script engine checks the commands a script calls itself
  // (ScriptCommandRunner), in its words.
  if (!client.in_script) {
    if (const AclUser* user = CurrentUser(server, client)) {
      if (const AclVerdict verdict = CheckAcl(*user, it->second, args); !verdict.allowed()) {
        LogAclDenial(server, client, verdict,
                     client.in_multi || client.in_exec ? AclContext::kMulti : AclContext::kTopLevel,
                     args);
        return refuse(client.in_exec ? AclDeniedAtExecError(verdict) : AclDeniedError(verdict, args));
      }
    }
  }
  // maxmemory: checked for what a connection sends, not for the commands
  // of an EXEC (checked whole, so that it runs all or nothing) or a script.
  if (client.may_block && !client.in_script && server.memory.limit() > 0 &&
      DeniedOnOom(client, args, name, it->second) && server.memory.Exceeded()) {
    return refuse(MemoryLimit::kError);
  }
  const bool exec = client.in_multi && name == "exec";
  if (WritesByIndex()[it->second] || (exec && AnyQueued(client, WritesByIndex(), true))) {
    // A replica takes writes from its primary's WAL only; a primary with
    // min-replicas-to-write takes them only with enough replicas in reach.
    if (server.replication->replica()) {
      return refuse("READONLY You can't write against a read only replica.");
    }
    if (!server.replication->EnoughReplicas()) {
      return refuse("NOREPLICAS Not enough good replicas to write.");
    }
  }
  // A replica cut from its primary, with replica-serve-stale-data no,
  // answers only the commands flagged "stale" (INFO, REPLICAOF, ...); a
  // script (flagged stale) may not call the others. (EXEC's commands were
  // checked with EXEC.)
  if ((client.may_block || client.in_script) && server.replication->replica() &&
      !server.serve_stale_data.load(std::memory_order_relaxed) &&
      (!StaleByIndex()[it->second] || (exec && AnyQueued(client, StaleByIndex(), false))) &&
      !server.replication->link_info().up) {
    return refuse(client.in_script
                      ? "ERR Can not execute the command on a stale replica"
                      : "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
  }
  if (client.protocol == 2 && client.subscriptions() > 0 && !client.in_script) {
    if (const std::string error = PubSubRefusal(client, FullCommandName(args)); !error.empty()) {
      return refuse(error);
    }
  }
  // Past its busy-reply threshold, another client's script refuses what
  // Redis refuses then; before it, the command waits for the script.
  RunningScript& running = server.scripts->running();
  if (!client.in_script && running.active() && !AllowedWhileBusy(args) &&
      running.MustRefuse(client.id)) {
    return refuse(running.BusyError());
  }
  // CLIENT PAUSE, FAILOVER: held until the pause eases (then, after a
  // failover, a replica's READONLY), as Redis's last check. (The pause's
  // one atomic load when there is none.)
  if (server.pause.kind() != ClientPause::kNone) {
    if (const ClientPause::Kind held = PausedBy(server, client, args, it->second);
        held != ClientPause::kNone) {
      client.block = ClientState::Block{{ClientPause::kWakeKey}, 0};
      client.block->paused_by = held;
      return;
    }
  }
  if (QueueInMulti(client, command, args, out)) return;
  Request request{server, client, args, out,
                  client.keyspace != nullptr ? client.keyspace : server.keyspace};
  // (A pipelined command starts when the one before it ended.)
  const auto started = previous_end ? *previous_end : std::chrono::steady_clock::now();
  if (client.info && !client.in_script) {  // CLIENT LIST's idle
    client.info->last_command_ms.store(
        std::chrono::duration_cast<std::chrono::milliseconds>(started.time_since_epoch()).count(),
        std::memory_order_relaxed);
  }
  const size_t reply_start = out->size();
  // CLIENT TRACKING: a read's keys are remembered before it reads, so that
  // a write landing after the read's value invalidates it.
  // (A script's reads count, inside it, for the keys it declared.)
  if (client.tracking && TrackedReadsByIndex()[it->second]) {
    std::vector<std::string> keys;
    bool whole_keyspace = false;
    if (client.in_script && client.script_keys != nullptr) {
      keys = *client.script_keys;  // inside a script: the keys it declared
    } else {
      AppendRequestKeys(args, &keys, &whole_keyspace);
    }
    if (!keys.empty()) request.keyspace->NoteRead(keys, client.tracking_caching);
  }
  // Keyspace notifications: the keys a write command's commits wrote.
  std::vector<Keyspace::WrittenKey> written;
  std::vector<std::string> absent_before;  // for "new" events
  const bool notify = WritesByIndex()[it->second] && NotificationsOn(server);
  if (notify && NewKeyEventsOn(server)) {
    std::vector<std::string> keys;
    bool whole_keyspace = false;
    AppendRequestKeys(args, &keys, &whole_keyspace);
    std::vector<std::optional<Keyspace::Value>> values;
    if (request.keyspace->ReadMany(keys, &values).ok()) {
      for (size_t i = 0; i < keys.size(); ++i) {
        if (!values[i]) absent_before.push_back(keys[i]);
      }
    }
  }
  if (notify) request.keyspace->RecordWrites(&written);
  // Lazy expiry: the expired keys a connection's command reads meet (its
  // own, its script's, its transaction's), for ReclaimExpiredReads.
  const bool lazy_expiry = server.sweeper != nullptr && client.keyspace != nullptr &&
                           client.may_block && !client.in_script &&
                           !request.keyspace->recording_expired_reads();
  if (lazy_expiry) request.keyspace->RecordExpiredReads(&client.expired_reads);
  // MONITOR: a blocked command's line goes once, at its first run.
  const MonitorFeed monitor_feed =
      server.monitors.active() && !client.block_rerun &&
              !(WithSubcommands()[it->second] && IsAdminSubcommand(args))
          ? MonitorFeedByIndex()[it->second]
          : MonitorFeed::kNever;
  auto feed_monitors = [&] {
    server.monitors.Feed(request.keyspace->database(), client.in_script ? "lua" : client.address,
                         args);
  };
  if (monitor_feed == MonitorFeed::kBefore) feed_monitors();
  for (int attempt = 1;; ++attempt) {
    client.event_hints = ClientState::EventHints();
    request.attempt = attempt;
    command.handler(request);
    if (!request.retry) break;
    out->resize(reply_start);
    request.retry = false;
    if (attempt == kMaxAttempts) {
      reply::Error(out, "ERR storage: the key kept being replaced while it was read; try again");
      break;
    }
  }
  if (monitor_feed == MonitorFeed::kAfter) feed_monitors();
  if (notify) {
    request.keyspace->RecordWrites(nullptr);
    NotifyWrites(server, args, request.keyspace->database(), written, absent_before,
                 client.event_hints);
  }
  if (lazy_expiry) request.keyspace->RecordExpiredReads(nullptr);
  if (!(name == "client" && args.size() > 1 && AsciiLower(args[1]) == "caching")) {
    client.tracking_caching = false;  // CLIENT CACHING holds for the next command
  }
  const auto ended = std::chrono::steady_clock::now();
  if (!client.in_script) client.last_command_end = ended;
  const auto usec = std::chrono::duration_cast<std::chrono::microseconds>(ended - started);
  // A command that blocked is counted once, by the run that replies, as
  // Redis counts it when it unblocks.
  // (A container command's, by its subcommand, checked above: "config|set".)
  CommandStats& stats = WithSubcommands()[it->second]
                            ? server.stats.subcommand(FullCommandName(args))
                            : server.stats.command(it->second);
  if (!client.block) {
    stats.Record(static_cast<uint64_t>(usec.count()), server.stats.latency_tracking());
  }
  if (out->size() > reply_start && (*out)[reply_start] == '-') {
    stats.failed.fetch_add(1, std::memory_order_relaxed);
    const size_t end = out->find('\r', reply_start);
    server.stats.RecordError(out->substr(reply_start + 1, end - reply_start - 1));
  }

  // The slow log and the latency monitor: commands a client sent, once
  // each (a blocked one when it replies), not EXEC (flagged skip_slowlog:
  // the commands it ran are, each).
  if (!client.in_script && !client.block && name != "exec") {
    // (No clock read while the monitor is off: its one load.)
    if (server.latency.threshold_ms() != 0) {
      static const std::vector<bool> fast = FlaggedByIndex("fast");
      server.latency.Sample(fast[it->second] ? "fast-command" : "command", usec.count() / 1000,
                            Keyspace::NowMs() / 1000);
    }
    if (server.slowlog.IsSlow(usec.count())) {
      server.slowlog.Add(usec.count(), args, client.address, client.name);
    }
  }
}
}  // namespace

}  // namespace teksdb::server
