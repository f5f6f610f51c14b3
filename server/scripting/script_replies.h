// Between Redis replies and Lua values, as Redis 7.0's script_lua.c
// converts them: a command's reply (RESP2, or RESP3 after
// redis.setresp(3)) into the Lua value redis.call returns, and a
// script's result into the reply its client gets.
//
// Reply to Lua: integer -> number; bulk -> string; RESP2 null -> false,
// RESP3 null -> nil; status -> {ok=...}; error -> {err=...}; array ->
// table; and in RESP3: map -> {map={k=v}}, set -> {set={m=true}}, double
// -> {double=n}, boolean -> true/false, big number -> {big_number=s},
// verbatim -> {verbatim_string={format=f, string=s}}.
//
// Lua to reply: string -> bulk; number -> integer (truncated, as Redis
// casts it); boolean -> 1 / null in RESP2 scripts, a boolean after
// setresp(3); a table by its raw fields (metamethods are never called):
// err, ok, double, big_number, verbatim_string, map, set, else an array
// of its items 1.. up to the first nil; anything else -> null.
//
// Thread safety: as the lua_State (the engine's mutex). Lua errors
// (memory) may be raised from any of these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

struct lua_State;

namespace teksdb::server::script_replies {

// Pushes the reply at text[*pos], moving *pos past it; *error: it was an
// error reply.
void PushReply(lua_State* L, std::string_view text, size_t* pos, bool* error);

// Appends the value on top of the stack as a reply in `protocol` (the
// client's), the script having spoken `script_resp` (redis.setresp).
void AppendValue(lua_State* L, std::string* out, int protocol, int script_resp);

// Pushes Redis's error table for `error` as redis.error_reply and the
// library's own errors make it ({err = "CODE message"}): a leading '-' is
// dropped, and a message without a code gets "ERR".
void PushErrorTable(lua_State* L, std::string_view error);
// Pushes {field = text}.
void PushSingleFieldTable(lua_State* L, const char* field, std::string_view text);

// A Lua number as a command argument: "%.17g", as Redis formats it (Lua's
// own tostring keeps 14 digits).
std::string NumberArgument(double number);

}  // namespace teksdb::server::script_replies
