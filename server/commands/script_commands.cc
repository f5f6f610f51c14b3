// Scripting commands: EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT (LOAD EXISTS
// FLUSH KILL), FCALL FCALL_RO and FUNCTION (LOAD DELETE FLUSH LIST DUMP
// RESTORE STATS KILL), as Redis 7.0 answers them; the Lua side is
// script_engine.h. A script or function runs holding the whole keyspace
// (every gate, Keyspace::BeginTransaction), or, inside EXEC, within EXEC's
// (which takes the whole keyspace when one is queued: command_info.h).
// Every change to the function libraries is saved in the database
// (function_store.h) before it is acknowledged.
#include <algorithm>
#include <functional>

#include "ascii_case.h"
#include "commands.h"
#include "function_store.h"
#include "glob_match.h"
#include "rdb_payload.h"
#include "resp_reply.h"
#include "script_engine.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// The numkeys argument of EVAL and FCALL (`not_integer`: the error for
// one that is not a number): false, having replied, if it is bad.
bool ParseNumKeys(Request& r, const char* not_integer, int64_t* numkeys) {
  if (!ParseStrictInt64(r.args[2], numkeys)) {
    reply::Error(r.out, not_integer);
    return false;
  }
  if (*numkeys > static_cast<int64_t>(r.args.size()) - 3) {
    reply::Error(r.out, "ERR Number of keys can't be greater than number of args");
    return false;
  }
  if (*numkeys < 0) {
    reply::Error(r.out, "ERR Number of keys can't be negative");
    return false;
  }
  return true;
}

// Runs `run` (a script or function, its KEYS and ARGV from args[3..])
// holding the whole keyspace.
void RunHoldingKeyspace(
    Request& r, int64_t numkeys,
    const std::function<void(const std::vector<std::string>&, const std::vector<std::string>&)>& run) {
  const std::vector<std::string> keys(r.args.begin() + 3, r.args.begin() + 3 + numkeys);
  const std::vector<std::string> argv(r.args.begin() + 3 + numkeys, r.args.end());
  const bool within_exec = r.keyspace->InTransaction();
  if (!within_exec) r.keyspace->BeginTransaction({}, /*whole_keyspace=*/true);
  r.client.may_block = false;
  run(keys, argv);
  r.client.may_block = !within_exec;
  if (r.server.scripts->running().last_run_stopped_for_shutdown()) {
    // SHUTDOWN NOSAVE or a signal stopped it: none of its writes (nor of
    // the EXEC around it, nor of what follows in the pipeline) reach the
    // database, and the replies say so.
    r.keyspace->AbandonGroup("ERR the server is shutting down: the script was stopped and its writes dropped");
    r.client.close_after_reply = true;
  }
  if (!within_exec) r.keyspace->EndTransaction();
}

// EVAL / EVALSHA script-or-sha numkeys key... arg...
void Eval(Request& r, bool by_sha, bool read_only) {
  int64_t numkeys;
  if (!ParseNumKeys(r, kNotInteger, &numkeys)) return;
  ScriptEngine& engine = *r.server.scripts;
  std::string sha;
  if (by_sha) {
    sha = AsciiLower(r.args[1]);
    if (sha.size() != 40 || !engine.Exists(sha)) {
      return reply::Error(r.out, "NOSCRIPT No matching script. Please use EVAL.");
    }
  } else {
    std::string error;
    if (!engine.Load(r.args[1], &sha, &error)) return reply::Error(r.out, error);
  }
  RunHoldingKeyspace(r, numkeys, [&](const auto& keys, const auto& argv) {
    r.client.script_keys = &keys;
    engine.Run(r, sha, keys, argv, read_only);
    r.client.script_keys = nullptr;
  });
}
void EvalCommand(Request& r) { Eval(r, false, false); }
void EvalSha(Request& r) { Eval(r, true, false); }
void EvalRo(Request& r) { Eval(r, false, true); }
void EvalShaRo(Request& r) { Eval(r, true, true); }

// SCRIPT KILL (`function_kill` false) and FUNCTION KILL.
void ReplyKill(Request& r, bool function_kill) {
  RunningScript& running = r.server.scripts->running();
  switch (running.Kill(function_kill)) {
    case RunningScript::KillResult::kKilled:
      return reply::Ok(r.out);
    case RunningScript::KillResult::kNotBusy:
      return reply::Error(r.out, "NOTBUSY No scripts in execution right now.");
    case RunningScript::KillResult::kUnkillable:
      return reply::Error(r.out,
                          "UNKILLABLE Sorry the script already executed write commands against the "
                          "dataset. You can either wait the script termination or kill the server in "
                          "a hard way using the SHUTDOWN NOSAVE command.");
    case RunningScript::KillResult::kOtherKind:
      return reply::Error(r.out, running.BusyError());
  }
}

void ScriptHelp(Request& r) {
  static const char* const kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help."};
  reply::StatusLines(r.out, kLines);
}

// SCRIPT LOAD body | EXISTS sha... | FLUSH [ASYNC|SYNC] | KILL | HELP
// (SubcommandError has checked the subcommand and its arity.)
void Script(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return ScriptHelp(r);
  ScriptEngine& engine = *r.server.scripts;
  if (sub == "load") {
    std::string sha, error;
    return engine.Load(r.args[2], &sha, &error) ? reply::Bulk(r.out, sha)
                                                : reply::Error(r.out, error);
  }
  if (sub == "exists") {
    reply::ArrayHeader(r.out, r.args.size() - 2);
    for (size_t i = 2; i < r.args.size(); ++i) reply::Integer(r.out, engine.Exists(r.args[i]) ? 1 : 0);
    return;
  }
  if (sub == "flush") {
    if (r.args.size() == 3 && AsciiLower(r.args[2]) != "sync" && AsciiLower(r.args[2]) != "async") {
      return reply::Error(r.out, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
    engine.Flush();
    return reply::Ok(r.out);
  }
  ReplyKill(r, /*function_kill=*/false);
}

// FCALL / FCALL_RO function numkeys key... arg...
void FCall(Request& r, bool read_only) {
  ScriptEngine& engine = *r.server.scripts;
  ScriptEngine::FunctionInfo info;
  if (!engine.FindFunction(r.args[1], &info)) return reply::Error(r.out, "ERR Function not found");
  int64_t numkeys;
  if (!ParseNumKeys(r, "ERR Bad number of keys provided", &numkeys)) return;
  RunHoldingKeyspace(r, numkeys, [&](const auto& keys, const auto& argv) {
    r.client.script_keys = &keys;
    engine.CallFunction(r, r.args[1], keys, argv, read_only);
    r.client.script_keys = nullptr;
  });
}
void FCallCommand(Request& r) { FCall(r, false); }
void FCallRo(Request& r) { FCall(r, true); }

// Saves the libraries after a change; false, having replied, if that
// failed (the change then stands in memory only until a restart).
bool SaveLibraries(Request& r) {
  const ROCKSDB_NAMESPACE::Status s = function_store::Save(r.server.db, r.server.scripts->Libraries());
  if (s.ok()) return true;
  ReplyStorageError(r, s);
  return false;
}

void FunctionLoad(Request& r) {
  bool replace = false;
  for (size_t i = 2; i + 1 < r.args.size(); ++i) {
    if (AsciiLower(r.args[i]) != "replace") {
      return reply::Error(r.out, "ERR Unknown option given: " + r.args[i]);
    }
    replace = true;
  }
  std::string name, error;
  const auto changing = r.server.scripts->LockLibraryChanges();
  if (!r.server.scripts->LoadLibrary(r.args.back(), replace, &name, &error)) {
    return reply::Error(r.out, error);
  }
  if (SaveLibraries(r)) reply::Bulk(r.out, name);
}

// FUNCTION LIST [WITHCODE] [LIBRARYNAME pattern]
void FunctionList(Request& r) {
  bool with_code = false, named = false;
  std::string pattern;
  for (size_t i = 2; i < r.args.size(); ++i) {
    const std::string arg = AsciiLower(r.args[i]);
    if (arg == "withcode" && !with_code) {
      with_code = true;
    } else if (arg == "libraryname" && !named) {
      if (i + 1 == r.args.size()) return reply::Error(r.out, "ERR library name argument was not given");
      named = true;
      pattern = AsciiLower(r.args[++i]);
    } else {
      return reply::Error(r.out, "ERR Unknown argument " + r.args[i]);
    }
  }
  std::vector<ScriptEngine::LibraryInfo> libraries = r.server.scripts->Libraries();
  if (named) {
    libraries.erase(std::remove_if(libraries.begin(), libraries.end(),
                                   [&](const ScriptEngine::LibraryInfo& l) {
                                     return !GlobMatch(pattern, AsciiLower(l.name));
                                   }),
                    libraries.end());
  }
  const int protocol = r.protocol();
  reply::ArrayHeader(r.out, libraries.size());
  for (const ScriptEngine::LibraryInfo& library : libraries) {
    reply::MapHeader(r.out, protocol, with_code ? 4 : 3);
    reply::Bulk(r.out, "library_name");
    reply::Bulk(r.out, library.name);
    reply::Bulk(r.out, "engine");
    reply::Bulk(r.out, "LUA");
    reply::Bulk(r.out, "functions");
    reply::ArrayHeader(r.out, library.functions.size());
    for (const ScriptEngine::FunctionInfo& f : library.functions) {
      reply::MapHeader(r.out, protocol, 3);
      reply::Bulk(r.out, "name");
      reply::Bulk(r.out, f.name);
      reply::Bulk(r.out, "description");
      f.has_description ? reply::Bulk(r.out, f.description) : reply::Null(r.out, protocol);
      reply::Bulk(r.out, "flags");
      reply::SetHeader(r.out, protocol, f.flags.size());
      for (const std::string& flag : f.flags) reply::Simple(r.out, flag);
    }
    if (with_code) {
      reply::Bulk(r.out, "library_code");
      reply::Bulk(r.out, library.code);
    }
  }
}

// Redis 7.0's FUNCTION DUMP payload: each library as the RDB opcode
// FUNCTION2 and its code, then the footer.
constexpr uint8_t kRdbOpcodeFunction2 = 245;
constexpr uint8_t kRdbOpcodeFunctionPreGa = 246;

void FunctionDump(Request& r) {
  std::string payload;
  for (const ScriptEngine::LibraryInfo& library : r.server.scripts->Libraries()) {
    payload.push_back(static_cast<char>(kRdbOpcodeFunction2));
    rdb_payload::AppendString(&payload, library.code);
  }
  rdb_payload::AppendFooter(&payload);
  reply::Bulk(r.out, payload);
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]: all of it or nothing.
void FunctionRestore(Request& r) {
  if (r.args.size() > 4) {
    return reply::Error(r.out, "ERR unknown subcommand or wrong number of arguments for '" + r.args[1] +
                                   "'. Try FUNCTION HELP.");
  }
  const std::string policy = r.args.size() == 4 ? AsciiLower(r.args[3]) : "append";
  if (policy != "flush" && policy != "append" && policy != "replace") {
    return reply::Error(r.out, "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
  }
  std::string_view body;
  if (!rdb_payload::CheckFooter(r.args[2], &body,
                                !r.server.skip_checksum_validation.load(std::memory_order_relaxed))) {
    return reply::Error(r.out, "ERR DUMP payload version or checksum are wrong");
  }
  std::vector<std::string> codes;
  for (size_t pos = 0; pos < body.size();) {
    const uint8_t type = static_cast<uint8_t>(body[pos++]);
    if (type == kRdbOpcodeFunctionPreGa) return reply::Error(r.out, "ERR Pre-GA function format not supported");
    if (type != kRdbOpcodeFunction2) return reply::Error(r.out, "ERR given type is not a function");
    std::string code;
    if (!rdb_payload::ReadString(body, &pos, &code)) {
      return reply::Error(r.out, "ERR failed loading the given functions payload");
    }
    codes.push_back(std::move(code));
  }
  ScriptEngine& engine = *r.server.scripts;
  const auto changing = engine.LockLibraryChanges();
  const std::vector<ScriptEngine::LibraryInfo> before = engine.Libraries();
  if (policy == "flush") engine.FlushLibraries();
  for (const std::string& code : codes) {
    std::string name, error;
    // (APPEND onto a library of the same name: Redis's restore words.)
    if (policy == "append" && ScriptEngine::LibraryName(code, &name, &error) &&
        std::any_of(before.begin(), before.end(),
                    [&](const ScriptEngine::LibraryInfo& library) { return library.name == name; })) {
      error = "ERR Library " + name + " already exists";
    } else if (engine.LoadLibrary(code, policy == "replace", &name, &error)) {
      continue;
    }
    engine.FlushLibraries();  // back to what was there
    for (const ScriptEngine::LibraryInfo& library : before) {
      std::string ignored_name, ignored_error;
      engine.LoadLibrary(library.code, false, &ignored_name, &ignored_error);
    }
    return reply::Error(r.out, error);
  }
  if (SaveLibraries(r)) reply::Ok(r.out);
}

// FUNCTION STATS: the running script (a function's), and the counts.
void FunctionStats(Request& r) {
  RunningScript& running = r.server.scripts->running();
  if (running.RunsEval()) return reply::Error(r.out, RunningScript::kBusyError);
  const int protocol = r.protocol();
  reply::MapHeader(r.out, protocol, 2);
  reply::Bulk(r.out, "running_script");
  RunningScript::Snapshot snapshot;
  if (!running.Running(&snapshot)) {
    reply::Null(r.out, protocol);
  } else {
    reply::MapHeader(r.out, protocol, 3);
    reply::Bulk(r.out, "name");
    reply::Bulk(r.out, snapshot.name);
    reply::Bulk(r.out, "command");
    reply::ArrayHeader(r.out, snapshot.command.size());
    for (const std::string& arg : snapshot.command) reply::Bulk(r.out, arg);
    reply::Bulk(r.out, "duration_ms");
    reply::Integer(r.out, snapshot.duration_ms);
  }
  reply::Bulk(r.out, "engines");
  reply::MapHeader(r.out, protocol, 1);
  reply::Bulk(r.out, "LUA");
  reply::MapHeader(r.out, protocol, 2);
  reply::Bulk(r.out, "libraries_count");
  reply::Integer(r.out, static_cast<int64_t>(r.server.scripts->library_count()));
  reply::Bulk(r.out, "functions_count");
  reply::Integer(r.out, static_cast<int64_t>(r.server.scripts->function_count()));
}

void FunctionHelp(Request& r) {
  static const char* const kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using "
      "LIBRARYNAME argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be "
      "restored using FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to "
      "give a restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On "
      "collision, abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On "
      "collision, replace the old",
      "      libraries with the new libraries (notice that even on this option there "
      "is a chance of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// FUNCTION LOAD | DELETE | FLUSH | LIST | DUMP | RESTORE | STATS | KILL | HELP
// (SubcommandError has checked the subcommand and its arity).
void Function(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return FunctionHelp(r);
  ScriptEngine& engine = *r.server.scripts;
  if (sub == "load") return FunctionLoad(r);
  if (sub == "list") return FunctionList(r);
  if (sub == "dump") return FunctionDump(r);
  if (sub == "restore") return FunctionRestore(r);
  if (sub == "stats") return FunctionStats(r);
  if (sub == "kill") return ReplyKill(r, /*function_kill=*/true);
  const auto changing = engine.LockLibraryChanges();
  if (sub == "delete") {
    if (!engine.DeleteLibrary(r.args[2])) return reply::Error(r.out, "ERR Library not found");
    if (SaveLibraries(r)) reply::Ok(r.out);
    return;
  }
  // flush [ASYNC|SYNC]
  if (r.args.size() > 3) {
    return reply::Error(r.out, "ERR unknown subcommand or wrong number of arguments for '" + r.args[1] +
                                   "'. Try FUNCTION HELP.");
  }
  if (r.args.size() == 3 && AsciiLower(r.args[2]) != "sync" && AsciiLower(r.args[2]) != "async") {
    return reply::Error(r.out, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
  }
  engine.FlushLibraries();
  if (SaveLibraries(r)) reply::Ok(r.out);
}

}  // namespace

void AddScriptCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"eval", -3, EvalCommand},  {"evalsha", -3, EvalSha},     {"eval_ro", -3, EvalRo},
      {"evalsha_ro", -3, EvalShaRo}, {"script", -2, Script},
      {"fcall", -3, FCallCommand},  {"fcall_ro", -3, FCallRo}, {"function", -2, Function},
  });
}

}  // namespace teksdb::server
