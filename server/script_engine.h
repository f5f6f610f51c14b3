// ScriptEngine: Lua 5.1 (Debian's, as Redis embeds) for EVAL and friends:
// the script cache by SHA1, the sandbox, redis.call / redis.pcall, and the
// conversions between Redis replies and Lua values as Redis 7.0 does them.
//
// A script runs atomically: EVAL takes the whole keyspace (every gate,
// Keyspace::BeginTransaction) before it runs, so no other client writes
// while it runs and its writes reach RocksDB in one DB::Write. As in Redis,
// what a script wrote before an error stays written. The sandbox has Lua's
// base, table, string and math libraries without the functions that reach
// files (dofile, loadfile), and, as in Redis, scripts cannot create
// globals. (Redis's cjson, cmsgpack, struct and bit libraries are not
// there.) Bounded: a script is stopped with an error
// after kTimeLimitMs of running, and the Lua heap is capped at kMemoryLimit.
//
// Thread safety: one Lua state; every member takes the engine's mutex (a
// script holds the whole keyspace as well, so two never wait on each
// other).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

struct lua_State;

namespace teksdb::server {

struct Request;

class ScriptEngine {
 public:
  static constexpr int64_t kTimeLimitMs = 5000;
  static constexpr size_t kMemoryLimit = size_t{512} << 20;

  ScriptEngine();
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // Compiles and caches `body`; its SHA1 (lower-case hex) in *sha, or false
  // with Redis's compile error in *error.
  bool Load(const std::string& body, std::string* sha, std::string* error);
  bool Exists(const std::string& sha);
  void Flush();

  // Runs cached script `sha` for request r (its KEYS and ARGV), replying
  // its result (or error) to r.out. `read_only`: EVAL_RO, whose script may
  // not write. REQUIRES: the caller holds the whole keyspace.
  void Run(Request& r, const std::string& sha, const std::vector<std::string>& keys,
           const std::vector<std::string>& argv, bool read_only);

  // The SHA1 of `text`, lower-case hex (redis.sha1hex, SCRIPT LOAD).
  static std::string Sha1Hex(const std::string& text);

 private:
  void Open();
  void Close();

  std::mutex mu_;
  lua_State* lua_ = nullptr;
  size_t heap_bytes_ = 0;
  std::unordered_map<std::string, std::string> bodies_;  // sha -> body
};

}  // namespace teksdb::server
