// CommandInfo: what COMMAND tells clients of each command (Redis 7.0's
// flags, key positions and ACL categories, as Redis reports them for the
// same command), and where a request's keys are, which EXEC uses to lock
// every key a transaction touches before it runs.
//
// Key positions follow Redis's COMMAND convention: the first key's index,
// the last's (negative: from the end, -1 the last argument) and the step
// between keys (MSET: 2); commands whose keys follow a count (SINTERCARD 2
// a b) name the count's index. Commands that read or write every key
// (KEYS, SCAN, DBSIZE, FLUSHALL, ...) are marked whole_keyspace.
//
// Thread safety: immutable tables.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace teksdb::server {

struct Request;

struct CommandInfo {
  const char* name;
  const char* flags;  // space separated, as COMMAND lists them
  int first_key;
  int last_key;
  int key_step;
  const char* acl_categories;  // space separated
  bool whole_keyspace = false;
  // Commands with a key count among their arguments (SINTERCARD, ZUNION,
  // EVAL, ...; "movablekeys"): its index; the keys follow it.
  int numkeys_index = 0;
};

// The command's info; null for a name the server does not know.
const CommandInfo* FindCommandInfo(std::string_view lower_case_name);
// Whether the command writes: COMMAND's "write" flag, or XGROUP, a
// container whose subcommands but HELP all carry it (Redis flags them, not
// the container).
inline bool Writes(const CommandInfo& info) {
  return std::strstr(info.flags, "write") != nullptr || std::string_view(info.name) == "xgroup";
}
// How many commands the info table describes (one entry per command of
// CommandTable(), tests/server/server_command_table_test.cc checks).
size_t CommandInfoCount();

// Appends the positions in `args` of the request's keys (args[0] a known
// command's name, its arity checked), in Redis's key-spec order; sets
// *whole_keyspace for commands that touch every key.
void AppendRequestKeyPositions(const std::vector<std::string>& args, std::vector<size_t>* keys,
                               bool* whole_keyspace);
// Appends the keys of request `args` (args[0] a known command's name, its
// arity checked) to *keys; sets *whole_keyspace for commands that touch
// every key.
void AppendRequestKeys(const std::vector<std::string>& args, std::vector<std::string>* keys,
                       bool* whole_keyspace);

// The key-spec flags of the command named `lower_case_name` ("memory|usage"
// for a subcommand), Redis 7.0's, one list a spec, in order: the i-th key a
// request names has the i-th spec's flags, the last spec's past them
// (none: no keys; SET's and BITFIELD's vary with the request, as
// RequestKeysWithFlags reads them).
std::vector<std::vector<std::string>> CommandKeySpecs(std::string_view lower_case_name);

// Whether a SET request asks for the old value (a GET option among its
// options, args[3] on: its key is read, not only written).
bool SetReturnsOldValue(const std::vector<std::string>& args);

// A key of a request, at args[position], with its key-spec flags as
// Redis 7.0 gives them ("RW", "access", "update"; COMMAND GETKEYSANDFLAGS).
struct KeyWithFlags {
  size_t position;
  std::vector<std::string> flags;
};
// The request's keys, those of its subcommand too (MEMORY USAGE key, ...),
// with their flags.
std::vector<KeyWithFlags> RequestKeysWithFlags(const std::vector<std::string>& args);

// Whether the command has subcommands (CLIENT, CONFIG, ...).
bool HasSubcommands(const std::string& lower_case_name);

// Whether the request is a subcommand Redis 7.0 flags "admin" (CONFIG GET,
// CLIENT LIST, SLOWLOG GET, ...).
bool IsAdminSubcommand(const std::vector<std::string>& args);
// Whether the request is a subcommand Redis 7.0 flags "denyoom" (FUNCTION
// LOAD and RESTORE, XGROUP CREATE and CREATECONSUMER).
bool IsDenyOomSubcommand(const std::vector<std::string>& args);

// For a command with subcommands (COMMAND, CLIENT, CONFIG): Redis's error
// for an unknown subcommand or a wrong number of arguments for it, which
// Execute replies (refusing the command, inside MULTI too) before the
// handler runs; empty when the request is well formed.
std::string SubcommandError(const std::vector<std::string>& args);

// Redis 7.0's commands flagged may-replicate (its commands/*.json) that
// are not writes: PFCOUNT, PUBLISH, SPUBLISH, EVAL, EVALSHA and FCALL.
// CLIENT PAUSE WRITE holds them (the scripts by their flags), and a
// read-only script may not call them, as in Redis.
bool FlaggedMayReplicate(const std::string& name);

// Redis's addReplySubcommandSyntaxError, for the arguments a handler
// refuses: "ERR unknown subcommand or wrong number of arguments for 'sub'.
// Try CONTAINER HELP."
std::string SubcommandSyntaxError(const std::string& sub, const std::string& container);

// Whether scripts may not run the request's command ("noscript", for the
// command or, as Redis flags them, its subcommands).
bool DeniedInScripts(const std::vector<std::string>& args);

// Whether the request's command runs while a script is busy (Redis's
// "allow_busy": AUTH, HELLO, MULTI, UNWATCH, SHUTDOWN, SCRIPT KILL, ...,
// but not WATCH, which needs the keys' stripes the script holds); the
// others are refused BUSY then (running_script.h).
bool AllowedWhileBusy(const std::vector<std::string>& args);

// The name COMMAND and Redis's errors use: lower case, with the
// subcommand for a command that has them ("client|setname").
std::string FullCommandName(const std::vector<std::string>& args);

// COMMAND, COMMAND COUNT, COMMAND INFO name..., COMMAND LIST, COMMAND
// GETKEYS cmd args..., COMMAND DOCS (an empty map per command: no docs).
void CommandCommand(Request& r);

}  // namespace teksdb::server
