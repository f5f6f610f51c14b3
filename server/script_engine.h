// ScriptEngine: Lua 5.1 (Debian's, as Redis embeds it) for EVAL and
// friends: the script cache by SHA1, the redis.* API scripts call, and a
// run's time limits. The sandbox is script_sandbox.h; the conversions
// between replies and Lua values are script_replies.h; what other clients
// see of a running script (BUSY, SCRIPT KILL) is running_script.h.
//
// A script runs atomically: EVAL takes the whole keyspace (every gate,
// Keyspace::BeginTransaction) before it runs, so no other client writes
// while it runs and its writes reach RocksDB in one DB::Write. As in Redis,
// what a script wrote before an error stays written (unless the server
// shuts down under it: RunningScript). Bounded: the Lua heap is capped at
// kMemoryLimit (an allocation past it fails the script with "not enough
// memory"); time is bounded by the busy-reply threshold and SCRIPT KILL
// (running_script.h), checked every kHookInstructions.
//
// Lua is Debian's C++ build (liblua5.1-c++): a Lua error unwinds C++
// frames as an exception, so the C functions here may hold C++ objects
// while they call Lua.
//
// Thread safety: one Lua state; every member takes the engine's mutex (a
// script holds the whole keyspace as well, so two never wait on each
// other), except running(), whose object is thread-safe and which other
// clients use while a script runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "running_script.h"

struct lua_State;

namespace teksdb::server {

struct Request;

class ScriptEngine {
 public:
  static constexpr size_t kMemoryLimit = size_t{512} << 20;
  static constexpr int kHookInstructions = 100000;

  ScriptEngine();
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // Compiles and caches `body`; its SHA1 (lower-case hex) in *sha, or false
  // with Redis's error in *error (compile errors, a bad shebang line,
  // bytecode).
  bool Load(const std::string& body, std::string* sha, std::string* error);
  bool Exists(const std::string& sha);
  void Flush();

  // Runs cached script `sha` for request r (its KEYS and ARGV), replying
  // its result (or error) to r.out. `read_only`: EVAL_RO, whose script may
  // not write (as one whose shebang says no-writes). REQUIRES: the caller
  // holds the whole keyspace.
  void Run(Request& r, const std::string& sha, const std::vector<std::string>& keys,
           const std::vector<std::string>& argv, bool read_only);

  RunningScript& running() { return running_; }

  // The SHA1 of `text`, lower-case hex (redis.sha1hex, SCRIPT LOAD).
  static std::string Sha1Hex(const std::string& text);

 private:
  struct Script {
    std::string body;
    bool shebang = false;    // it has a shebang line ("#!lua ...")
    bool no_writes = false;  // the shebang's flags=no-writes
  };
  void Open();
  void Close();

  std::mutex mu_;
  lua_State* lua_ = nullptr;
  size_t heap_bytes_ = 0;
  std::unordered_map<std::string, Script> scripts_;  // by sha
  RunningScript running_;
};

}  // namespace teksdb::server
