// struct for scripts (script_libraries.h): binary packing as Roberto
// Ierusalimschy's struct library does it. A format is a string of options:
//   > < (big, little endian; native little by default)   ! [n] (alignment,
//   a power of 2, 8 by default)   x (a zero byte)   b B h H l L T (signed,
//   unsigned char, short, long, size_t: 1 2 8 8 bytes)   i[n] I[n] (an
//   n-byte int, 4 by default, 32 at most)   f d (float, double)
//   s (a zero-terminated string)   c[n] (n bytes; c0: the whole string when
//   packing, the preceding number's length when unpacking)   ' ' (nothing).
// Integers are Lua numbers: beyond 2^53 they lose precision, as there.
#include "script_libraries.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include <cctype>
#include <cstdint>
#include <cstring>
#include <utility>

namespace teksdb::server::script_libraries {
namespace {

constexpr int kMaxIntSize = 32;
constexpr int kMaxAlign = 8;

struct Header {
  bool little = true;  // x86-64's byte order
  int align = 1;
};

// The number after an option (`fallback` without one); bounded, so a
// format cannot ask for an absurd size.
int ReadNumber(const char** fmt, int fallback) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return fallback;
  long n = 0;
  while (std::isdigit(static_cast<unsigned char>(**fmt))) {
    n = n * 10 + (*(*fmt)++ - '0');
    if (n > (1 << 30)) n = 1 << 30;
  }
  return static_cast<int>(n);
}

size_t OptionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B': case 'b': return 1;
    case 'H': case 'h': return 2;
    case 'L': case 'l': case 'T': return 8;
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return static_cast<size_t>(ReadNumber(fmt, 1));
    case 'i': case 'I': {
      const int size = ReadNumber(fmt, 4);
      if (size > kMaxIntSize) luaL_error(L, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      return static_cast<size_t>(size);
    }
    default: return 0;  // the other options need no alignment
  }
}

size_t Padding(size_t len, const Header& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(h.align)) size = static_cast<size_t>(h.align);
  return (size - (len & (size - 1))) & (size - 1);
}

// The options that set the header (or an error for an unknown one).
void ControlOption(lua_State* L, char opt, const char** fmt, Header* h) {
  switch (opt) {
    case ' ': return;
    case '>': h->little = false; return;
    case '<': h->little = true; return;
    case '!': {
      const int align = ReadNumber(fmt, kMaxAlign);
      if (align <= 0 || (align & (align - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", align);
      h->align = align;
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// Copies `size` bytes in the header's order (they are little-endian here).
void Ordered(char* bytes, size_t size, const Header& h) {
  if (h.little) return;
  for (size_t i = 0, j = size - 1; i < j; ++i, --j) std::swap(bytes[i], bytes[j]);
}

// A float or double in the header's byte order.
template <typename Floating>
void AddFloating(luaL_Buffer* b, Floating value, const Header& h) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  Ordered(bytes, sizeof value, h);
  luaL_addlstring(b, bytes, sizeof value);
}
template <typename Floating>
Floating ReadFloating(const char* data, const Header& h) {
  char bytes[sizeof(Floating)];
  std::memcpy(bytes, data, sizeof bytes);
  Ordered(bytes, sizeof bytes, h);
  Floating value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

void PutInteger(lua_State* L, luaL_Buffer* b, int arg, const Header& h, size_t size) {
  const lua_Number n = luaL_checknumber(L, arg);
  // (Out of range, and NaN, as x86-64 converts them: the sign bit alone.)
  uint64_t value = uint64_t{1} << 63;
  if (n >= -9223372036854775808.0 && n < 0) {
    value = static_cast<uint64_t>(static_cast<int64_t>(n));
  } else if (n >= 0 && n < 18446744073709551616.0) {
    value = static_cast<uint64_t>(n);
  }
  char bytes[kMaxIntSize];
  for (size_t i = 0; i < size; ++i) {
    bytes[h.little ? i : size - 1 - i] = static_cast<char>(value & 0xff);
    value = i < 7 ? value >> 8 : 0;
  }
  luaL_addlstring(b, bytes, size);
}

lua_Number GetInteger(const char* data, const Header& h, bool is_signed, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) {
    const size_t at = h.little ? size - 1 - i : i;
    value = (value << 8) | static_cast<unsigned char>(data[at]);
  }
  if (!is_signed || size == 0) return static_cast<lua_Number>(value);
  if (size < 8) {
    const uint64_t sign = uint64_t{1} << (size * 8 - 1);
    if (value & sign) value |= ~((sign << 1) - 1);  // sign-extended
  }
  return static_cast<lua_Number>(static_cast<int64_t>(value));
}

int Pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(L);  // separates the arguments from the buffer
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    size_t pad = Padding(total, h, opt, size);
    total += pad;
    while (pad-- > 0) luaL_addchar(&b, '\0');
    switch (opt) {
      case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
        PutInteger(L, &b, arg++, h, size);
        break;
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f':
        AddFloating(&b, static_cast<float>(luaL_checknumber(L, arg++)), h);
        break;
      case 'd':
        AddFloating(&b, static_cast<double>(luaL_checknumber(L, arg++)), h);
        break;
      case 'c': case 's': {
        size_t len;
        const char* s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = len;
        luaL_argcheck(L, len >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

int Unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t len;
  const char* data = luaL_checklstring(L, 2, &len);
  const lua_Integer start = luaL_optinteger(L, 3, 1);
  luaL_argcheck(L, start > 0, 3, "offset must be 1 or greater");
  size_t pos = static_cast<size_t>(start) - 1;
  Header h;
  int results = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    pos += Padding(pos, h, opt, size);
    luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    switch (opt) {
      case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i': case 'I':
        lua_pushnumber(L, GetInteger(data + pos, h, std::islower(static_cast<unsigned char>(opt)) != 0, size));
        ++results;
        break;
      case 'x':
        break;
      case 'f':
        lua_pushnumber(L, ReadFloating<float>(data + pos, h));
        ++results;
        break;
      case 'd':
        lua_pushnumber(L, ReadFloating<double>(data + pos, h));
        ++results;
        break;
      case 'c': {
        if (size == 0) {
          if (results == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          const lua_Number previous = lua_tonumber(L, -1);
          lua_pop(L, 1);
          --results;
          luaL_argcheck(L, previous >= 0 && previous <= static_cast<lua_Number>(len), 2, "data string too short");
          size = static_cast<size_t>(previous);
          luaL_argcheck(L, pos <= len - size, 2, "data string too short");
        }
        lua_pushlstring(L, data + pos, size);
        ++results;
        break;
      }
      case 's': {
        const void* end = std::memchr(data + pos, '\0', len - pos);
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(static_cast<const char*>(end) - (data + pos)) + 1;
        lua_pushlstring(L, data + pos, size - 1);
        ++results;
        break;
      }
      default:
        ControlOption(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos) + 1);  // where the next value starts
  return results + 1;
}

int Size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Header h;
  size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const size_t size = OptionSize(L, opt, &fmt);
    pos += Padding(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) ControlOption(L, opt, &fmt, &h);
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

int OpenStruct(lua_State* L) {
  lua_newtable(L);
  const luaL_Reg functions[] = {{"pack", Pack}, {"unpack", Unpack}, {"size", Size}, {nullptr, nullptr}};
  luaL_register(L, nullptr, functions);
  return 1;
}

}  // namespace teksdb::server::script_libraries
