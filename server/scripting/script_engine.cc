// ScriptEngine implementation, EVAL's half: the Lua states' heaps, the
// script cache and shebang lines, and a run (script_run.h) as Begin..End
// of the running script. The functions' half is script_functions.cc.
#include "script_engine.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}
#include <nettle/sha1.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "ascii_case.h"
#include "replication.h"
#include "request.h"
#include "resp_reply.h"
#include "script_lua_helpers.h"
#include "script_run.h"
#include "script_sandbox.h"

namespace teksdb::server {
namespace {

using script_lua::ErrorText;

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

int BuildProtected(lua_State* L) {
  script_sandbox::Build(L, script_run::AddRedisApi);
  script_run::CreateTables(L);
  return 0;
}

// A shebang line ("#!lua flags=no-writes,allow-oom"), as Redis 7.0 reads
// it: *code_start is where the code starts (the line's "\n", so line
// numbers stay), *flags its flags; false with Redis's error otherwise.
bool ParseShebang(const std::string& body, size_t* code_start, ScriptEngine::RunFlags* flags,
                  std::string* error) {
  *code_start = 0;
  *flags = ScriptEngine::RunFlags{};
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
    const std::string names = parts[i].substr(6);
    if (names.empty()) continue;
    size_t from = 0;
    for (;;) {
      const size_t comma = names.find(',', from);
      const std::string flag = names.substr(from, comma - from);
      if (flag == "no-writes") {
        flags->no_writes = true;
      } else if (flag == "allow-oom") {
        flags->allow_oom = true;
      } else if (flag == "allow-stale") {
        flags->allow_stale = true;
      } else if (flag != "no-cluster" &&
                 flag != "allow-cross-slot-keys") {
        *error = "ERR Unexpected flag in script shebang: " + flag;
        return false;
      }
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  *code_start = end;
  flags->declared = true;
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
  script_run::PushScripts(L);
  lua_pushlstring(L, c->sha->data(), c->sha->size());
  lua_pushvalue(L, -3);  // the function
  lua_rawset(L, -3);
  return 0;
}

}  // namespace

ScriptEngine::ScriptEngine(const CommandRunner& commands) : commands_(commands) {
  Open(&scripts_state_, BuildProtected);
  ResetFunctions();
}

ScriptEngine::~ScriptEngine() {
  Close(&scripts_state_);
  Close(&functions_state_);
}

void ScriptEngine::Open(State* state, int (*build)(lua_State*)) {
  state->heap_bytes = 0;
  state->lua = lua_newstate(Allocate, &state->heap_bytes);
  if (state->lua == nullptr || lua_cpcall(state->lua, build, nullptr) != 0) {
    std::fprintf(stderr, "teksdb-server: cannot build the Lua sandbox: %s\n",
                 state->lua ? ErrorText(state->lua) : "no memory");
    std::abort();
  }
  lua_settop(state->lua, 0);
}

void ScriptEngine::Close(State* state) {
  if (state->lua != nullptr) lua_close(state->lua);
  state->lua = nullptr;
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
  Script script{body, {}};
  size_t code_start;
  if (!ParseShebang(body, &code_start, &script.run, error)) return false;
  if (script_sandbox::IsBinaryChunk(body.data(), body.size())) {
    *error = "ERR Error compiling script (new function): loading Lua bytecode is not allowed";
    return false;
  }
  Compilation compilation{body.data() + code_start, body.size() - code_start, sha, error};
  lua_State* L = scripts_state_.lua;
  if (lua_cpcall(L, CompileProtected, &compilation) != 0) {
    *error = std::string("ERR script engine: ") + ErrorText(L);
  }
  lua_settop(L, 0);
  if (!error->empty()) return false;
  scripts_.emplace(*sha, std::move(script));
  script_count_.store(scripts_.size(), std::memory_order_relaxed);
  return true;
}

bool ScriptEngine::Exists(const std::string& sha) {
  std::lock_guard<std::mutex> lock(mu_);
  return scripts_.count(AsciiLower(sha)) > 0;
}

bool ScriptEngine::BodyFlags(const std::string& body, RunFlags* flags) {
  size_t code_start;
  std::string error;
  return ParseShebang(body, &code_start, flags, &error);
}

bool ScriptEngine::CachedFlags(const std::string& sha, RunFlags* flags) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = scripts_.find(AsciiLower(sha));
  if (it == scripts_.end()) return false;
  *flags = it->second.run;
  return true;
}

void ScriptEngine::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  Close(&scripts_state_);
  scripts_.clear();
  script_count_.store(0, std::memory_order_relaxed);
  Open(&scripts_state_, BuildProtected);
}

void ScriptEngine::RunIn(State* state, Request& r, void* context, bool function,
                         const std::string& name) {
  lua_State* L = state->lua;
  const size_t reply_start = r.out->size();
  // A script's SELECT holds for the script only (Redis 7.0).
  const int database = r.keyspace->database();
  running_.Begin(r.client.id, function, name, r.args);
  int status;
  {
    const Keyspace::FrozenTime frozen;  // expiries as of the script's start
    status = lua_cpcall(L, script_run::RunProtected, context);
  }
  running_.End();
  r.keyspace->Select(database);
  if (r.client.info) r.client.info->db.store(database, std::memory_order_relaxed);
  script_run::EndRun(L);
  if (status != 0) {
    r.out->resize(reply_start);
    reply::Error(r.out, std::string("ERR script engine: ") + ErrorText(L));
  }
  lua_settop(L, 0);
  lua_gc(L, LUA_GCSTEP, 0);
}

std::string ScriptEngine::RunRefusal(Request& r, const RunFlags& flags, bool read_only,
                                     bool* oom_at_start) {
  const bool may_write = flags.declared && !flags.no_writes;
  // (A script without flags, Redis's compatibility mode, runs until it
  // calls a command that may grow memory before any write.)
  *oom_at_start = !flags.allow_oom && r.server.memory.Exceeded();
  if (*oom_at_start && may_write) return MemoryLimit::kError;
  if (may_write) {
    if (r.server.replication->replica()) return "READONLY You can't write against a read only replica.";
    if (read_only) return "ERR Can not execute a script with write flag using *_ro command.";
    if (!r.server.replication->EnoughReplicas()) return "NOREPLICAS Not enough good replicas to write.";
  }
  if (!flags.allow_stale && r.server.replication->replica() &&
      !r.server.serve_stale_data.load(std::memory_order_relaxed) &&
      !r.server.replication->link_info().up) {
    return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
  }
  return "";
}

void ScriptEngine::Run(Request& r, const std::string& sha, const std::vector<std::string>& keys,
                       const std::vector<std::string>& argv, bool read_only) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto script = scripts_.find(sha);
  if (script == scripts_.end()) return reply::Error(r.out, "NOSCRIPT No matching script. Please use EVAL.");
  const RunFlags& flags = script->second.run;
  bool oom_at_start;
  if (const std::string refusal = RunRefusal(r, flags, read_only, &oom_at_start); !refusal.empty()) {
    return reply::Error(r.out, refusal);
  }
  script_run::Context context{&r, &commands_, read_only || flags.no_writes, &running_, false, &sha,
                              &sha, &keys, &argv};
  context.oom_at_start = oom_at_start;
  RunIn(&scripts_state_, r, &context, false, sha);
}

}  // namespace teksdb::server
