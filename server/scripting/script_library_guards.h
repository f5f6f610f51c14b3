// Guards around known bugs of the Lua 5.1, lua-cjson and lua-bitop that
// Debian ships (and that Redis 7.0.15's embedded copies share, fixed in
// later Redis releases): each guarded function refuses the input that
// reaches the bug, and otherwise calls the original.
//   - unpack(t, i, j) with a huge range overwrote the Lua stack
//     (CVE-2025-46817): the count is checked against the stack;
//   - bit.tohex(x, n) with n = -2^31 read out of bounds (CVE-2024-31449):
//     n is clamped to [-8, 8], which is what it means anyway;
//   - cjson.encode of a value whose text passes 2 GiB overflowed cjson's
//     int-sized buffer (CVE-2022-24834): values whose text may pass
//     kMaxJsonBytes are refused before encoding;
//   - string.find, match, gmatch and gsub recurse once per pattern item:
//     a pattern of 400,000 items overflowed the C stack; patterns longer
//     than kMaxPatternBytes are refused ("pattern too complex", as Lua 5.2
//     words its own limit);
//   - the parser could free its chunk name while parsing (CVE-2025-49844):
//     the chunk names the engine uses are kept alive in the registry.
//
// Thread safety: as the lua_State.
#pragma once

#include <cstddef>

struct lua_State;

namespace teksdb::server::script_library_guards {

constexpr size_t kMaxJsonBytes = size_t{256} << 20;
constexpr size_t kMaxPatternBytes = 4096;

// Replaces the guarded functions in the libraries opened in `L` (before
// they are sealed).
void Install(lua_State* L);

}  // namespace teksdb::server::script_library_guards
