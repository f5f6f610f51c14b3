// The run of script_run.h: its Context, the redis.* API and the hook.
#include "script_run.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <cstring>
#include <exception>
#include <utility>

#include "ascii_case.h"
#include "command_runner.h"
#include "request.h"
#include "resp_reply.h"
#include "running_script.h"
#include "script_engine.h"
#include "script_lua_helpers.h"
#include "script_replies.h"
#include "script_sandbox.h"

namespace teksdb::server::script_run {
namespace {

using script_lua::PushRegistry;

// Registry keys (their addresses).
const char kScripts = 0;    // sha -> compiled function
const char kFunctions = 0;  // lower-case name -> a library's callback
const char kRun = 0;        // the Context of the script running

Context* Current(lua_State* L) {
  PushRegistry(L, &kRun);
  auto* context = static_cast<Context*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return context;
}

// The run's context, or an error naming `function` outside a run.
Context* RunOrRaise(lua_State* L, const char* function) {
  Context* context = Current(L);
  if (context == nullptr) {
    RaiseError(L, std::string(function) + " can only be called inside a script invocation");
  }
  return context;
}

// Every kHookInstructions (and, once the script must stop, at every
// instruction, so that pcall cannot catch the stop for good).
void Hook(lua_State* L, lua_Debug*) {
  Context* context = Current(L);
  if (context == nullptr || !context->running->ShouldStop()) return;
  lua_sethook(L, Hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
  RaiseError(L, context->running->last_run_stopped_for_shutdown() ? RunningScript::kShutdownError
                                                                   : RunningScript::kKilledError);
}

// The `argc` arguments on the stack as a command's (numbers as Redis
// writes them); false if one is neither a string nor a number.
bool ArgumentsOnStack(lua_State* L, int argc, std::vector<std::string>* args) {
  for (int i = 1; i <= argc; ++i) {
    if (lua_type(L, i) == LUA_TNUMBER) {
      args->push_back(script_replies::NumberArgument(lua_tonumber(L, i)));
    } else if (lua_type(L, i) == LUA_TSTRING) {
      size_t len;
      const char* s = lua_tolstring(L, i, &len);
      args->emplace_back(s, len);
    } else {
      return false;
    }
  }
  return true;
}

// Runs the command redis.call or redis.pcall names, pushing its reply (or
// an {err=...} table); true if that is an error.
bool CallInto(lua_State* L) {
  Context* context = RunOrRaise(L, "redis.call/pcall");
  const int argc = lua_gettop(L);
  auto fail = [&](std::string_view message) {
    script_replies::PushErrorTable(L, message);
    return true;
  };
  if (argc == 0) return fail("Please specify at least one argument for this redis lib call");
  std::vector<std::string> args;
  if (!ArgumentsOnStack(L, argc, &args)) {
    return fail("Lua redis lib command arguments must be strings or integers");
  }
  // The arguments are copied: off the stack with them, so that the reply
  // has room however many there were (unpack of 7999, as Redis allows).
  lua_settop(L, 0);
  bool writes = false, may_replicate = false, deny_oom = false;
  Request& r = *context->request;
  if (const std::string refusal =
          context->commands->Refusal(r.server, r.client, args, &writes, &may_replicate, &deny_oom);
      !refusal.empty()) {
    return fail(refusal);
  }
  if (context->read_only && may_replicate) {
    return fail("Write commands are not allowed from read-only scripts.");
  }
  if (context->oom_at_start && deny_oom && !context->wrote) {
    return fail(std::string("-") + MemoryLimit::kError);
  }
  if (writes) context->running->NoteWrite();
  // Scripts see the replies of the protocol they chose (redis.setresp).
  const int protocol = r.client.protocol;
  r.client.protocol = context->resp;
  r.client.in_script = true;
  std::string reply;
  bool failed = false;
  try {
    context->commands->Run(r.server, r.client, args, &reply);
  } catch (const std::exception& e) {  // never through Lua's frames
    reply.clear();
    reply::Error(&reply, std::string("ERR ") + e.what());
    failed = true;
  }
  r.client.in_script = false;
  r.client.protocol = protocol;
  size_t pos = 0;
  bool error = false;
  script_replies::PushReply(L, reply, &pos, &error);
  if (writes && !error && !failed) context->wrote = true;  // maxmemory's "no write yet"
  return error || failed;
}

int RedisCall(lua_State* L) { return CallInto(L) ? lua_error(L) : 1; }
int RedisPCall(lua_State* L) {
  CallInto(L);
  return 1;
}

// The one string argument of redis.error_reply and status_reply; false,
// having pushed Redis's error table (returned, not raised), otherwise.
bool SingleString(lua_State* L, std::string_view* text) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    script_replies::PushErrorTable(L, "wrong number or type of arguments");
    return false;
  }
  size_t len;
  const char* s = lua_tolstring(L, 1, &len);
  *text = std::string_view(s, len);
  return true;
}
int RedisErrorReply(lua_State* L) {
  std::string_view error;
  if (!SingleString(L, &error)) return 1;
  script_replies::PushErrorTable(L, !error.empty() && error[0] == '-' ? std::string(error)
                                                                       : "-" + std::string(error));
  return 1;
}
int RedisStatusReply(lua_State* L) {
  std::string_view status;
  if (SingleString(L, &status)) script_replies::PushSingleFieldTable(L, "ok", status);
  return 1;
}
int RedisSha1Hex(lua_State* L) {
  if (lua_gettop(L) != 1) return RaiseError(L, "wrong number of arguments");
  size_t len = 0;
  const char* s = lua_tolstring(L, 1, &len);
  const std::string hex = ScriptEngine::Sha1Hex(s == nullptr ? std::string() : std::string(s, len));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}
// redis.log(level, message...): checked as Redis checks it; scripts' logs
// are dropped.
int RedisLog(lua_State* L) {
  if (lua_gettop(L) < 2) return RaiseError(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return RaiseError(L, "First argument must be a number (log level).");
  const lua_Number level = lua_tonumber(L, 1);
  if (level < 0 || level > 3) return RaiseError(L, "Invalid debug level.");
  return 0;
}
int RedisSetResp(lua_State* L) {
  Context* context = RunOrRaise(L, "redis.setresp");
  if (lua_gettop(L) != 1) return RaiseError(L, "redis.setresp() requires one argument.");
  const int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) return RaiseError(L, "RESP version must be 2 or 3.");
  context->resp = resp;
  return 0;
}
// redis.set_repl(flags): checked as Redis checks it. Every write of a
// script reaches the database (and so any replica) as its effects.
int RedisSetRepl(lua_State* L) {
  RunOrRaise(L, "redis.set_repl");
  if (lua_gettop(L) != 1) return RaiseError(L, "redis.set_repl() requires two arguments.");
  const int flags = static_cast<int>(lua_tonumber(L, 1));
  if ((flags & ~3) != 0) {
    return RaiseError(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  return 0;
}
int RedisReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}
int RedisBreakpoint(lua_State* L) {
  lua_pushboolean(L, 0);  // no debugger
  return 1;
}
int RedisDebug(lua_State*) { return 0; }
// redis.acl_check_cmd(command, args...): whether the script's caller may
// run the command.
int RedisAclCheckCmd(lua_State* L) {
  const Context* context = RunOrRaise(L, "redis.acl_check_cmd");
  const int argc = lua_gettop(L);
  if (argc == 0) return RaiseError(L, "Please specify at least one argument for this redis lib call");
  std::vector<std::string> args;
  if (!ArgumentsOnStack(L, argc, &args)) {
    return RaiseError(L, "Lua redis lib command arguments must be strings or integers");
  }
  bool known = false;
  const bool allowed =
      context->commands->AclAllows(context->request->server, context->request->client, args, &known);
  if (!known) return RaiseError(L, "Invalid command passed to redis.acl_check_cmd()");
  lua_pushboolean(L, allowed ? 1 : 0);
  return 1;
}

// pcall as Redis replaces it: an error table caught is returned as its
// err string.
int RedisPcallBuiltin(lua_State* L) {
  luaL_checkany(L, 1);
  const int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (status == 0) {
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    return lua_gettop(L);
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  if (const char* message = script_lua::ErrorTableMessage(L)) {
    lua_pushstring(L, message);
    lua_remove(L, -2);
  }
  return 2;
}

// Sets the constants and redis.log on the table on top.
void AddConstants(lua_State* L) {
  lua_pushcfunction(L, RedisLog);
  lua_setfield(L, -2, "log");
  const std::pair<const char*, int> constants[] = {
      {"LOG_DEBUG", 0}, {"LOG_VERBOSE", 1}, {"LOG_NOTICE", 2}, {"LOG_WARNING", 3},
      {"REDIS_VERSION_NUM", (7 << 16) | (0 << 8) | 15}};
  for (const auto& [name, value] : constants) {
    lua_pushinteger(L, value);
    lua_setfield(L, -2, name);
  }
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
}

// lua_pcall's message handler: notes the line of the script that failed.
int NoteErrorLine(lua_State* L) {
  lua_Debug frame;
  for (int level = 1; lua_getstack(L, level, &frame) != 0; ++level) {
    lua_getinfo(L, "l", &frame);
    if (frame.currentline > 0) {
      Current(L)->error_line = frame.currentline;
      break;
    }
  }
  return 1;  // the error as it was
}

// The script's result (on top of the stack after a run with `status`) as
// the reply, or its error, as Redis 7.0 words them: the error (a raised
// {err=...} table's, or "ERR" and Lua's message), then " script: NAME, on
// @user_script:LINE." (@user_function for a function).
void ReplyResult(lua_State* L, int status, Context* c) {
  Request& r = *c->request;
  if (status == 0) return script_replies::AppendValue(L, r.out, r.protocol(), c->resp);
  std::string error;
  if (lua_istable(L, -1)) {
    const char* message = script_lua::ErrorTableMessage(L);
    error = message != nullptr ? message : "ERR unknown error";
  } else {
    const char* message = lua_tostring(L, -1);
    error = std::string("ERR ") + (message ? message : "unknown error");
  }
  reply::Error(r.out, error + " script: " + *c->name + (c->function ? ", on @user_function:" : ", on @user_script:") +
                          std::to_string(c->error_line) + ".");
}

// KEYS or ARGV as a table, pushed.
void PushStrings(lua_State* L, const std::vector<std::string>& values) {
  lua_createtable(L, static_cast<int>(values.size()), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    lua_pushlstring(L, values[i].data(), values[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
}

}  // namespace

void CreateTables(lua_State* L) {
  for (const char* table : {&kScripts, &kFunctions}) {
    lua_newtable(L);
    script_lua::SetRegistry(L, table);
  }
}

void PushScripts(lua_State* L) { PushRegistry(L, &kScripts); }
void PushFunctions(lua_State* L) { PushRegistry(L, &kFunctions); }

void AddRedisApi(lua_State* L) {
  lua_pushcfunction(L, RedisPcallBuiltin);
  lua_setglobal(L, "pcall");
  lua_newtable(L);
  const luaL_Reg functions[] = {{"call", RedisCall},
                                {"pcall", RedisPCall},
                                {"error_reply", RedisErrorReply},
                                {"status_reply", RedisStatusReply},
                                {"sha1hex", RedisSha1Hex},
                                {"setresp", RedisSetResp},
                                {"set_repl", RedisSetRepl},
                                {"replicate_commands", RedisReplicateCommands},
                                {"breakpoint", RedisBreakpoint},
                                {"debug", RedisDebug},
                                {"acl_check_cmd", RedisAclCheckCmd},
                                {nullptr, nullptr}};
  luaL_register(L, nullptr, functions);
  const std::pair<const char*, int> replication[] = {
      {"REPL_NONE", 0}, {"REPL_AOF", 1}, {"REPL_SLAVE", 2}, {"REPL_REPLICA", 2}, {"REPL_ALL", 3}};
  for (const auto& [name, value] : replication) {
    lua_pushinteger(L, value);
    lua_setfield(L, -2, name);
  }
  AddConstants(L);
  lua_setglobal(L, "redis");
}

void PushLoadTimeApi(lua_State* L) {
  lua_newtable(L);
  AddConstants(L);
}

int RaiseError(lua_State* L, std::string_view message) {
  script_replies::PushErrorTable(L, message);
  return lua_error(L);
}

// The whole run, under lua_cpcall (so that no allocation of the Lua heap
// fails outside protected mode).
int RunProtected(lua_State* L) {
  auto* c = static_cast<Context*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  script_sandbox::RestoreGlobals(L);
  script_sandbox::RestoreCollector(L);
  lua_pushlightuserdata(L, c);
  script_lua::SetRegistry(L, &kRun);
  c->function ? PushFunctions(L) : PushScripts(L);
  lua_pushlstring(L, c->key->data(), c->key->size());
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    reply::Error(c->request->out, c->function ? "ERR Function not found"
                                              : "NOSCRIPT No matching script. Please use EVAL.");
    return 0;
  }
  int nargs = 0;
  if (c->function) {  // KEYS and ARGV are the callback's arguments
    PushStrings(L, *c->keys);
    PushStrings(L, *c->argv);
    nargs = 2;
  } else {
    script_sandbox::SetEnvironment(L, -1);  // whatever an earlier run did
    PushStrings(L, *c->keys);
    script_sandbox::SetGlobal(L, "KEYS");
    PushStrings(L, *c->argv);
    script_sandbox::SetGlobal(L, "ARGV");
  }
  lua_pushcfunction(L, NoteErrorLine);
  lua_insert(L, 1);  // below the script and its arguments
  lua_sethook(L, Hook, LUA_MASKCOUNT, ScriptEngine::kHookInstructions);
  const int status = lua_pcall(L, nargs, 1, 1);
  lua_sethook(L, nullptr, 0, 0);
  ReplyResult(L, status, c);
  return 0;
}

void EndRun(lua_State* L) {
  lua_pushnil(L);
  script_lua::SetRegistry(L, &kRun);
}

}  // namespace teksdb::server::script_run
