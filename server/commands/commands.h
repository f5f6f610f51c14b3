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

#include "request.h"
#include "server_state.h"

namespace teksdb::server {

// How many commands the table has (ServerStats keeps one entry each).
size_t CommandCount();

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

// A blocked command that ended without running again (at its timeout, its
// null reply, or by CLIENT UNBLOCK ... ERROR, `error` its reply without the
// '-'; empty: none): counted once, as Redis's updateStatsOnUnblock counts
// it (its calls, failed_calls, and the error in errorstats).
void CountBlockedEnd(ServerState& server, const std::vector<std::string>& args,
                     const std::string& error);

// Lazy expiry: deletes the expired keys the connection's commands read
// since the last call (ClientState::expired_reads), if still expired, as
// the sweep does (counted, "expired" events). REQUIRES: the connection's
// group is written (it holds no key's lock).
void ReclaimExpiredReads(ServerState& server, ClientState& client);

// A connection's CLIENT LIST line ("id=... addr=...\n"), as Redis logs
// a client it closes; `running_request_bytes`, the request it runs now
// (its own CLIENT LIST), counted in qbuf as Redis's buffer still holds it.
std::string ClientListLine(const ClientRegistry::Info& client, int64_t running_request_bytes = 0);

// The handlers of each file, for the table.
void AddStringCommands(std::vector<Command>* table);
void AddBitmapCommands(std::vector<Command>* table);
void AddBitFieldCommands(std::vector<Command>* table);
void AddSortCommands(std::vector<Command>* table);
void AddHyperLogLogCommands(std::vector<Command>* table);
void AddKeyCommands(std::vector<Command>* table);
void AddHashCommands(std::vector<Command>* table);
void AddHashFieldExpireCommands(std::vector<Command>* table);
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
void AddDumpRestoreCommands(std::vector<Command>* table);
void AddMigrateCommand(std::vector<Command>* table);
void AddStreamCommands(std::vector<Command>* table);
void AddStreamReadCommands(std::vector<Command>* table);
void AddStreamGroupCommands(std::vector<Command>* table);
void AddStreamInfoCommand(std::vector<Command>* table);
void AddDatabaseCommands(std::vector<Command>* table);
void AddInfoCommand(std::vector<Command>* table);
void AddDebugCommand(std::vector<Command>* table);
void AddGeoCommands(std::vector<Command>* table);
void AddGeoSearchCommands(std::vector<Command>* table);
void AddClientCommands(std::vector<Command>* table);
void AddIntrospectionCommands(std::vector<Command>* table);
void AddModuleCommand(std::vector<Command>* table);
void AddClusterCommands(std::vector<Command>* table);
void AddLcsCommand(std::vector<Command>* table);
void AddReplicationCommands(std::vector<Command>* table);
void AddAclCommand(std::vector<Command>* table);

// The key WAIT and writes paused by FAILOVER block on
// (replication_commands.cc): touching it makes them look again.
std::string ReplicationWakeKey();

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

}  // namespace teksdb::server
