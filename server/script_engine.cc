// ScriptEngine implementation: the Lua state, the script cache and
// shebang lines, redis.* for scripts, and a run under its hook, as Redis
// 7.0's eval.c and script_lua.c describe them.
#include "script_engine.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}
#include <nettle/sha1.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <sstream>

#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "resp_reply.h"
#include "script_replies.h"
#include "script_sandbox.h"

namespace teksdb::server {
namespace {

// Registry keys (their addresses).
const char kScripts = 0;  // sha -> compiled function
const char kRun = 0;      // the RunContext of the script running

// What a run needs, handed to the functions below.
struct RunContext {
  Request* request;
  bool read_only;
  RunningScript* running;
  const std::string* sha;
  const std::vector<std::string>* keys;
  const std::vector<std::string>* argv;
  int resp = 2;        // redis.setresp
  int error_line = 1;  // where the script failed (Redis names it)
};

RunContext* Context(lua_State* L) {
  lua_pushlightuserdata(L, const_cast<char*>(&kRun));
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* context = static_cast<RunContext*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return context;
}

// Raises Redis's error table for `message` ({err = "ERR message"}).
int RaiseError(lua_State* L, std::string_view message) {
  script_replies::PushErrorTable(L, message);
  return lua_error(L);
}

// The run's context, or an error naming `function` outside a run.
RunContext* RunOrRaise(lua_State* L, const char* function) {
  RunContext* context = Context(L);
  if (context == nullptr) {
    RaiseError(L, std::string(function) + " can only be called inside a script invocation");
  }
  return context;
}

// The heap, capped: an allocation past the limit fails, which Lua reports
// as "not enough memory".
void* Allocate(void* heap_bytes, void* block, size_t old_size, size_t new_size) {
  size_t* heap = static_cast<size_t*>(heap_bytes);
  if (new_size == 0) {
    std::free(block);
    *heap -= old_size;
    return nullptr;
  }
  if (new_size > old_size && *heap - old_size + new_size > ScriptEngine::kMemoryLimit) {
    return nullptr;
  }
  void* grown = std::realloc(block, new_size);
  if (grown != nullptr) *heap = *heap - old_size + new_size;
  return grown;
}

// Every kHookInstructions (and, once the script must stop, at every
// instruction, so that pcall cannot catch the stop for good).
void Hook(lua_State* L, lua_Debug*) {
  RunContext* context = Context(L);
  if (context == nullptr || !context->running->ShouldStop()) return;
  lua_sethook(L, Hook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
  RaiseError(L, context->running->stopped_for_shutdown() ? RunningScript::kShutdownError
                                                          : RunningScript::kKilledError);
}

// Runs the command redis.call or redis.pcall names, pushing its reply (or
// an {err=...} table); true if that is an error.
bool CallInto(lua_State* L) {
  RunContext* context = RunOrRaise(L, "redis.call/pcall");
  const int argc = lua_gettop(L);
  auto fail = [&](std::string_view message) {
    script_replies::PushErrorTable(L, message);
    return true;
  };
  if (argc == 0) return fail("Please specify at least one argument for this redis lib call");
  std::vector<std::string> args;
  for (int i = 1; i <= argc; ++i) {
    if (lua_type(L, i) == LUA_TNUMBER) {
      args.push_back(script_replies::NumberArgument(lua_tonumber(L, i)));
    } else if (lua_type(L, i) == LUA_TSTRING) {
      size_t len;
      const char* s = lua_tolstring(L, i, &len);
      args.emplace_back(s, len);
    } else {
      return fail("Lua redis lib command arguments must be strings or integers");
    }
  }
  const std::string name = AsciiLower(args[0]);
  const Command* command = LookupCommand(name);
  const CommandInfo* info = FindCommandInfo(name);
  if (command == nullptr || info == nullptr) return fail("Unknown Redis command called from script");
  const std::string subcommand_error = SubcommandError(args);
  if (subcommand_error.find("unknown subcommand") != std::string::npos) {
    return fail("Unknown Redis command called from script");
  }
  if (!ArityFits(*command, args.size()) || !subcommand_error.empty()) {
    return fail("Wrong number of args calling Redis command from script");
  }
  if (DeniedInScripts(args)) return fail("This Redis command is not allowed from script");
  const bool writes = std::strstr(info->flags, "write") != nullptr;
  if (context->read_only && writes) {
    return fail("Write commands are not allowed from read-only scripts.");
  }
  if (writes) context->running->NoteWrite();
  Request& r = *context->request;
  // Scripts see the replies of the protocol they chose (redis.setresp).
  const int protocol = r.client.protocol;
  r.client.protocol = context->resp;
  std::string reply;
  bool failed = false;
  try {
    Execute(r.server, r.client, args, &reply);
  } catch (const std::exception& e) {  // never through Lua's frames
    reply.clear();
    reply::Error(&reply, std::string("ERR ") + e.what());
    failed = true;
  }
  r.client.protocol = protocol;
  size_t pos = 0;
  bool error = false;
  script_replies::PushReply(L, reply, &pos, &error);
  return error || failed;
}

int RedisCall(lua_State* L) { return CallInto(L) ? lua_error(L) : 1; }
int RedisPCall(lua_State* L) {
  CallInto(L);
  return 1;
}

int RedisErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    script_replies::PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  size_t len;
  const char* error = lua_tolstring(L, 1, &len);
  const std::string_view text(error, len);
  script_replies::PushErrorTable(L, len > 0 && error[0] == '-' ? std::string(text) : "-" + std::string(text));
  return 1;
}
int RedisStatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    script_replies::PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  size_t len;
  const char* status = lua_tolstring(L, 1, &len);
  script_replies::PushSingleFieldTable(L, "ok", std::string_view(status, len));
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
  RunContext* context = RunOrRaise(L, "redis.setresp");
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
// redis.acl_check_cmd(command, args...): the default user may run every
// command (no ACLs here).
int RedisAclCheckCmd(lua_State* L) {
  RunOrRaise(L, "redis.acl_check_cmd");
  if (lua_gettop(L) == 0) return RaiseError(L, "Please specify at least one argument for this redis lib call");
  const char* name = lua_tostring(L, 1);
  if (name == nullptr || LookupCommand(AsciiLower(name)) == nullptr) {
    return RaiseError(L, "Invalid command passed to redis.acl_check_cmd()");
  }
  lua_pushboolean(L, 1);
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
  if (lua_istable(L, -1)) {
    lua_pushstring(L, "err");
    lua_rawget(L, -2);
    if (lua_type(L, -1) == LUA_TSTRING) {
      lua_remove(L, -2);
    } else {
      lua_pop(L, 1);
    }
  }
  return 2;
}

// The redis table (and Redis's pcall), as globals of the state.
void AddRedisGlobals(lua_State* L) {
  lua_pushcfunction(L, RedisPcallBuiltin);
  lua_setglobal(L, "pcall");
  lua_newtable(L);
  const luaL_Reg functions[] = {{"call", RedisCall},
                                {"pcall", RedisPCall},
                                {"error_reply", RedisErrorReply},
                                {"status_reply", RedisStatusReply},
                                {"sha1hex", RedisSha1Hex},
                                {"log", RedisLog},
                                {"setresp", RedisSetResp},
                                {"set_repl", RedisSetRepl},
                                {"replicate_commands", RedisReplicateCommands},
                                {"breakpoint", RedisBreakpoint},
                                {"debug", RedisDebug},
                                {"acl_check_cmd", RedisAclCheckCmd},
                                {nullptr, nullptr}};
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  const std::pair<const char*, int> constants[] = {
      {"LOG_DEBUG", 0}, {"LOG_VERBOSE", 1}, {"LOG_NOTICE", 2}, {"LOG_WARNING", 3},
      {"REPL_NONE", 0}, {"REPL_AOF", 1},    {"REPL_SLAVE", 2}, {"REPL_REPLICA", 2},
      {"REPL_ALL", 3},  {"REDIS_VERSION_NUM", (7 << 16) | (0 << 8) | 15}};
  for (const auto& [name, value] : constants) {
    lua_pushinteger(L, value);
    lua_setfield(L, -2, name);
  }
  lua_pushstring(L, "7.0.15");
  lua_setfield(L, -2, "REDIS_VERSION");
  lua_setglobal(L, "redis");
}

int BuildProtected(lua_State* L) {
  script_sandbox::Build(L, AddRedisGlobals);
  lua_pushlightuserdata(L, const_cast<char*>(&kScripts));
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  return 0;
}

// lua_pcall's message handler: notes the line of the script that failed.
int NoteErrorLine(lua_State* L) {
  lua_Debug frame;
  for (int level = 1; lua_getstack(L, level, &frame) != 0; ++level) {
    lua_getinfo(L, "l", &frame);
    if (frame.currentline > 0) {
      Context(L)->error_line = frame.currentline;
      break;
    }
  }
  return 1;  // the error as it was
}

// The script's result (on top of the stack after a run with `status`) as
// the reply, or its error, as Redis 7.0 words them: the error (a raised
// {err=...} table's, or "ERR" and Lua's message), then " script: SHA, on
// @user_script:LINE.".
void ReplyResult(lua_State* L, int status, RunContext* c) {
  Request& r = *c->request;
  if (status == 0) return script_replies::AppendValue(L, r.out, r.protocol(), c->resp);
  std::string error;
  if (lua_istable(L, -1)) {
    lua_pushstring(L, "err");
    lua_rawget(L, -2);
    error = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "ERR unknown error";
    lua_pop(L, 1);
  } else {
    const char* message = lua_tostring(L, -1);
    error = std::string("ERR ") + (message ? message : "unknown error");
  }
  reply::Error(r.out, error + " script: " + *c->sha + ", on @user_script:" +
                          std::to_string(c->error_line) + ".");
}

// The whole run, under lua_cpcall (so that no allocation of the Lua heap
// fails outside protected mode).
int RunProtected(lua_State* L) {
  auto* c = static_cast<RunContext*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  script_sandbox::RestoreGlobals(L);
  lua_pushlightuserdata(L, const_cast<char*>(&kRun));
  lua_pushlightuserdata(L, c);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_pushlightuserdata(L, const_cast<char*>(&kScripts));
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushlstring(L, c->sha->data(), c->sha->size());
  lua_rawget(L, -2);
  if (!lua_isfunction(L, -1)) {
    reply::Error(c->request->out, "NOSCRIPT No matching script. Please use EVAL.");
    return 0;
  }
  script_sandbox::SetEnvironment(L, -1);  // whatever an earlier run's setfenv did
  for (int which = 0; which < 2; ++which) {
    const std::vector<std::string>& values = which == 0 ? *c->keys : *c->argv;
    lua_createtable(L, static_cast<int>(values.size()), 0);
    for (size_t i = 0; i < values.size(); ++i) {
      lua_pushlstring(L, values[i].data(), values[i].size());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    script_sandbox::SetGlobal(L, which == 0 ? "KEYS" : "ARGV");
  }
  lua_pushcfunction(L, NoteErrorLine);
  lua_insert(L, -2);  // below the script
  lua_sethook(L, Hook, LUA_MASKCOUNT, ScriptEngine::kHookInstructions);
  const int status = lua_pcall(L, 0, 1, -2);
  lua_sethook(L, nullptr, 0, 0);
  ReplyResult(L, status, c);
  return 0;
}

// A shebang line ("#!lua flags=no-writes,allow-oom"), as Redis 7.0 reads
// it: *code_start is where the code starts (the line's "\n", so line
// numbers stay), *no_writes its flag; false with Redis's error otherwise.
bool ParseShebang(const std::string& body, size_t* code_start, bool* no_writes, std::string* error) {
  *code_start = 0;
  *no_writes = false;
  if (body.compare(0, 2, "#!") != 0) return true;
  const size_t end = body.find('\n');
  if (end == std::string::npos) {
    *error = "ERR Invalid script shebang";
    return false;
  }
  std::istringstream line(body.substr(0, end));
  std::vector<std::string> parts;
  for (std::string part; line >> part;) parts.push_back(part);
  if (parts.empty()) {
    *error = "ERR Invalid engine in script shebang";
    return false;
  }
  if (parts[0] != "#!lua") {
    *error = "ERR Unexpected engine in script shebang: " + parts[0];
    return false;
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].compare(0, 6, "flags=") != 0) {
      *error = "ERR Unknown lua shebang option: " + parts[i];
      return false;
    }
    const std::string flags = parts[i].substr(6);
    if (flags.empty()) continue;
    size_t from = 0;
    for (;;) {
      const size_t comma = flags.find(',', from);
      const std::string flag = flags.substr(from, comma - from);
      if (flag == "no-writes") {
        *no_writes = true;
      } else if (flag != "allow-oom" && flag != "allow-stale" && flag != "no-cluster" &&
                 flag != "allow-cross-slot-keys") {
        *error = "ERR Unexpected flag in script shebang: " + flag;
        return false;
      }
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  *code_start = end;
  return true;
}

// Compiles a script and adds it to the cache, under lua_cpcall.
struct Compilation {
  const char* code;
  size_t size;
  const std::string* sha;
  std::string* error;
};
int CompileProtected(lua_State* L) {
  const auto* c = static_cast<const Compilation*>(lua_touserdata(L, 1));
  script_sandbox::RestoreGlobals(L);
  if (luaL_loadbuffer(L, c->code, c->size, "@user_script") != 0) {
    *c->error = std::string("ERR Error compiling script (new function): ") + lua_tostring(L, -1);
    return 0;
  }
  lua_pushlightuserdata(L, const_cast<char*>(&kScripts));
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushlstring(L, c->sha->data(), c->sha->size());
  lua_pushvalue(L, -3);  // the function
  lua_rawset(L, -3);
  return 0;
}

// The error a failed lua_cpcall left on top (Lua's C++ build leaves none
// for an exception of ours).
const char* ErrorText(lua_State* L) {
  const char* text = lua_tostring(L, -1);
  return text != nullptr ? text : "unknown error";
}

}  // namespace

ScriptEngine::ScriptEngine() { Open(); }
ScriptEngine::~ScriptEngine() { Close(); }

void ScriptEngine::Open() {
  lua_ = lua_newstate(Allocate, &heap_bytes_);
  if (lua_cpcall(lua_, BuildProtected, nullptr) != 0) {
    std::fprintf(stderr, "teksdb-server: cannot build the Lua sandbox: %s\n", ErrorText(lua_));
    std::abort();
  }
  lua_settop(lua_, 0);
}

void ScriptEngine::Close() {
  if (lua_ != nullptr) lua_close(lua_);
  lua_ = nullptr;
}

std::string ScriptEngine::Sha1Hex(const std::string& text) {
  sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, digest);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (uint8_t b : digest) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 15]);
  }
  return hex;
}

bool ScriptEngine::Load(const std::string& body, std::string* sha, std::string* error) {
  *sha = Sha1Hex(body);
  std::lock_guard<std::mutex> lock(mu_);
  if (scripts_.count(*sha) > 0) return true;
  error->clear();
  Script script{body};
  size_t code_start;
  if (!ParseShebang(body, &code_start, &script.no_writes, error)) return false;
  script.shebang = code_start > 0;
  if (script_sandbox::IsBinaryChunk(body.data(), body.size())) {
    *error = "ERR Error compiling script (new function): loading Lua bytecode is not allowed";
    return false;
  }
  Compilation compilation{body.data() + code_start, body.size() - code_start, sha, error};
  if (lua_cpcall(lua_, CompileProtected, &compilation) != 0) {
    *error = std::string("ERR script engine: ") + ErrorText(lua_);
  }
  lua_settop(lua_, 0);
  if (!error->empty()) return false;
  scripts_.emplace(*sha, std::move(script));
  return true;
}

bool ScriptEngine::Exists(const std::string& sha) {
  std::lock_guard<std::mutex> lock(mu_);
  return scripts_.count(AsciiLower(sha)) > 0;
}

void ScriptEngine::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  Close();
  scripts_.clear();
  heap_bytes_ = 0;
  Open();
}

void ScriptEngine::Run(Request& r, const std::string& sha, const std::vector<std::string>& keys,
                       const std::vector<std::string>& argv, bool read_only) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto script = scripts_.find(sha);
  if (script == scripts_.end()) return reply::Error(r.out, "NOSCRIPT No matching script. Please use EVAL.");
  if (read_only && script->second.shebang && !script->second.no_writes) {
    return reply::Error(r.out, "ERR Can not execute a script with write flag using *_ro command.");
  }
  RunContext context{&r, read_only || script->second.no_writes, &running_, &sha, &keys, &argv};
  const size_t reply_start = r.out->size();
  running_.Begin(r.client.id);
  const int status = lua_cpcall(lua_, RunProtected, &context);
  running_.End();
  if (status != 0) {
    r.out->resize(reply_start);
    reply::Error(r.out, std::string("ERR script engine: ") + ErrorText(lua_));
  }
  lua_settop(lua_, 0);
  lua_pushlightuserdata(lua_, const_cast<char*>(&kRun));
  lua_pushnil(lua_);
  lua_rawset(lua_, LUA_REGISTRYINDEX);
  lua_gc(lua_, LUA_GCSTEP, 0);
}

}  // namespace teksdb::server
