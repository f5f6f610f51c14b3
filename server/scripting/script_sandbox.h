// The sandbox scripts run in: the globals of the Lua state, as Redis 7.0
// sets them up, made read-only with stock Lua 5.1 (Redis patches its Lua
// with a read-only table flag; Debian's has none).
//
// What a script finds: Lua's base library without print, dofile,
// loadfile, getfenv, setfenv and newproxy (as Debian's Redis 7.0); the
// table, string, math and coroutine libraries; cjson and bit (Debian's
// lua-cjson and lua-bitop, the libraries Redis embeds), cmsgpack and
// struct (script_libraries.h); redis (which the engine adds). What it cannot do:
//   - write a global, or read one that does not exist (Redis's errors):
//     the globals table is an empty read-only proxy of the real one, which
//     no script can reach;
//   - change a library or the redis table: each global table is a proxy
//     whose writes fail ("Attempt to modify a readonly table"), and the
//     functions that write tables without metamethods (rawset,
//     setmetatable, table.insert, table.remove, table.sort) refuse the
//     read-only ones; getmetatable of a global table, or of a string,
//     answers a read-only proxy too;
//   - load Lua bytecode: loadstring and load refuse binary chunks (Lua
//     5.1's undump trusts its input: CVE-2015-4335), and so does the
//     engine's compiler;
//   - leave anything for later scripts: nothing it can reach is writable
//     but its own tables (and, as in Redis, cjson's settings); the
//     thread's globals and the function's environment are put back before
//     every compile and run all the same.
//
// Thread safety: as the lua_State (the engine's mutex).
#pragma once

#include <cstddef>

struct lua_State;

namespace teksdb::server::script_sandbox {

// The error every write to a read-only table raises.
constexpr const char* kReadOnlyError = "Attempt to modify a readonly table";

// Opens the libraries in `L` (a new state) and seals its globals, after
// calling `add_globals` to set the engine's own (redis) as plain globals.
// Raises Lua errors (memory): call it protected.
void Build(lua_State* L, void (*add_globals)(lua_State* L));

// Before a compile or a run: the thread's globals back to the sandbox's.
void RestoreGlobals(lua_State* L);
// Pops the value on top into global `name` (KEYS, ARGV), past the
// read-only guard.
void SetGlobal(lua_State* L, const char* name);
// Before a run: the garbage collector running, with Lua's default pause
// and step (an earlier script's collectgarbage("stop") or "setpause" must
// not starve later ones of memory).
void RestoreCollector(lua_State* L);
// Sets the environment of the function at `index` to the sandbox's globals.
void SetEnvironment(lua_State* L, int index);

// For the functions' state (script_functions.cc): pushes a new read-only
// proxy of the table at `index`; pushes the hidden table the globals read
// from; pops a lookup function (__index(t, key)) and pushes a new empty
// read-only table that reads through it (a function library's globals).
void PushReadOnlyProxy(lua_State* L, int index);
// The same, reading a name the table lacks being Redis's nonexistent
// global error (as Redis's protected tables answer).
void PushStrictReadOnlyProxy(lua_State* L, int index);
void PushHiddenGlobals(lua_State* L);
void PushReadOnlyEnvironment(lua_State* L);
// Raises Redis's error for reading global `name`, which does not exist.
int NonexistentGlobal(lua_State* L, const char* name);

// Whether `body` is a Lua binary chunk (which must not be loaded).
bool IsBinaryChunk(const char* body, size_t size);

}  // namespace teksdb::server::script_sandbox
