// The sandbox's construction: libraries, read-only proxies, the guarded
// built-ins and the binary-chunk refusal (script_sandbox.h).
#include "script_sandbox.h"

extern "C" {
#include <lauxlib.h>
#include <lua-bitop.h>
#include <lua-cjson.h>
#include <lua.h>
#include <lualib.h>
}

#include <initializer_list>

#include "script_libraries.h"
#include "script_library_guards.h"
#include "script_lua_helpers.h"

namespace teksdb::server::script_sandbox {
namespace {

// Registry keys (their addresses).
const char kReadOnlyTables = 0;  // weak-keyed set of the read-only tables
const char kProxyTargets = 0;    // weak-keyed: a proxy -> the table it reads
const char kGlobals = 0;         // the globals table scripts see
const char kHiddenGlobals = 0;   // the table it reads from

using script_lua::AbsoluteIndex;
using script_lua::PushRegistry;

int ReadOnlyError(lua_State* L) { return luaL_error(L, kReadOnlyError); }

// The globals' __index: the hidden table's field (upvalue 1), and reading
// a global that does not exist is an error, as in Redis.
int GlobalLookup(lua_State* L) {
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return 1;
  return NonexistentGlobal(L, lua_tostring(L, 2));
}

void MarkReadOnly(lua_State* L, int index) {
  index = AbsoluteIndex(L, index);
  PushRegistry(L, &kReadOnlyTables);
  lua_pushvalue(L, index);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

bool IsReadOnly(lua_State* L, int index) {
  if (lua_type(L, index) != LUA_TTABLE) return false;
  index = AbsoluteIndex(L, index);
  PushRegistry(L, &kReadOnlyTables);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  const bool read_only = lua_toboolean(L, -1) != 0;
  lua_pop(L, 2);
  return read_only;
}

// Notes that the table at `proxy` reads the one at `target` (for next,
// pairs and ipairs).
void RecordProxy(lua_State* L, int proxy, int target) {
  proxy = AbsoluteIndex(L, proxy);
  target = AbsoluteIndex(L, target);
  PushRegistry(L, &kProxyTargets);
  lua_pushvalue(L, proxy);
  lua_pushvalue(L, target);
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

// Pushes a new read-only table whose reads go to the table at `target`
// (which stays writable to whoever holds it: only C code here).
void PushProxy(lua_State* L, int target);

// Sets the metatable at `metatable`'s __metatable field to a read-only
// view of it: what getmetatable answers, which a script cannot use to
// change the metatable.
void HideMetatable(lua_State* L, int metatable) {
  metatable = AbsoluteIndex(L, metatable);
  PushProxy(L, metatable);
  lua_setfield(L, metatable, "__metatable");
}

void PushProxy(lua_State* L, int target) {
  target = AbsoluteIndex(L, target);
  lua_newtable(L);  // the proxy
  RecordProxy(L, -1, target);
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, target);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadOnlyError);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);  // getmetatable(proxy) answers false
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  MarkReadOnly(L, -1);
}

// Replaces the table at `index` by the one it is a proxy of, if it is one.
void ResolveProxy(lua_State* L, int index) {
  index = AbsoluteIndex(L, index);
  PushRegistry(L, &kProxyTargets);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  if (lua_istable(L, -1)) {
    lua_replace(L, index);
  } else {
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

// next, pairs and ipairs see through a proxy to what it reads (without
// handing the script that table): for k, v in pairs(string) lists the
// library as in Redis.
int SafeNext(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  ResolveProxy(L, 1);
  if (lua_next(L, 1) != 0) return 2;
  lua_pushnil(L);
  return 1;
}
int SafePairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushcfunction(L, SafeNext);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}
int IpairsStep(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);  // (scripts may call it on anything)
  const int i = luaL_checkint(L, 2) + 1;
  ResolveProxy(L, 1);
  lua_pushinteger(L, i);
  lua_rawgeti(L, 1, i);
  return lua_isnil(L, -1) ? 0 : 2;
}
int SafeIpairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushcfunction(L, IpairsStep);
  lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

// A built-in that writes the table it is given (rawset, setmetatable,
// table.insert, ...), refusing the read-only ones; the original function
// is upvalue 1.
int Guarded(lua_State* L) {
  if (IsReadOnly(L, 1)) {
    lua_pushstring(L, kReadOnlyError);  // without a position, as Redis's
    return lua_error(L);
  }
  return script_lua::CallOriginal(L);
}

constexpr const char* kBinaryChunkError = "loading Lua bytecode is not allowed";

// Compiles the chunk on top of the stack (replacing it by the function, or
// by nil and the error, as loadstring answers), refusing bytecode.
int LoadChunk(lua_State* L, const char* chunk_name) {
  size_t size;
  const char* chunk = lua_tolstring(L, -1, &size);
  if (IsBinaryChunk(chunk, size)) {
    lua_pushnil(L);
    lua_pushstring(L, kBinaryChunkError);
    return 2;
  }
  if (luaL_loadbuffer(L, chunk, size, chunk_name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);  // nil, message
  return 2;
}

// loadstring(string [, chunkname])
int SafeLoadString(lua_State* L) {
  const char* chunk = luaL_checkstring(L, 1);
  const char* name = luaL_optstring(L, 2, chunk);
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  return LoadChunk(L, name);
}

// load(function [, chunkname]): the pieces the function returns, joined,
// then compiled as loadstring would.
int SafeLoad(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* name = luaL_optstring(L, 2, "=(load)");
  lua_settop(L, 2);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1) || (lua_isstring(L, -1) && lua_objlen(L, -1) == 0)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  return LoadChunk(L, name);
}

void OpenLibrary(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);
  if (lua_istable(L, -1) && name[0] != '\0') {
    lua_setglobal(L, name);
  } else {
    lua_pop(L, 1);
  }
}

}  // namespace

int NonexistentGlobal(lua_State* L, const char* name) {
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name);
}

void PushReadOnlyProxy(lua_State* L, int index) { PushProxy(L, index); }

void PushStrictReadOnlyProxy(lua_State* L, int index) {
  lua_pushvalue(L, index);
  lua_pushcclosure(L, GlobalLookup, 1);
  PushReadOnlyEnvironment(L);
}

void PushHiddenGlobals(lua_State* L) {
  PushRegistry(L, &kHiddenGlobals);
}

void PushReadOnlyEnvironment(lua_State* L) {
  lua_newtable(L);  // the environment
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadOnlyError);
  lua_setfield(L, -2, "__newindex");
  HideMetatable(L, -1);
  lua_setmetatable(L, -2);
  MarkReadOnly(L, -1);
  lua_remove(L, -2);  // the lookup
}

bool IsBinaryChunk(const char* body, size_t size) {
  return size > 0 && body[0] == LUA_SIGNATURE[0];
}

void Build(lua_State* L, void (*add_globals)(lua_State* L)) {
  for (const char* weak_keyed : {&kReadOnlyTables, &kProxyTargets}) {
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    script_lua::SetRegistry(L, weak_keyed);
  }

  OpenLibrary(L, luaopen_base, "");  // also coroutine
  OpenLibrary(L, luaopen_table, LUA_TABLIBNAME);
  OpenLibrary(L, luaopen_string, LUA_STRLIBNAME);
  OpenLibrary(L, luaopen_math, LUA_MATHLIBNAME);
  OpenLibrary(L, luaopen_cjson, "cjson");
  OpenLibrary(L, luaopen_bit, "bit");
  OpenLibrary(L, script_libraries::OpenMsgpack, "cmsgpack");
  OpenLibrary(L, script_libraries::OpenStruct, "struct");
  add_globals(L);
  script_library_guards::Install(L);
  for (const char* unsafe : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setglobal(L, unsafe);
  }
  lua_pushcfunction(L, SafeLoadString);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, SafeLoad);
  lua_setglobal(L, "load");
  const luaL_Reg iterators[] = {{"next", SafeNext}, {"pairs", SafePairs}, {"ipairs", SafeIpairs}};
  for (const luaL_Reg& f : iterators) {
    lua_pushcfunction(L, f.func);
    lua_setglobal(L, f.name);
  }
  script_lua::WrapField(L, LUA_GLOBALSINDEX, "rawset", Guarded);
  script_lua::WrapField(L, LUA_GLOBALSINDEX, "setmetatable", Guarded);
  lua_getglobal(L, LUA_TABLIBNAME);
  for (const char* writer : {"insert", "remove", "sort"}) script_lua::WrapField(L, -1, writer, Guarded);
  lua_pop(L, 1);

  // Every global table but _G becomes a read-only proxy of itself.
  lua_pushnil(L);
  while (lua_next(L, LUA_GLOBALSINDEX) != 0) {
    if (lua_istable(L, -1) && !lua_rawequal(L, -1, LUA_GLOBALSINDEX)) {
      PushProxy(L, -1);
      lua_pushvalue(L, -3);  // the key
      lua_insert(L, -2);
      lua_rawset(L, LUA_GLOBALSINDEX);  // an existing field: lua_next goes on
    }
    lua_pop(L, 1);
  }

  // Strings' methods are the string library's, through its proxy.
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_setfield(L, -2, "__index");
  HideMetatable(L, -1);
  lua_pop(L, 2);

  // The globals scripts see: an empty read-only table whose reads go to
  // the real ones (this table, from here on hidden), an unknown name being
  // an error, and whose _G is itself.
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  lua_pushcclosure(L, GlobalLookup, 1);
  PushReadOnlyEnvironment(L);  // what scripts see
  RecordProxy(L, -1, LUA_GLOBALSINDEX);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_GLOBALSINDEX, "_G");
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  script_lua::SetRegistry(L, &kHiddenGlobals);
  lua_pushvalue(L, -1);
  script_lua::SetRegistry(L, &kGlobals);
  lua_replace(L, LUA_GLOBALSINDEX);
}

void SetGlobal(lua_State* L, const char* name) {
  PushRegistry(L, &kHiddenGlobals);
  lua_pushstring(L, name);
  lua_pushvalue(L, -3);
  lua_rawset(L, -3);
  lua_pop(L, 2);
}

void RestoreGlobals(lua_State* L) {
  PushRegistry(L, &kGlobals);
  lua_replace(L, LUA_GLOBALSINDEX);
}

void RestoreCollector(lua_State* L) {
  lua_gc(L, LUA_GCRESTART, 0);
  lua_gc(L, LUA_GCSETPAUSE, 200);   // LUAI_GCPAUSE
  lua_gc(L, LUA_GCSETSTEPMUL, 200);  // LUAI_GCMUL
}

void SetEnvironment(lua_State* L, int index) {
  index = AbsoluteIndex(L, index);
  PushRegistry(L, &kGlobals);
  lua_setfenv(L, index);
}

}  // namespace teksdb::server::script_sandbox
