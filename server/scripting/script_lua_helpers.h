// Small helpers the scripting files share over Lua's C API: registry slots
// keyed by the address of a static char, wrapping a library function in a
// guard closure over the original, and reading errors.
//
// Thread safety: as the lua_State.
#pragma once

extern "C" {
#include <lua.h>
}

namespace teksdb::server::script_lua {

// A stack index that stays valid as the stack grows (pseudo-indices as
// they are).
inline int AbsoluteIndex(lua_State* L, int index) {
  return index > 0 || index <= LUA_REGISTRYINDEX ? index : lua_gettop(L) + index + 1;
}

// The registry slot keyed by `key`'s address, pushed.
inline void PushRegistry(lua_State* L, const char* key) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_rawget(L, LUA_REGISTRYINDEX);
}
// Pops the value on top into the registry slot keyed by `key`'s address.
inline void SetRegistry(lua_State* L, const char* key) {
  lua_pushlightuserdata(L, const_cast<char*>(key));
  lua_insert(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
}

// Replaces field `name` of the table at `table` by `guard`, a closure whose
// upvalue 1 is the original function.
inline void WrapField(lua_State* L, int table, const char* name, lua_CFunction guard) {
  table = AbsoluteIndex(L, table);
  lua_getfield(L, table, name);
  lua_pushcclosure(L, guard, 1);
  lua_setfield(L, table, name);
}
// For such a guard: calls the original with the arguments as they are and
// returns its results.
inline int CallOriginal(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// The error a failed lua_cpcall left on top (Lua's C++ build leaves none
// for an exception of ours).
inline const char* ErrorText(lua_State* L) {
  const char* text = lua_tostring(L, -1);
  return text != nullptr ? text : "unknown error";
}
// The `err` string of the error table ({err = "CODE message"}) on top, or
// null when the value on top is not one. (The string stays alive while the
// table is on the stack.)
inline const char* ErrorTableMessage(lua_State* L) {
  if (!lua_istable(L, -1)) return nullptr;
  lua_pushstring(L, "err");
  lua_rawget(L, -2);
  const char* message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
  lua_pop(L, 1);
  return message;
}

}  // namespace teksdb::server::script_lua
