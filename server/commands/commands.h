// The command table: every command teksdb-server knows, its arity (Redis's
// convention: n exactly n arguments counting the name, -n at least n) and
// its handler, and Execute, which checks a request against the table and
// runs it, replying exactly what Redis replies (unknown command, wrong
// arity, NOAUTH, WRONGTYPE, ...).
//
// Handlers live with their data type (string_commands.cc,
// hash_commands.cc, set_commands.cc, list_commands.cc, zset_commands.cc,
// key_commands.cc, server_commands.cc)
// and register through the Add*Commands functions.
//
// Thread safety: Execute may run on any number of I/O threads at once, one
// request per connection at a time; the handlers' atomicity comes from
// Keyspace's key locks.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client_registry.h"
#include "keyspace.h"
#include "pubsub.h"
#include "scan_cursors.h"
#include "script_engine.h"
#include "slow_log.h"
#include "server_stats.h"
#include "watched_keys.h"

namespace teksdb::server {

class ExpirySweeper;
class StaleMemberFilterFactory;

// How many commands the table has (ServerStats keeps one entry each).
size_t CommandCount();

// What the whole server shares.
struct ServerState {
  Keyspace* keyspace = nullptr;
  ROCKSDB_NAMESPACE::DB* db = nullptr;
  std::string requirepass;   // empty: no AUTH needed
  std::string memtable;      // the memtable factory's Name(), for INFO
  int64_t started_ms = 0;
  std::atomic<uint64_t> commands{0};
  std::atomic<uint64_t> connections{0};
  std::atomic<int64_t> connected{0};
  ServerStats stats{CommandCount()};
  ScanCursors cursors;                      // SCAN, HSCAN
  PubSub pubsub;                            // SUBSCRIBE, PUBLISH
  ScriptEngine scripts;                     // EVAL, SCRIPT
  SlowLog slowlog;                          // SLOWLOG
  ClientRegistry clients;                   // CLIENT LIST, KILL
  std::atomic<int64_t> last_save_s{0};      // LASTSAVE (set at start and by SAVE)
  const ExpirySweeper* sweeper = nullptr;   // for INFO's expired_keys
  const StaleMemberFilterFactory* stale_filter = nullptr;  // INFO's stale_records_removed
  std::function<void()> shutdown;  // SHUTDOWN: stops the server
};

// One connection's state.
struct ClientState {
  uint64_t id = 0;  // HELLO's "id": the connection's number since start
  std::string address;  // the peer's "ip:port" (SLOWLOG)
  // What CLIENT LIST shows of this connection (null without one).
  std::shared_ptr<ClientRegistry::Info> info;
  bool authenticated = false;
  int protocol = 2;  // RESP2 until HELLO 3
  // A script of this client is calling the command (redis.call): no
  // Pub/Sub context or busy check, no slow log or CLIENT LIST entry.
  bool in_script = false;
  std::string name;
  bool close_after_reply = false;  // QUIT, SHUTDOWN, protocol errors
  // The connection's view of the keyspace (its pipeline's write group,
  // keyspace.h); null: the server's own.
  Keyspace* keyspace = nullptr;
  // MULTI (transaction_commands.cc): commands queued for EXEC, and whether
  // one was refused while queuing (EXEC then answers EXECABORT).
  bool in_multi = false;
  bool multi_refused = false;
  std::vector<std::vector<std::string>> queued;
  // WATCH's keys; the connection unwatches them when it closes.
  WatchedKeys::Watcher watcher;
  // Pub/Sub (pubsub_commands.cc): what the connection subscribed to, and
  // the connection as a subscriber (expired for requests without one).
  // (Patterns in the order they were subscribed: Redis unsubscribes them
  // all in that order.)
  std::set<std::string> channels, shard_channels;
  std::vector<std::string> patterns;
  std::weak_ptr<Subscriber> subscriber;
  size_t subscriptions() const {
    return channels.size() + patterns.size() + shard_channels.size();
  }
  // Blocking commands (blocking_commands.cc). One that found nothing to
  // serve sets `block`: the connection waits for a write of one of its
  // keys (then runs the command again, `block_rerun` set) or for the
  // deadline (then replies a null array). Inside EXEC `may_block` is
  // false: they answer at once.
  struct Block {
    std::vector<std::string> keys;
    int64_t deadline_ms = 0;  // 0: none
  };
  std::optional<Block> block;
  bool block_rerun = false;
  bool may_block = true;
};

struct Request {
  ServerState& server;
  ClientState& client;
  const std::vector<std::string>& args;
  std::string* out;
  Keyspace* keyspace;  // what handlers read and write through (ClientState's)
  // Set by a read that found its key's version replaced under it
  // (Collection::Settled): Execute drops what the handler replied and runs
  // it again.
  bool retry = false;

  int protocol() const { return client.protocol; }
};

using Handler = void (*)(Request&);

struct Command {
  const char* name;  // lower case
  int arity;
  Handler handler;
};

// The table, in the order ServerStats numbers its commands.
const std::vector<Command>& CommandTable();
// The command named `lower_case_name`, or null.
const Command* LookupCommand(const std::string& lower_case_name);
// Whether argc (the name included) suits the command's arity.
inline bool ArityFits(const Command& command, size_t argc) {
  const int n = static_cast<int>(argc);
  return command.arity > 0 ? n == command.arity : n >= -command.arity;
}

// Runs one request, appending its reply to `out`, and records its time in
// server.stats.
void Execute(ServerState& server, ClientState& client, const std::vector<std::string>& args,
             std::string* out);

// The handlers of each file, for the table.
void AddStringCommands(std::vector<Command>* table);
void AddBitmapCommands(std::vector<Command>* table);
void AddKeyCommands(std::vector<Command>* table);
void AddHashCommands(std::vector<Command>* table);
void AddSetCommands(std::vector<Command>* table);
void AddSetAlgebraCommands(std::vector<Command>* table);
void AddListCommands(std::vector<Command>* table);
void AddListEditCommands(std::vector<Command>* table);
void AddListMoveCommands(std::vector<Command>* table);
void AddZSetCommands(std::vector<Command>* table);
void AddZSetRangeCommands(std::vector<Command>* table);
void AddZSetPopCommands(std::vector<Command>* table);
void AddZSetAlgebraCommands(std::vector<Command>* table);
void AddScanCommands(std::vector<Command>* table);
void AddServerCommands(std::vector<Command>* table);
void AddTransactionCommands(std::vector<Command>* table);
void AddPubSubCommands(std::vector<Command>* table);
void AddScriptCommands(std::vector<Command>* table);
void AddPersistenceCommands(std::vector<Command>* table);
void AddCopyCommands(std::vector<Command>* table);
void AddClientCommands(std::vector<Command>* table);
void AddIntrospectionCommands(std::vector<Command>* table);
void AddLcsCommand(std::vector<Command>* table);

// In RESP2, a connection with subscriptions runs only the Pub/Sub commands,
// PING, QUIT and RESET: Redis's error for any other (`full_name` as
// COMMAND names it: "client|setname"), or empty.
std::string PubSubRefusal(const ClientState& client, const std::string& full_name);
// Drops every subscription of the client (RESET).
void UnsubscribeAll(ServerState& server, ClientState& client);

// MULTI's queuing (transaction_commands.cc): true if `command` is queued
// rather than run (the client is in MULTI and it is not one of the
// commands that act at once), having replied QUEUED.
bool QueueInMulti(ClientState& client, const Command& command,
                  const std::vector<std::string>& args, std::string* out);
// Replies `error` for a command refused before it ran (unknown, wrong
// arity, NOAUTH); inside MULTI it makes EXEC fail, and a refused EXEC
// answers EXECABORT (ending the transaction, if any), as in Redis.
void ReplyRefused(ClientState& client, const std::string& lower_case_name,
                  const std::string& error, std::string* out);

// A client's name and protocol, also as CLIENT LIST shows them.
inline void SetClientName(ClientState& client, const std::string& name) {
  client.name = name;
  if (client.info) client.info->set_name(name);
}
inline void SetClientProtocol(ClientState& client, int protocol) {
  client.protocol = protocol;
  if (client.info) client.info->protocol.store(protocol, std::memory_order_relaxed);
}

// Replies shared by handlers.
void ReplyStorageError(Request& r, const ROCKSDB_NAMESPACE::Status& s);
// For reads without the key's lock that missed a member, or met fewer than
// the meta record's count: true if `key` still holds collection `version`;
// false, having replied a storage error or set r.retry (the version was
// replaced, and a compaction may have removed its members), if not.
bool StillHolds(Request& r, const std::string& key, uint64_t version);
constexpr const char* kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr const char* kNotInteger = "ERR value is not an integer or out of range";
constexpr const char* kSyntaxError = "ERR syntax error";

}  // namespace teksdb::server
