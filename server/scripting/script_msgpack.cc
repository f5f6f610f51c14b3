// cmsgpack for scripts (script_libraries.h): MessagePack encoding of Lua
// values as lua-cmsgpack 0.4.0 chooses it (the smallest integer format;
// float32 when a double survives the round trip, else float64; str8/16/32;
// a table is an array when its keys are exactly 1..n, else a map; tables
// nested deeper than kMaxNesting encode as nil), and decoding of every
// MessagePack type but the extension types.
#include "script_libraries.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <algorithm>

namespace teksdb::server::script_libraries {
namespace {

// lua-cmsgpack's LUACMSGPACK_MAX_NESTING: deeper tables encode as nil.
constexpr int kMaxNesting = 16;
// Packing stops past this many bytes (its buffer is outside the Lua heap's
// cap: a table holding one big string many times must not exhaust memory).
constexpr size_t kMaxPackedBytes = size_t{512} << 20;
// Decoding nests no deeper than this (a crafted input must not exhaust
// the C stack); past it the input is refused as badly formatted.
constexpr int kMaxDecodeNesting = 1000;

void AppendBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

void EncodeInteger(std::string* out, int64_t n) {
  if (n >= 0) {
    const uint64_t u = static_cast<uint64_t>(n);
    if (u <= 127) return out->push_back(static_cast<char>(u));
    if (u <= 0xff) return out->push_back('\xcc'), AppendBigEndian(out, u, 1);
    if (u <= 0xffff) return out->push_back('\xcd'), AppendBigEndian(out, u, 2);
    if (u <= 0xffffffffULL) return out->push_back('\xce'), AppendBigEndian(out, u, 4);
    return out->push_back('\xcf'), AppendBigEndian(out, u, 8);
  }
  const uint64_t bits = static_cast<uint64_t>(n);
  if (n >= -32) return out->push_back(static_cast<char>(bits & 0xff));
  if (n >= -128) return out->push_back('\xd0'), AppendBigEndian(out, bits, 1);
  if (n >= -32768) return out->push_back('\xd1'), AppendBigEndian(out, bits, 2);
  if (n >= -2147483648LL) return out->push_back('\xd2'), AppendBigEndian(out, bits, 4);
  out->push_back('\xd3');
  AppendBigEndian(out, bits, 8);
}

void EncodeNumber(std::string* out, double d) {
  if (!std::isinf(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
      static_cast<double>(static_cast<int64_t>(d)) == d) {
    return EncodeInteger(out, static_cast<int64_t>(d));
  }
  const float f = static_cast<float>(d);
  if (static_cast<double>(f) == d) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    out->push_back('\xca');
    return AppendBigEndian(out, bits, 4);
  }
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  out->push_back('\xcb');
  AppendBigEndian(out, bits, 8);
}

void EncodeString(std::string* out, const char* s, size_t len) {
  if (len < 32) {
    out->push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    out->push_back('\xd9');
    AppendBigEndian(out, len, 1);
  } else if (len <= 0xffff) {
    out->push_back('\xda');
    AppendBigEndian(out, len, 2);
  } else {
    out->push_back('\xdb');
    AppendBigEndian(out, len, 4);
  }
  out->append(s, len);
}

// A header of `n` items: fix (n <= 15) or 16-bit or 32-bit.
void EncodeHeader(std::string* out, size_t n, uint8_t fix, uint8_t wide16, uint8_t wide32) {
  if (n <= 15) return out->push_back(static_cast<char>(fix | n));
  if (n <= 0xffff) return out->push_back(static_cast<char>(wide16)), AppendBigEndian(out, n, 2);
  out->push_back(static_cast<char>(wide32));
  AppendBigEndian(out, n, 4);
}

// Whether the table on top has exactly the keys 1..n (its n in *n).
bool IsArray(lua_State* L, size_t* n) {
  size_t count = 0;
  double max = 0;
  for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) {
    if (lua_type(L, -2) != LUA_TNUMBER) {
      lua_pop(L, 2);
      return false;
    }
    const double k = lua_tonumber(L, -2);
    if (k < 1 || std::floor(k) != k) {
      lua_pop(L, 2);
      return false;
    }
    max = std::max(max, k);
    ++count;
  }
  *n = count;
  return max == static_cast<double>(count);
}

void Encode(lua_State* L, std::string* out, int level) {
  luaL_checkstack(L, 4, "cmsgpack: nested too deeply");
  if (out->size() > kMaxPackedBytes) luaL_error(L, "cmsgpack: packed value larger than 512 MiB");
  int type = lua_type(L, -1);
  if (type == LUA_TTABLE && level == kMaxNesting) type = LUA_TNIL;
  switch (type) {
    case LUA_TBOOLEAN:
      return out->push_back(lua_toboolean(L, -1) ? '\xc3' : '\xc2');
    case LUA_TNUMBER:
      return EncodeNumber(out, lua_tonumber(L, -1));
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, -1, &len);
      if (len > kMaxPackedBytes - std::min(out->size(), kMaxPackedBytes)) {
        luaL_error(L, "cmsgpack: packed value larger than 512 MiB");
      }
      return EncodeString(out, s, len);
    }
    case LUA_TTABLE: {
      size_t n;
      if (IsArray(L, &n)) {
        EncodeHeader(out, n, 0x90, 0xdc, 0xdd);
        for (size_t i = 1; i <= n; ++i) {
          lua_rawgeti(L, -1, static_cast<int>(i));
          Encode(L, out, level + 1);
          lua_pop(L, 1);
        }
        return;
      }
      size_t pairs = 0;
      for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) ++pairs;
      EncodeHeader(out, pairs, 0x80, 0xde, 0xdf);
      for (lua_pushnil(L); lua_next(L, -2) != 0; lua_pop(L, 1)) {
        lua_pushvalue(L, -2);
        Encode(L, out, level + 1);  // the key
        lua_pop(L, 1);
        Encode(L, out, level + 1);  // the value
      }
      return;
    }
    default:
      return out->push_back('\xc0');
  }
}

int Pack(lua_State* L) {
  const int n = lua_gettop(L);
  if (n == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  std::string out;
  for (int i = 1; i <= n; ++i) {
    lua_pushvalue(L, i);
    Encode(L, &out, 0);
    lua_pop(L, 1);
  }
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// A decoding cursor over untrusted input.
struct Cursor {
  const unsigned char* p;
  size_t left;
  enum { kOk, kEof, kBadFormat } error = kOk;

  bool Need(size_t n) {
    if (left >= n) return true;
    error = kEof;
    return false;
  }
  uint64_t BigEndian(int bytes) {  // REQUIRES: Need(1 + bytes) passed
    uint64_t v = 0;
    for (int i = 1; i <= bytes; ++i) v = (v << 8) | p[i];
    return v;
  }
  void Skip(size_t n) {
    p += n;
    left -= n;
  }
};

void Decode(lua_State* L, Cursor* c, int depth);

// `count` items (or pairs) of an array or map after a header of `header`
// bytes.
void DecodeAggregate(lua_State* L, Cursor* c, size_t header, uint64_t count, bool map, int depth) {
  c->Skip(header);
  if (depth >= kMaxDecodeNesting) {
    c->error = Cursor::kBadFormat;
    return;
  }
  lua_newtable(L);
  for (uint64_t i = 1; i <= count && c->error == Cursor::kOk; ++i) {
    if (map) {
      Decode(L, c, depth + 1);
      if (c->error != Cursor::kOk) break;
    } else {
      lua_pushnumber(L, static_cast<lua_Number>(i));
    }
    Decode(L, c, depth + 1);
    if (c->error != Cursor::kOk) break;  // (the caller raises; the stack goes)
    lua_settable(L, -3);
  }
}

void DecodeString(lua_State* L, Cursor* c, size_t header, uint64_t len) {
  if (!c->Need(header + len)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(c->p + header), len);
  c->Skip(header + len);
}

void Decode(lua_State* L, Cursor* c, int depth) {
  luaL_checkstack(L, 4, "cmsgpack: nested too deeply");
  if (!c->Need(1)) return;
  const unsigned char b = c->p[0];
  auto integer = [&](int bytes, bool is_signed) {
    if (!c->Need(1 + bytes)) return;
    const uint64_t u = c->BigEndian(bytes);
    if (is_signed) {
      const int bits = 8 * bytes;
      const int64_t v = bits == 64 ? static_cast<int64_t>(u)
                                   : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);
      lua_pushnumber(L, static_cast<lua_Number>(v));
    } else {
      lua_pushnumber(L, static_cast<lua_Number>(u));
    }
    c->Skip(1 + bytes);
  };
  if (b <= 0x7f) {
    lua_pushnumber(L, b);
    return c->Skip(1);
  }
  if (b >= 0xe0) {
    lua_pushnumber(L, static_cast<int8_t>(b));
    return c->Skip(1);
  }
  if ((b & 0xe0) == 0xa0) return DecodeString(L, c, 1, b & 0x1f);
  if ((b & 0xf0) == 0x90) return DecodeAggregate(L, c, 1, b & 0x0f, false, depth);
  if ((b & 0xf0) == 0x80) return DecodeAggregate(L, c, 1, b & 0x0f, true, depth);
  switch (b) {
    case 0xc0: lua_pushnil(L); return c->Skip(1);
    case 0xc2: lua_pushboolean(L, 0); return c->Skip(1);
    case 0xc3: lua_pushboolean(L, 1); return c->Skip(1);
    case 0xcc: return integer(1, false);
    case 0xcd: return integer(2, false);
    case 0xce: return integer(4, false);
    case 0xcf: return integer(8, false);
    case 0xd0: return integer(1, true);
    case 0xd1: return integer(2, true);
    case 0xd2: return integer(4, true);
    case 0xd3: return integer(8, true);
    case 0xca: {
      if (!c->Need(5)) return;
      const uint32_t bits = static_cast<uint32_t>(c->BigEndian(4));
      float f;
      std::memcpy(&f, &bits, sizeof f);
      lua_pushnumber(L, f);
      return c->Skip(5);
    }
    case 0xcb: {
      if (!c->Need(9)) return;
      const uint64_t bits = c->BigEndian(8);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      lua_pushnumber(L, d);
      return c->Skip(9);
    }
    case 0xc4: case 0xd9:
      if (!c->Need(2)) return;
      return DecodeString(L, c, 2, c->BigEndian(1));
    case 0xc5: case 0xda:
      if (!c->Need(3)) return;
      return DecodeString(L, c, 3, c->BigEndian(2));
    case 0xc6: case 0xdb:
      if (!c->Need(5)) return;
      return DecodeString(L, c, 5, c->BigEndian(4));
    case 0xdc:
      if (!c->Need(3)) return;
      return DecodeAggregate(L, c, 3, c->BigEndian(2), false, depth);
    case 0xdd:
      if (!c->Need(5)) return;
      return DecodeAggregate(L, c, 5, c->BigEndian(4), false, depth);
    case 0xde:
      if (!c->Need(3)) return;
      return DecodeAggregate(L, c, 3, c->BigEndian(2), true, depth);
    case 0xdf:
      if (!c->Need(5)) return;
      return DecodeAggregate(L, c, 5, c->BigEndian(4), true, depth);
    default:  // extension types, 0xc1
      c->error = Cursor::kBadFormat;
  }
}

// unpack (limit 0, offset 0: every value), unpack_one, unpack_limit, as
// lua-cmsgpack's mp_unpack_full answers them.
int UnpackFull(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  const bool all = limit == 0 && offset == 0;
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<size_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  if (all) limit = std::numeric_limits<int>::max();
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset)};
  int count = 0;
  for (; c.left > 0 && count < limit; ++count) {
    Decode(L, &c, 0);
    if (c.error == Cursor::kEof) return luaL_error(L, "Missing bytes in input.");
    if (c.error == Cursor::kBadFormat) return luaL_error(L, "Bad data format in input.");
  }
  if (!all) {
    lua_pushinteger(L, c.left == 0 ? -1 : static_cast<lua_Integer>(len - c.left));
    lua_insert(L, 2);
    ++count;
  }
  return count;
}

int Unpack(lua_State* L) { return UnpackFull(L, 0, 0); }
int UnpackOne(lua_State* L) {
  const lua_Integer offset = luaL_optinteger(L, 2, 0);
  lua_settop(L, 1);
  return UnpackFull(L, 1, offset);
}
int UnpackLimit(lua_State* L) {
  const lua_Integer limit = luaL_checkinteger(L, 2);
  const lua_Integer offset = luaL_optinteger(L, 3, 0);
  lua_settop(L, 1);
  return UnpackFull(L, limit, offset);
}

}  // namespace

int OpenMsgpack(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {{"pack", Pack},
                                {"unpack", Unpack},
                                {"unpack_one", UnpackOne},
                                {"unpack_limit", UnpackLimit},
                                {nullptr, nullptr}};
  luaL_register(L, nullptr, functions);
  const std::pair<const char*, const char*> fields[] = {
      {"_NAME", "cmsgpack"},
      {"_VERSION", "lua-cmsgpack 0.4.0"},
      {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
      {"_DESCRIPTION", "MessagePack C implementation for Lua"}};
  for (const auto& [name, value] : fields) {
    lua_pushstring(L, value);
    lua_setfield(L, -2, name);
  }
  return 1;
}

}  // namespace teksdb::server::script_libraries
