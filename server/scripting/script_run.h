// One run of a script (EVAL) or a function (FCALL) in one of the engine's
// Lua states, as Redis 7.0's script_lua.c runs them: the Context that
// redis.* and the hook read, the redis.* API itself (redis.call converts
// through script_replies.h), the hook that makes a running script busy or
// stops it (running_script.h), and the reply of its result or error
// ("... script: NAME, on @user_script:LINE.").
//
// Thread safety: as the lua_State (the engine's mutex).
#pragma once

#include <string>
#include <string_view>
#include <vector>

struct lua_State;

namespace teksdb::server {

class CommandRunner;
struct Request;
class RunningScript;

namespace script_run {

struct Context {
  Request* request;
  const CommandRunner* commands;  // what redis.call runs
  bool read_only;            // EVAL_RO, FCALL_RO, or a no-writes script
  RunningScript* running;
  bool function;             // FCALL: KEYS and ARGV are its two arguments
  const std::string* name;   // the sha, or the function's name (errors)
  const std::string* key;    // its key in the scripts or functions table
  const std::vector<std::string>* keys;
  const std::vector<std::string>* argv;
  int resp = 2;              // redis.setresp
  int error_line = 1;        // where the script failed (Redis names it)
  // maxmemory: memory was past it when the run began, and the script may
  // not ignore that (no allow-oom flag): until its first write, a command
  // that may grow memory is refused, as Redis refuses it.
  bool oom_at_start = false;
  bool wrote = false;
};

// Creates, in a new state, the registry tables of compiled scripts (sha ->
// function) and of registered functions (lower-case name -> callback).
void CreateTables(lua_State* L);
// Pushes one of them.
void PushScripts(lua_State* L);
void PushFunctions(lua_State* L);

// Sets redis (the API of a run) and Redis's pcall as globals: what
// script_sandbox::Build's add_globals adds.
void AddRedisApi(lua_State* L);
// Pushes the table of redis.* constants and logging that a library's
// load-time code also sees (redis.log, LOG_*, REDIS_VERSION(_NUM)).
void PushLoadTimeApi(lua_State* L);

// Raises Redis's error table for `message` ({err = "ERR message"}).
int RaiseError(lua_State* L, std::string_view message);

// The lua_cpcall entry of a run: its Context is the userdata argument.
// Runs the script or function under the hook and replies its result or
// error to the request.
int RunProtected(lua_State* L);
// After a run: no Context any more (redis.call then fails as outside a run).
void EndRun(lua_State* L);

}  // namespace script_run
}  // namespace teksdb::server
