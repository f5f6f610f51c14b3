// ScriptEngine implementation: the Lua state and its sandbox, redis.*
// for scripts, and the reply conversions (RESP2 replies to Lua values for
// redis.call, Lua values to replies in the client's protocol for the
// script's result), as Redis 7.0's script_lua.c describes them.
#include "script_engine.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}
#include <nettle/sha1.h>

#include <cstdlib>
#include <cstring>

#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

// Registry keys (their addresses).
const char kScripts = 0;  // sha -> compiled function
const char kRun = 0;      // the RunContext of the script running

// What a run needs, handed to the protected functions below.
struct RunContext {
  Request* request;
  bool read_only;
  int64_t deadline_ms;
  const std::string* sha;
  const std::vector<std::string>* keys;
  const std::vector<std::string>* argv;
  int error_line = 1;  // where the script failed (Redis names it)
};

RunContext* Context(lua_State* L) {
  lua_pushlightuserdata(L, const_cast<char*>(&kRun));
  lua_rawget(L, LUA_REGISTRYINDEX);
  auto* context = static_cast<RunContext*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
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

// Every 100000 instructions: a script past its time is stopped.
void CheckTime(lua_State* L, lua_Debug*) {
  RunContext* context = Context(L);
  if (context != nullptr && Keyspace::NowMs() > context->deadline_ms) {
    luaL_error(L, "script ran longer than %d ms and was stopped",
               static_cast<int>(ScriptEngine::kTimeLimitMs));
  }
}

// Pushes {field = message} (Redis's status and error tables).
void PushTable(lua_State* L, const char* field, const std::string& message) {
  lua_newtable(L);
  lua_pushstring(L, field);
  lua_pushlstring(L, message.data(), message.size());
  lua_settable(L, -3);
}

// Pushes the RESP2 reply at text[*pos] as Redis converts it for Lua:
// integer -> number, bulk -> string, null -> false, status -> {ok=...},
// error -> {err=...}, array -> table. *error: it was an error reply.
void PushReply(lua_State* L, const std::string& text, size_t* pos, bool* error) {
  const size_t end = text.find("\r\n", *pos);
  const char kind = text[*pos];
  const std::string line = text.substr(*pos + 1, end - *pos - 1);
  *pos = end + 2;
  lua_checkstack(L, 4);
  switch (kind) {
    case ':':
      lua_pushnumber(L, static_cast<lua_Number>(std::strtoll(line.c_str(), nullptr, 10)));
      return;
    case '+':
      return PushTable(L, "ok", line);
    case '-':
      *error = true;
      return PushTable(L, "err", line);
    case '$': {
      const long long n = std::strtoll(line.c_str(), nullptr, 10);
      if (n < 0) return lua_pushboolean(L, 0);
      lua_pushlstring(L, text.data() + *pos, static_cast<size_t>(n));
      *pos += static_cast<size_t>(n) + 2;
      return;
    }
    default: {  // '*'
      const long long n = std::strtoll(line.c_str(), nullptr, 10);
      if (n < 0) return lua_pushboolean(L, 0);
      lua_newtable(L);
      for (long long i = 1; i <= n; ++i) {
        bool inner_error = false;
        PushReply(L, text, pos, &inner_error);
        lua_rawseti(L, -2, static_cast<int>(i));
      }
      return;
    }
  }
}

// Runs the command redis.call or redis.pcall names, pushing its reply (or
// an {err=...} table); true if that is an error. Every C++ object lives
// here, so the caller may raise it (Lua's errors unwind with longjmp).
bool CallInto(lua_State* L) {
  RunContext* context = Context(L);
  const int argc = lua_gettop(L);
  auto fail = [&](const char* message) {
    PushTable(L, "err", message);
    return true;
  };
  if (argc == 0) return fail("ERR Please specify at least one argument for this redis lib call");
  std::vector<std::string> args;
  for (int i = 1; i <= argc; ++i) {
    if (lua_type(L, i) != LUA_TSTRING && lua_type(L, i) != LUA_TNUMBER) {
      return fail("ERR Lua redis lib command arguments must be strings or integers");
    }
    size_t len;
    const char* s = lua_tolstring(L, i, &len);
    args.emplace_back(s, len);
  }
  const std::string name = AsciiLower(args[0]);
  const Command* command = LookupCommand(name);
  const CommandInfo* info = FindCommandInfo(name);
  if (command == nullptr || info == nullptr) {
    return fail("ERR Unknown Redis command called from script");
  }
  const std::string subcommand_error = SubcommandError(args);
  if (subcommand_error.find("unknown subcommand") != std::string::npos) {
    return fail("ERR Unknown Redis command called from script");
  }
  if (!ArityFits(*command, args.size()) || !subcommand_error.empty()) {
    return fail("ERR Wrong number of args calling Redis command from script");
  }
  if (DeniedInScripts(args)) {
    return fail("ERR This Redis command is not allowed from script");
  }
  if (context->read_only && std::strstr(info->flags, "write") != nullptr) {
    return fail("ERR Write commands are not allowed from read-only scripts.");
  }
  Request& r = *context->request;
  // Scripts see RESP2 replies, whatever the client speaks.
  const int protocol = r.client.protocol;
  r.client.protocol = 2;
  std::string reply;
  Execute(r.server, r.client, args, &reply);
  r.client.protocol = protocol;
  size_t pos = 0;
  bool error = false;
  PushReply(L, reply, &pos, &error);
  return error;
}

int Call(lua_State* L, bool raise) {
  const bool error = CallInto(L);
  return error && raise ? lua_error(L) : 1;
}
int RedisCall(lua_State* L) { return Call(L, true); }
int RedisPCall(lua_State* L) { return Call(L, false); }

int RedisErrorReply(lua_State* L) {
  PushTable(L, "err", luaL_checkstring(L, 1));
  return 1;
}
int RedisStatusReply(lua_State* L) {
  PushTable(L, "ok", luaL_checkstring(L, 1));
  return 1;
}
int RedisSha1Hex(lua_State* L) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  const std::string hex = ScriptEngine::Sha1Hex(std::string(s, len));
  lua_pushlstring(L, hex.data(), hex.size());
  return 1;
}
int RedisLog(lua_State*) { return 0; }  // scripts' logs are dropped
int RedisSetResp(lua_State* L) {
  if (luaL_checkinteger(L, 1) != 2) return luaL_error(L, "RESP3 is not supported in scripts");
  return 0;
}

// Reading a global that does not exist, or setting one, is an error, as
// in Redis (KEYS and ARGV are set with rawset).
int GlobalRead(lua_State* L) {
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_tostring(L, 2));
}
int GlobalWrite(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

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

// The Lua value at the top of the stack as a reply, as Redis converts a
// script's result. `depth` bounds nested tables (a table holding itself).
void ReplyValue(lua_State* L, std::string* out, int protocol, int depth) {
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      return reply::Bulk(out, std::string_view(s, len));
    }
    case LUA_TBOOLEAN:
      return lua_toboolean(L, -1) ? reply::Integer(out, 1) : reply::Null(out, protocol);
    case LUA_TNUMBER:
      return reply::Integer(out, static_cast<int64_t>(lua_tonumber(L, -1)));
    case LUA_TTABLE: {
      if (depth > 100) return reply::Error(out, "ERR reached lua stack limit");
      for (const char* field : {"err", "ok"}) {
        lua_getfield(L, -1, field);
        if (lua_type(L, -1) == LUA_TSTRING) {
          const std::string text = lua_tostring(L, -1);
          lua_pop(L, 1);
          return field[0] == 'e' ? reply::Error(out, text) : reply::Simple(out, text);
        }
        lua_pop(L, 1);
      }
      std::string items;
      size_t n = 0;
      lua_checkstack(L, 4);
      for (int i = 1;; ++i) {
        lua_rawgeti(L, -1, i);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 1);
          break;
        }
        ReplyValue(L, &items, protocol, depth + 1);
        lua_pop(L, 1);
        ++n;
      }
      reply::ArrayHeader(out, n);
      out->append(items);
      return;
    }
    default:  // nil, functions, ...
      return reply::Null(out, protocol);
  }
}

// The script's result (on top of the stack after a run with `status`) as
// the reply, or its error, as Redis 7.0 words them: the error (a raised
// {err=...} table's, or "ERR" and Lua's message), then " script: SHA, on
// @user_script:LINE.".
void ReplyResult(lua_State* L, int status, RunContext* c) {
  Request& r = *c->request;
  if (status == 0) return ReplyValue(L, r.out, r.protocol(), 0);
  std::string error;
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    error = lua_isstring(L, -1) ? lua_tostring(L, -1) : "ERR unknown error";
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
  for (int which = 0; which < 2; ++which) {
    const std::vector<std::string>& values = which == 0 ? *c->keys : *c->argv;
    lua_pushstring(L, which == 0 ? "KEYS" : "ARGV");
    lua_createtable(L, static_cast<int>(values.size()), 0);
    for (size_t i = 0; i < values.size(); ++i) {
      lua_pushlstring(L, values[i].data(), values[i].size());
      lua_rawseti(L, -2, static_cast<int>(i + 1));
    }
    lua_rawset(L, LUA_GLOBALSINDEX);
  }
  lua_pushcfunction(L, NoteErrorLine);
  lua_insert(L, -2);  // below the script
  lua_sethook(L, CheckTime, LUA_MASKCOUNT, 100000);
  const int status = lua_pcall(L, 0, 1, -2);
  lua_sethook(L, nullptr, 0, 0);
  ReplyResult(L, status, c);
  return 0;
}

// Compiles a script and adds it to the cache, under lua_cpcall.
struct Compilation {
  const std::string* body;
  const std::string* sha;
  std::string* error;
};
int CompileProtected(lua_State* L) {
  const auto* c = static_cast<const Compilation*>(lua_touserdata(L, 1));
  if (luaL_loadbuffer(L, c->body->data(), c->body->size(), "@user_script") != 0) {
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

}  // namespace

ScriptEngine::ScriptEngine() { Open(); }
ScriptEngine::~ScriptEngine() { Close(); }

void ScriptEngine::Open() {
  lua_ = lua_newstate(Allocate, &heap_bytes_);
  lua_State* L = lua_;
  for (const lua_CFunction open : {luaopen_base, luaopen_table, luaopen_string, luaopen_math}) {
    lua_pushcfunction(L, open);
    lua_call(L, 0, 0);
  }
  for (const char* unsafe : {"dofile", "loadfile"}) {
    lua_pushnil(L);
    lua_setglobal(L, unsafe);
  }
  lua_newtable(L);
  const luaL_Reg functions[] = {{"call", RedisCall},
                                {"pcall", RedisPCall},
                                {"error_reply", RedisErrorReply},
                                {"status_reply", RedisStatusReply},
                                {"sha1hex", RedisSha1Hex},
                                {"log", RedisLog},
                                {"setresp", RedisSetResp},
                                {nullptr, nullptr}};
  for (const luaL_Reg* f = functions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
  int level = 0;
  for (const char* name : {"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"}) {
    lua_pushinteger(L, level++);
    lua_setfield(L, -2, name);
  }
  lua_setglobal(L, "redis");
  lua_pushlightuserdata(L, const_cast<char*>(&kScripts));
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  // From here on, globals are read-only and must exist.
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  lua_newtable(L);
  lua_pushcfunction(L, GlobalRead);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, GlobalWrite);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
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
  if (bodies_.count(*sha) > 0) return true;
  error->clear();
  Compilation compilation{&body, sha, error};
  if (lua_cpcall(lua_, CompileProtected, &compilation) != 0) {
    *error = std::string("ERR script engine: ") + lua_tostring(lua_, -1);
  }
  lua_settop(lua_, 0);
  if (!error->empty()) return false;
  bodies_.emplace(*sha, body);
  return true;
}

bool ScriptEngine::Exists(const std::string& sha) {
  std::lock_guard<std::mutex> lock(mu_);
  return bodies_.count(AsciiLower(sha)) > 0;
}

void ScriptEngine::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  Close();
  bodies_.clear();
  heap_bytes_ = 0;
  Open();
}

void ScriptEngine::Run(Request& r, const std::string& sha, const std::vector<std::string>& keys,
                       const std::vector<std::string>& argv, bool read_only) {
  std::lock_guard<std::mutex> lock(mu_);
  RunContext context{&r, read_only, Keyspace::NowMs() + kTimeLimitMs, &sha, &keys, &argv};
  const size_t reply_start = r.out->size();
  if (lua_cpcall(lua_, RunProtected, &context) != 0) {
    r.out->resize(reply_start);
    reply::Error(r.out, std::string("ERR script engine: ") + lua_tostring(lua_, -1));
  }
  lua_settop(lua_, 0);
  lua_pushlightuserdata(lua_, const_cast<char*>(&kRun));
  lua_pushnil(lua_);
  lua_rawset(lua_, LUA_REGISTRYINDEX);
  lua_gc(lua_, LUA_GCSTEP, 0);
}

}  // namespace teksdb::server
