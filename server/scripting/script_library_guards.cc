// The guards of script_library_guards.h.
#include "script_library_guards.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <climits>
#include <initializer_list>

#include "script_lua_helpers.h"

namespace teksdb::server::script_library_guards {
namespace {

using script_lua::CallOriginal;
using script_lua::WrapField;

// unpack(t [, i [, j]]): Lua 5.1's own, with the count checked in 64 bits.
int SafeUnpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  const long long first = luaL_optinteger(L, 2, 1);
  const long long last = lua_isnoneornil(L, 3) ? static_cast<long long>(lua_objlen(L, 1))
                                               : luaL_checkinteger(L, 3);
  if (first > last) return 0;
  const long long n = last - first + 1;
  if (n >= INT_MAX || !lua_checkstack(L, static_cast<int>(n))) {
    return luaL_error(L, "too many results to unpack");
  }
  for (long long i = first; i <= last; ++i) lua_rawgeti(L, 1, static_cast<int>(i));
  return static_cast<int>(n);
}

int SafeToHex(lua_State* L) {
  if (lua_gettop(L) >= 2 && lua_isnumber(L, 2)) {
    const lua_Number n = lua_tonumber(L, 2);
    lua_pushnumber(L, n < -8 ? -8 : (n > 8 ? 8 : n));
    lua_replace(L, 2);
  }
  return CallOriginal(L);
}

// An upper bound of the JSON text of the value on top, up to `budget`
// bytes (then it stops); depth is bounded as cjson bounds it.
size_t JsonBound(lua_State* L, size_t budget, int depth) {
  constexpr int kMaxDepth = 1000;
  switch (lua_type(L, -1)) {
    case LUA_TSTRING:
      return 6 * lua_objlen(L, -1) + 2;  // every byte escaped at worst: \u00XX
    case LUA_TTABLE: {
      if (depth > kMaxDepth || !lua_checkstack(L, 3)) return budget + 1;  // cjson refuses it too
      // (Counted as 64 bytes, more than "{}": a value that shares one
      // table many times is refused after a few million visits.)
      size_t total = 64;
      for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) {
        total += JsonBound(L, budget - total, depth + 1);  // the value
        if (total <= budget) {
          lua_pushvalue(L, -2);
          total += JsonBound(L, budget - total, depth + 1) + 2;  // the key
          lua_pop(L, 1);
        }
        if (total > budget) {
          lua_pop(L, 2);
          return total;
        }
      }
      return total;
    }
    default:
      return 32;  // a number, a boolean, null
  }
}

int SafeJsonEncode(lua_State* L) {
  luaL_checkany(L, 1);
  lua_pushvalue(L, 1);
  const size_t bound = JsonBound(L, kMaxJsonBytes, 0);
  lua_pop(L, 1);
  if (bound > kMaxJsonBytes) return luaL_error(L, "cjson.encode: the value would encode to more than 256 MiB");
  return CallOriginal(L);
}

// string.find/match/gmatch/gsub(s, pattern, ...): a plain find needs no
// matcher; every other pattern is bounded.
int SafePattern(lua_State* L) {
  if (lua_type(L, 2) == LUA_TSTRING && lua_objlen(L, 2) > kMaxPatternBytes &&
      !(lua_gettop(L) >= 4 && lua_toboolean(L, 4))) {
    return luaL_error(L, "pattern too complex");
  }
  return CallOriginal(L);
}

}  // namespace

void Install(lua_State* L) {
  lua_pushcfunction(L, SafeUnpack);
  lua_setglobal(L, "unpack");
  lua_getglobal(L, "bit");
  WrapField(L, -1, "tohex", SafeToHex);
  lua_pop(L, 1);
  lua_getglobal(L, "cjson");
  WrapField(L, -1, "encode", SafeJsonEncode);
  lua_pop(L, 1);
  lua_getglobal(L, "string");
  for (const char* matcher : {"find", "match", "gmatch", "gsub"}) WrapField(L, -1, matcher, SafePattern);
  lua_pop(L, 1);
  // Interned for good: a chunk name the parser holds cannot be freed.
  for (const char* name : {"@user_script", "@user_function", "=(load)"}) {
    lua_pushstring(L, name);
    lua_pushboolean(L, 1);
    lua_rawset(L, LUA_REGISTRYINDEX);
  }
}

}  // namespace teksdb::server::script_library_guards
