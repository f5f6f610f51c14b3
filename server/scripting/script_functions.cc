// ScriptEngine implementation, the functions' half, as Redis 7.0's
// functions.c and function_lua.c describe them: a library's metadata line,
// its load (redis.register_function, in the load-time environment, under
// kLoadTimeLimitMs), the registry of functions, and FCALL's run.
#include "script_engine.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <cctype>
#include <sstream>

#include "ascii_case.h"
#include "request.h"
#include "keyspace.h"
#include "resp_reply.h"
#include "script_lua_helpers.h"
#include "script_run.h"
#include "script_sandbox.h"
#include "monotonic_clock.h"

namespace teksdb::server {
namespace {

using script_lua::PushRegistry;
using script_lua::SetRegistry;

// Registry keys (their addresses).
const char kLoad = 0;       // the LoadContext of the library being loaded
const char kPending = 0;    // lower-case name -> callback, of that library
const char kLibraryEnv = 0;  // the globals of every library's code

// Redis's script flags, in the order FUNCTION LIST names them.
constexpr const char* kFlagNames[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster",
                                      "allow-cross-slot-keys"};
constexpr const char* kNameError =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one "
    "character long";

// The string at `index` of L's stack, whole (a NUL in it too).
std::string StackString(lua_State* L, int index) {
  size_t length = 0;
  const char* text = lua_tolstring(L, index, &length);
  return std::string(text, length);
}

bool ValidName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A library's load, handed to the functions below.
struct LoadContext {
  const char* code;
  size_t size;
  int64_t deadline_ms;
  std::vector<ScriptEngine::FunctionInfo> functions;
  std::string error;  // the load's, Redis's words
};

LoadContext* CurrentLoad(lua_State* L) {
  PushRegistry(L, &kLoad);
  auto* load = static_cast<LoadContext*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return load;
}

// A library's load runs past its time: raised at every instruction from
// then on, so pcall cannot catch it for good.
void LoadHook(lua_State* L, lua_Debug*) {
  const LoadContext* load = CurrentLoad(L);
  if (load == nullptr || MonotonicMs() <= load->deadline_ms) return;
  lua_sethook(L, LoadHook, LUA_MASKCOUNT | LUA_MASKLINE, 1);
  script_run::RaiseError(L, "FUNCTION LOAD timeout");
}

// The flags table of register_function's named form, into *info.
void ReadFlags(lua_State* L, int index, ScriptEngine::FunctionInfo* info) {
  bool set[std::size(kFlagNames)] = {};
  for (lua_pushnil(L); lua_next(L, index) != 0; lua_pop(L, 1)) {
    const char* flag = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
    size_t i = 0;
    while (i < std::size(kFlagNames) && (flag == nullptr || AsciiLower(flag) != kFlagNames[i])) ++i;
    if (i == std::size(kFlagNames)) script_run::RaiseError(L, "unknown flag given");
    set[i] = true;
  }
  for (size_t i = 0; i < std::size(kFlagNames); ++i) {
    if (set[i]) info->flags.push_back(kFlagNames[i]);
  }
  info->run.no_writes = set[0];
  info->run.allow_oom = set[1];
  info->run.allow_stale = set[2];
}

// redis.register_function(name, callback) or
// redis.register_function{function_name=..., callback=..., flags={...},
// description=...}: the callback goes to the pending table.
int RegisterFunction(lua_State* L) {
  LoadContext* load = CurrentLoad(L);
  if (load == nullptr) {
    return script_run::RaiseError(L, "redis.register_function can only be called on FUNCTION LOAD command");
  }
  ScriptEngine::FunctionInfo info;
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) return script_run::RaiseError(L, "wrong number of arguments to redis.register_function");
  int callback = 0;
  if (argc == 2) {
    if (lua_type(L, 1) != LUA_TSTRING) {
      return script_run::RaiseError(L, "first argument to redis.register_function must be a string");
    }
    if (!lua_isfunction(L, 2)) {
      return script_run::RaiseError(L, "second argument to redis.register_function must be a function");
    }
    info.name = StackString(L, 1);
    callback = 2;
  } else {
    if (!lua_istable(L, 1)) {
      return script_run::RaiseError(L,
                                    "calling redis.register_function with a single argument is only "
                                    "applicable to Lua table (representing named arguments).");
    }
    bool named = false;
    lua_settop(L, 2);  // slot 2: the callback, once found
    for (lua_pushnil(L); lua_next(L, 1) != 0; lua_pop(L, 1)) {
      if (lua_type(L, -2) != LUA_TSTRING) {
        script_run::RaiseError(L, "named argument key given to redis.register_function is not a string");
      }
      const std::string key = AsciiLower(lua_tostring(L, -2));
      if (key == "function_name") {
        if (lua_type(L, -1) != LUA_TSTRING) {
          script_run::RaiseError(L, "function_name argument given to redis.register_function must be a string");
        }
        info.name = StackString(L, -1);
        named = true;
      } else if (key == "description") {
        if (lua_type(L, -1) != LUA_TSTRING) {
          script_run::RaiseError(L, "description argument given to redis.register_function must be a string");
        }
        info.has_description = true;
        info.description = StackString(L, -1);
      } else if (key == "callback") {
        if (!lua_isfunction(L, -1)) {
          script_run::RaiseError(L, "callback argument given to redis.register_function must be a function");
        }
        lua_pushvalue(L, -1);
        lua_replace(L, 2);
        callback = 2;
      } else if (key == "flags") {
        if (!lua_istable(L, -1)) {
          script_run::RaiseError(L, "flags argument to redis.register_function must be a table representing function flags");
        }
        ReadFlags(L, lua_gettop(L), &info);
      } else {
        script_run::RaiseError(L, "unknown argument given to redis.register_function");
      }
    }
    if (!named) return script_run::RaiseError(L, "redis.register_function must get a function name argument");
    if (callback == 0) return script_run::RaiseError(L, "redis.register_function must get a callback argument");
  }
  if (!ValidName(info.name)) return script_run::RaiseError(L, kNameError);
  for (const ScriptEngine::FunctionInfo& f : load->functions) {  // (case-sensitive, as Redis)
    if (f.name == info.name) return script_run::RaiseError(L, "Function already exists in the library");
  }
  const std::string lower = AsciiLower(info.name);
  PushRegistry(L, &kPending);
  lua_pushlstring(L, lower.data(), lower.size());
  lua_pushvalue(L, callback);
  lua_rawset(L, -3);
  load->functions.push_back(std::move(info));
  return 0;
}

// A library's globals: while it loads, only the load-time API
// (redis.register_function, redis.log, the constants: upvalue 1); when its
// functions run, the runtime globals (upvalue 2).
int LibraryGlobal(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, CurrentLoad(L) != nullptr ? lua_upvalueindex(1) : lua_upvalueindex(2));
  if (!lua_isnil(L, -1)) return 1;
  return script_sandbox::NonexistentGlobal(L, lua_tostring(L, 2));
}

int BuildFunctionsProtected(lua_State* L) {
  script_sandbox::Build(L, script_run::AddRedisApi);
  script_run::CreateTables(L);
  lua_newtable(L);  // the load-time globals: redis only
  script_run::PushLoadTimeApi(L);
  lua_pushcfunction(L, RegisterFunction);
  lua_setfield(L, -2, "register_function");
  script_sandbox::PushStrictReadOnlyProxy(L, -1);
  lua_remove(L, -2);
  lua_setfield(L, -2, "redis");
  script_sandbox::PushHiddenGlobals(L);
  lua_pushcclosure(L, LibraryGlobal, 2);
  script_sandbox::PushReadOnlyEnvironment(L);
  SetRegistry(L, &kLibraryEnv);
  return 0;
}

// Runs a library's code, under lua_cpcall: its functions in the pending
// table and load->functions, or load->error.
int LoadProtected(lua_State* L) {
  auto* load = static_cast<LoadContext*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  script_sandbox::RestoreGlobals(L);
  script_sandbox::RestoreCollector(L);
  if (luaL_loadbuffer(L, load->code, load->size, "@user_function") != 0) {
    load->error = std::string("ERR Error compiling function: ") + lua_tostring(L, -1);
    return 0;
  }
  PushRegistry(L, &kLibraryEnv);
  lua_setfenv(L, -2);
  lua_newtable(L);
  SetRegistry(L, &kPending);
  lua_pushlightuserdata(L, load);
  SetRegistry(L, &kLoad);
  lua_sethook(L, LoadHook, LUA_MASKCOUNT, ScriptEngine::kHookInstructions);
  const int status = lua_pcall(L, 0, 0, 0);
  lua_sethook(L, nullptr, 0, 0);
  lua_pushnil(L);
  SetRegistry(L, &kLoad);
  if (status != 0) {
    std::string message = "ERR unknown error";
    if (lua_istable(L, -1)) {
      if (const char* err = script_lua::ErrorTableMessage(L)) message = err;
    } else if (const char* text = lua_tostring(L, -1)) {
      message = std::string("ERR ") + text;
    }
    load->error = "ERR Error registering functions: " + message;
  }
  return 0;
}

// Moves functions between the pending table and the functions table, under
// lua_cpcall: the names in `remove` leave it, those in `add` come from
// the pending table.
struct Commit {
  const std::vector<std::string>* remove;
  const std::vector<std::string>* add;
};
int CommitProtected(lua_State* L) {
  const auto* commit = static_cast<const Commit*>(lua_touserdata(L, 1));
  script_run::PushFunctions(L);
  for (const std::string& name : *commit->remove) {
    lua_pushlstring(L, name.data(), name.size());
    lua_pushnil(L);
    lua_rawset(L, -3);
  }
  PushRegistry(L, &kPending);
  for (const std::string& name : *commit->add) {
    lua_pushlstring(L, name.data(), name.size());
    lua_pushlstring(L, name.data(), name.size());
    lua_rawget(L, -3);
    lua_rawset(L, -4);
  }
  lua_newtable(L);
  SetRegistry(L, &kPending);
  return 0;
}

// "#!lua name=mylib" (the engine's name case-insensitive, the name quoted
// or not): the library's name, and where its code starts (the line's
// "\n", so line numbers stay); false with Redis's error.
bool ParseMetadata(const std::string& code, std::string* name, size_t* code_start, std::string* error) {
  if (code.compare(0, 2, "#!") != 0) {
    *error = "ERR Missing library metadata";
    return false;
  }
  const size_t end = code.find('\n');
  if (end == std::string::npos) {
    *error = "ERR Invalid library metadata";
    return false;
  }
  // (The engine is the first word's rest after "#!": "#! name=x" names
  // none, as Redis reads it.)
  std::istringstream line(code.substr(0, end));
  std::vector<std::string> parts;
  for (std::string part; line >> part;) parts.push_back(part);
  const std::string engine = parts[0].substr(2);
  if (AsciiLower(engine) != "lua") {
    *error = "ERR Engine '" + engine + "' not found";
    return false;
  }
  name->clear();
  bool named = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (AsciiLower(parts[i].substr(0, 5)) != "name=") {
      *error = "ERR Invalid metadata value given: " + parts[i];
      return false;
    }
    if (named) {
      *error = "ERR Invalid metadata value, name argument was given multiple times";
      return false;
    }
    named = true;
    *name = parts[i].substr(5);
    if (name->size() >= 2 && name->front() == '"' && name->back() == '"') {
      *name = name->substr(1, name->size() - 2);
    }
  }
  if (!named) {
    *error = "ERR Library name was not given";
    return false;
  }
  if (!ValidName(*name)) {
    *error = std::string("ERR ") + kNameError;
    return false;
  }
  *code_start = end;
  return true;
}

}  // namespace

void ScriptEngine::ResetFunctions() {
  Close(&functions_state_);
  Open(&functions_state_, BuildFunctionsProtected);
  libraries_.clear();
  function_libraries_.clear();
  CountFunctions();
}

void ScriptEngine::CountFunctions() {
  library_count_.store(libraries_.size(), std::memory_order_relaxed);
  size_t functions = 0;
  for (const auto& [name, library] : libraries_) functions += library.functions.size();
  function_count_.store(functions, std::memory_order_relaxed);
}

bool ScriptEngine::LibraryName(const std::string& code, std::string* name, std::string* error) {
  size_t code_start;
  return ParseMetadata(code, name, &code_start, error);
}

bool ScriptEngine::LoadLibrary(const std::string& code, bool replace, std::string* name,
                               std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t code_start;
  if (!ParseMetadata(code, name, &code_start, error)) return false;
  const auto existing = libraries_.find(*name);
  if (existing != libraries_.end() && !replace) {
    *error = "ERR Library '" + *name + "' already exists";
    return false;
  }
  lua_State* L = functions_state_.lua;
  LoadContext load{code.data() + code_start, code.size() - code_start,
                   MonotonicMs() + kLoadTimeLimitMs, {}, {}};
  if (lua_cpcall(L, LoadProtected, &load) != 0 && load.error.empty()) {
    load.error = std::string("ERR script engine: ") + script_lua::ErrorText(L);
  }
  lua_settop(L, 0);
  if (load.error.empty() && load.functions.empty()) load.error = "ERR No functions registered";
  for (const FunctionInfo& f : load.functions) {
    if (!load.error.empty()) break;
    const auto owner = function_libraries_.find(AsciiLower(f.name));
    if (owner != function_libraries_.end() && owner->second != *name) {
      load.error = "ERR Function " + f.name + " already exists";
    }
  }
  std::vector<std::string> remove, add;
  if (load.error.empty()) {
    if (existing != libraries_.end()) {
      for (const FunctionInfo& f : existing->second.functions) remove.push_back(AsciiLower(f.name));
    }
    for (const FunctionInfo& f : load.functions) add.push_back(AsciiLower(f.name));
  }
  Commit commit{&remove, &add};  // (an empty one clears the pending table)
  if (lua_cpcall(L, CommitProtected, &commit) != 0 && load.error.empty()) {
    load.error = "ERR script engine: out of memory registering functions";
  }
  lua_settop(L, 0);
  if (!load.error.empty()) {
    *error = load.error;
    return false;
  }
  for (const std::string& f : remove) function_libraries_.erase(f);
  for (const std::string& f : add) function_libraries_[f] = *name;
  libraries_[*name] = LibraryInfo{*name, code, std::move(load.functions)};
  CountFunctions();
  return true;
}

bool ScriptEngine::DeleteLibrary(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto library = libraries_.find(name);
  if (library == libraries_.end()) return false;
  std::vector<std::string> remove;
  for (const FunctionInfo& f : library->second.functions) remove.push_back(AsciiLower(f.name));
  const std::vector<std::string> add;
  Commit commit{&remove, &add};
  lua_cpcall(functions_state_.lua, CommitProtected, &commit);
  lua_settop(functions_state_.lua, 0);
  for (const std::string& f : remove) function_libraries_.erase(f);
  libraries_.erase(library);
  CountFunctions();
  return true;
}

void ScriptEngine::FlushLibraries() {
  std::lock_guard<std::mutex> lock(mu_);
  ResetFunctions();
}

std::vector<ScriptEngine::LibraryInfo> ScriptEngine::Libraries() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<LibraryInfo> all;
  for (const auto& [name, library] : libraries_) all.push_back(library);
  return all;
}

const ScriptEngine::FunctionInfo* ScriptEngine::FindLocked(const std::string& lower_case_name) const {
  const auto owner = function_libraries_.find(lower_case_name);
  if (owner == function_libraries_.end()) return nullptr;
  for (const FunctionInfo& f : libraries_.at(owner->second).functions) {
    if (AsciiLower(f.name) == lower_case_name) return &f;
  }
  return nullptr;
}

bool ScriptEngine::FindFunction(const std::string& name, FunctionInfo* info) {
  std::lock_guard<std::mutex> lock(mu_);
  const FunctionInfo* found = FindLocked(AsciiLower(name));
  if (found != nullptr) *info = *found;
  return found != nullptr;
}

void ScriptEngine::CallFunction(Request& r, const std::string& name,
                                const std::vector<std::string>& keys,
                                const std::vector<std::string>& argv, bool read_only) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string lower = AsciiLower(name);
  const FunctionInfo* info = FindLocked(lower);
  if (info == nullptr) return reply::Error(r.out, "ERR Function not found");
  bool oom_at_start;
  if (const std::string refusal = RunRefusal(r, info->run, read_only, &oom_at_start);
      !refusal.empty()) {
    return reply::Error(r.out, refusal);
  }
  script_run::Context context{&r, &commands_, read_only || info->run.no_writes, &running_, true,
                              &info->name, &lower, &keys, &argv};
  context.oom_at_start = oom_at_start;
  RunIn(&functions_state_, r, &context, true, info->name);
}

}  // namespace teksdb::server
