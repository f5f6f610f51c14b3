// The two libraries Redis gives scripts that Debian has no Lua 5.1 package
// for, written here after their documented behaviour and checked against
// redis-server 7.0's answers (tests/server/server_redis_differential_test.py):
//   - cmsgpack (script_msgpack.cc): MessagePack, as lua-cmsgpack 0.4.0:
//     pack(...), unpack(s), unpack_one(s [, offset]),
//     unpack_limit(s, limit [, offset]);
//   - struct (script_struct.cc): binary packing, as Roberto Ierusalimschy's
//     struct library: pack(fmt, ...), unpack(fmt, s [, pos]), size(fmt).
// Each open function pushes its library's table (lua_CFunction style).
//
// Input is untrusted: every read is bounds-checked, nesting is bounded,
// and errors are Lua errors.
//
// Thread safety: as the lua_State.
#pragma once

struct lua_State;

namespace teksdb::server::script_libraries {

int OpenMsgpack(lua_State* L);
int OpenStruct(lua_State* L);

}  // namespace teksdb::server::script_libraries
