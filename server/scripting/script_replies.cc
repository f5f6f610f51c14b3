// The conversions of script_replies.h.
#include "script_replies.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "resp_reply.h"

namespace teksdb::server::script_replies {
namespace {

// Deeper tables are cut with an error in place (a table holding itself).
constexpr int kMaxDepth = 1000;

// The line at text[*pos] (after its type byte), *pos moved past it.
// (The reply is this server's own, so well formed; a cut one ends at the
// text's end rather than past it.)
std::string_view Line(std::string_view text, size_t* pos) {
  const size_t end = std::min(text.find("\r\n", *pos), text.size());
  const std::string_view line = text.substr(*pos + 1, end - std::min(end, *pos + 1));
  *pos = std::min(end + 2, text.size());
  return line;
}

long long Count(std::string_view line) { return std::strtoll(std::string(line).c_str(), nullptr, 10); }

// The bulk payload of `length` bytes at text[*pos].
std::string_view Payload(std::string_view text, size_t* pos, long long length) {
  const std::string_view payload = text.substr(*pos, static_cast<size_t>(length));
  *pos = std::min(*pos + payload.size() + 2, text.size());
  return payload;
}

void PushString(lua_State* L, std::string_view s) { lua_pushlstring(L, s.data(), s.size()); }

// A Lua number as the integer reply Redis gives: (long long) of the
// double, which on x86-64 is LLONG_MIN for NaN and out-of-range values.
int64_t Truncated(double number) {
  if (!(number >= -9223372036854775808.0 && number < 9223372036854775808.0)) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(number);
}

void AppendDouble(std::string* out, int protocol, double d) {
  if (std::isinf(d)) return reply::Double(out, protocol, d > 0 ? "inf" : "-inf");
  char text[64];
  const int n = std::snprintf(text, sizeof text, "%.17g", d);
  reply::Double(out, protocol, std::string_view(text, static_cast<size_t>(n)));
}

// Raw field `name` of the table on top, pushed.
void RawField(lua_State* L, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, -2);
}

void Append(lua_State* L, std::string* out, int protocol, int script_resp, int depth);

// The table on top as map / set / array replies.
void AppendMap(lua_State* L, std::string* out, int protocol, int script_resp, int depth) {
  size_t pairs = 0;
  for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) ++pairs;
  reply::MapHeader(out, protocol, pairs);
  for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) {
    lua_pushvalue(L, -2);
    Append(L, out, protocol, script_resp, depth + 1);  // the key
    lua_pop(L, 1);
    Append(L, out, protocol, script_resp, depth + 1);  // the value
  }
}
void AppendSet(lua_State* L, std::string* out, int protocol, int script_resp, int depth) {
  size_t members = 0;
  for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) ++members;
  reply::SetHeader(out, protocol, members);
  for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) {
    lua_pushvalue(L, -2);
    Append(L, out, protocol, script_resp, depth + 1);
    lua_pop(L, 1);
  }
}
void AppendArray(lua_State* L, std::string* out, int protocol, int script_resp, int depth) {
  size_t n = 0;
  for (;; ++n) {
    lua_rawgeti(L, -1, static_cast<int>(n + 1));
    const bool end = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (end) break;
  }
  reply::ArrayHeader(out, n);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, -1, static_cast<int>(i));
    Append(L, out, protocol, script_resp, depth + 1);
    lua_pop(L, 1);
  }
}

void AppendTable(lua_State* L, std::string* out, int protocol, int script_resp, int depth) {
  if (depth > kMaxDepth || !lua_checkstack(L, 8)) {
    return reply::Error(out, "ERR reached lua stack limit");
  }
  RawField(L, "err");
  if (lua_type(L, -1) == LUA_TSTRING) {
    size_t len;
    const char* error = lua_tolstring(L, -1, &len);
    reply::Error(out, std::string_view(error, len));
    return lua_pop(L, 1);
  }
  lua_pop(L, 1);
  RawField(L, "ok");
  if (lua_type(L, -1) == LUA_TSTRING) {
    size_t len;
    const char* status = lua_tolstring(L, -1, &len);
    reply::Simple(out, std::string_view(status, len));
    return lua_pop(L, 1);
  }
  lua_pop(L, 1);
  RawField(L, "double");
  if (lua_type(L, -1) == LUA_TNUMBER) {
    AppendDouble(out, protocol, lua_tonumber(L, -1));
    return lua_pop(L, 1);
  }
  lua_pop(L, 1);
  RawField(L, "big_number");
  if (lua_type(L, -1) == LUA_TSTRING) {
    size_t len;
    // CRs and LFs as spaces, as Redis sends them, in either protocol.
    const char* text = lua_tolstring(L, -1, &len);
    std::string digits(text, len);
    for (char& c : digits) c = c == '\r' || c == '\n' ? ' ' : c;
    if (protocol == 3) {
      out->append("(" + digits + "\r\n");
    } else {
      reply::Bulk(out, digits);
    }
    return lua_pop(L, 1);
  }
  lua_pop(L, 1);
  RawField(L, "verbatim_string");
  if (lua_type(L, -1) == LUA_TTABLE) {
    RawField(L, "format");
    lua_pushstring(L, "string");
    lua_rawget(L, -3);  // (from the table, below the format)
    lua_remove(L, -3);  // format, string
    if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
      size_t format_len, len;
      const char* format = lua_tolstring(L, -2, &format_len);
      const char* text = lua_tolstring(L, -1, &len);
      if (protocol == 3 && format_len == 3) {
        out->push_back('=');
        out->append(std::to_string(len + 4) + "\r\n");
        out->append(format, 3).push_back(':');
        out->append(text, len).append("\r\n");
      } else {
        reply::Bulk(out, std::string_view(text, len));
      }
      return lua_pop(L, 2);
    }
    lua_pop(L, 2);
  } else {
    lua_pop(L, 1);
  }
  for (const char* aggregate : {"map", "set"}) {
    RawField(L, aggregate);
    if (lua_type(L, -1) == LUA_TTABLE) {
      aggregate[0] == 'm' ? AppendMap(L, out, protocol, script_resp, depth)
                          : AppendSet(L, out, protocol, script_resp, depth);
      return lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  AppendArray(L, out, protocol, script_resp, depth);
}

void Append(lua_State* L, std::string* out, int protocol, int script_resp, int depth) {
  switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      return reply::Bulk(out, std::string_view(s, len));
    }
    case LUA_TBOOLEAN: {
      const bool value = lua_toboolean(L, -1) != 0;
      if (script_resp == 2) return value ? reply::Integer(out, 1) : reply::Null(out, protocol);
      if (protocol == 2) return reply::Integer(out, value ? 1 : 0);
      out->append(value ? "#t\r\n" : "#f\r\n");
      return;
    }
    case LUA_TNUMBER:
      return reply::Integer(out, Truncated(lua_tonumber(L, -1)));
    case LUA_TTABLE:
      return AppendTable(L, out, protocol, script_resp, depth);
    default:  // nil, functions, ...
      return reply::Null(out, protocol);
  }
}

}  // namespace

void PushSingleFieldTable(lua_State* L, const char* field, std::string_view text) {
  lua_createtable(L, 0, 1);
  lua_pushstring(L, field);
  PushString(L, text);
  lua_rawset(L, -3);
}

void PushErrorTable(lua_State* L, std::string_view error) {
  std::string_view code = "ERR", message = error;
  if (!error.empty() && error[0] == '-') {
    const size_t space = error.find(' ');
    if (space == std::string_view::npos) {
      message = error.substr(1);
    } else {
      code = error.substr(1, space - 1);
      message = error.substr(space + 1);
    }
  }
  while (!message.empty() && (message.front() == '\r' || message.front() == '\n')) {
    message.remove_prefix(1);
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) {
    message.remove_suffix(1);
  }
  std::string text(code);
  text.push_back(' ');
  text.append(message);
  PushSingleFieldTable(L, "err", text);
}

void PushReply(lua_State* L, std::string_view text, size_t* pos, bool* error) {
  luaL_checkstack(L, 4, "reply too deeply nested");
  if (*pos >= text.size()) return lua_pushnil(L);
  const char kind = text[*pos];
  const std::string_view line = Line(text, pos);
  switch (kind) {
    case '|': {  // RESP3 attributes: left out, as Redis's scripts get them
      const long long pairs = Count(line);
      for (long long i = 0; i < 2 * pairs && *pos < text.size(); ++i) {
        bool inner_error = false;
        PushReply(L, text, pos, &inner_error);
        lua_pop(L, 1);
      }
      return PushReply(L, text, pos, error);
    }
    case ':':
      return lua_pushnumber(L, static_cast<lua_Number>(Count(line)));
    case '+':
      return PushSingleFieldTable(L, "ok", line);
    case '-':
      *error = true;
      return PushErrorTable(L, "-" + std::string(line));
    case '$':
    case '=': {
      const long long n = Count(line);
      if (n < 0) return lua_pushboolean(L, 0);
      const std::string_view payload = Payload(text, pos, n);
      if (kind == '$' || payload.size() < 4) return PushString(L, payload);
      lua_createtable(L, 0, 1);
      lua_pushstring(L, "verbatim_string");
      lua_createtable(L, 0, 2);
      PushString(L, payload.substr(0, 3));
      lua_setfield(L, -2, "format");
      PushString(L, payload.substr(4));
      lua_setfield(L, -2, "string");
      return lua_rawset(L, -3);
    }
    case '_':
      return lua_pushnil(L);
    case '#':
      return lua_pushboolean(L, line == "t");
    case ',':
      lua_createtable(L, 0, 1);
      lua_pushstring(L, "double");
      lua_pushnumber(L, std::strtod(std::string(line).c_str(), nullptr));
      return lua_rawset(L, -3);
    case '(':
      return PushSingleFieldTable(L, "big_number", line);
    case '%':
    case '~': {
      const long long n = Count(line);
      lua_createtable(L, 0, 1);
      lua_pushstring(L, kind == '%' ? "map" : "set");
      lua_createtable(L, 0, static_cast<int>(std::min<long long>(n, 1024)));
      for (long long i = 0; i < n && *pos < text.size(); ++i) {
        bool inner_error = false;
        PushReply(L, text, pos, &inner_error);
        if (kind == '%') {
          PushReply(L, text, pos, &inner_error);
        } else {
          lua_pushboolean(L, 1);
        }
        lua_rawset(L, -3);
      }
      return lua_rawset(L, -3);
    }
    default: {  // '*' (and '>')
      const long long n = Count(line);
      if (n < 0) return lua_pushboolean(L, 0);
      lua_createtable(L, static_cast<int>(std::min<long long>(n, 1024)), 0);
      for (long long i = 1; i <= n && *pos < text.size(); ++i) {
        bool inner_error = false;
        PushReply(L, text, pos, &inner_error);
        lua_rawseti(L, -2, static_cast<int>(i));
      }
      return;
    }
  }
}

void AppendValue(lua_State* L, std::string* out, int protocol, int script_resp) {
  Append(L, out, protocol, script_resp, 0);
}

std::string NumberArgument(double number) {
  char text[64];
  const int n = std::snprintf(text, sizeof text, "%.17g", number);
  return std::string(text, static_cast<size_t>(n));
}

}  // namespace teksdb::server::script_replies
