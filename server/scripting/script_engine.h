// ScriptEngine: Lua 5.1 (Debian's, as Redis embeds it) for EVAL and
// friends and for Redis 7.0's functions (FUNCTION LOAD, FCALL): the script
// cache by SHA1 in one Lua state, the function libraries in another (so
// SCRIPT FLUSH and FUNCTION FLUSH each reset their own). The sandbox is
// script_sandbox.h; a run and the redis.* API, script_run.h; the
// conversions between replies and Lua values, script_replies.h; what other
// clients see of a running script (BUSY, SCRIPT KILL), running_script.h.
//
// A library ("#!lua name=lib" and code that calls
// redis.register_function) runs once at FUNCTION LOAD, in an environment
// that has only redis.register_function, redis.log and the version
// constants, and for at most kLoadTimeLimitMs; the functions it registers
// run at FCALL with the whole runtime API. The libraries' code is kept in
// the database by the FUNCTION commands (script_commands.cc), which load
// it again at start.
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

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "running_script.h"

struct lua_State;

namespace teksdb::server {

class CommandRunner;
struct Request;

class ScriptEngine {
 public:
  static constexpr size_t kMemoryLimit = size_t{512} << 20;
  static constexpr int kHookInstructions = 100000;
  static constexpr int64_t kLoadTimeLimitMs = 500;

  // What a script's shebang line or a function's registration declares
  // (Redis 7.0's flags), as the checks before a run read it.
  struct RunFlags {
    bool declared = false;  // flags were declared: a shebang line; a function always
    bool no_writes = false;
    bool allow_oom = false;
    bool allow_stale = false;
  };
  struct FunctionInfo {
    std::string name;
    bool has_description = false;
    std::string description;
    std::vector<std::string> flags;  // Redis's names, in Redis's order
    RunFlags run{/*declared=*/true};
  };
  struct LibraryInfo {
    std::string name;
    std::string code;  // whole, its "#!lua" line included
    std::vector<FunctionInfo> functions;
  };

  // `commands`: what redis.call runs (command_runner.h); outlives the engine.
  explicit ScriptEngine(const CommandRunner& commands);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // Compiles and caches `body`; its SHA1 (lower-case hex) in *sha, or false
  // with Redis's error in *error (compile errors, a bad shebang line,
  // bytecode).
  bool Load(const std::string& body, std::string* sha, std::string* error);
  bool Exists(const std::string& sha);
  // What a script declares, for the checks before a command runs (CLIENT
  // PAUSE WRITE holds only scripts that may write): EVAL's `body` by its
  // shebang line (false if that line is invalid), EVALSHA's cached script
  // by its `sha` (false if none is cached).
  static bool BodyFlags(const std::string& body, RunFlags* flags);
  bool CachedFlags(const std::string& sha, RunFlags* flags);
  void Flush();

  // Runs cached script `sha` for request r (its KEYS and ARGV), replying
  // its result (or error) to r.out. `read_only`: EVAL_RO, whose script may
  // not write (as one whose shebang says no-writes). REQUIRES: the caller
  // holds the whole keyspace.
  void Run(Request& r, const std::string& sha, const std::vector<std::string>& keys,
           const std::vector<std::string>& argv, bool read_only);

  // FUNCTION LOAD: runs library `code`, registering its functions (all or
  // none); replaces a library of the same name only if `replace`. Its name
  // in *name, or false with Redis's error in *error.
  bool LoadLibrary(const std::string& code, bool replace, std::string* name, std::string* error);
  // The name library `code` declares ("#!lua name=..."), or false with
  // Redis's error in *error.
  static bool LibraryName(const std::string& code, std::string* name, std::string* error);
  // FUNCTION DELETE (false: no such library) and FLUSH.
  bool DeleteLibrary(const std::string& name);
  void FlushLibraries();
  // Every library, by name.
  std::vector<LibraryInfo> Libraries();
  // Held by a FUNCTION command across its change and the save of the
  // libraries that follows (script_commands.cc), so that saves land in the
  // order of the changes and a failed RESTORE puts back exactly what was.
  std::unique_lock<std::mutex> LockLibraryChanges() {
    return std::unique_lock<std::mutex>(library_changes_mu_);
  }
  // FUNCTION STATS's counts, without the mutex (a script may be running).
  size_t library_count() const { return library_count_.load(std::memory_order_relaxed); }
  // Scripts loaded (EVAL, SCRIPT LOAD), for INFO's number_of_cached_scripts.
  size_t script_count() const { return script_count_.load(std::memory_order_relaxed); }
  size_t function_count() const { return function_count_.load(std::memory_order_relaxed); }
  // The function FCALL names (case-insensitive): false if there is none.
  bool FindFunction(const std::string& name, FunctionInfo* info);
  // Runs function `name` for request r as Run runs a script.
  void CallFunction(Request& r, const std::string& name, const std::vector<std::string>& keys,
                    const std::vector<std::string>& argv, bool read_only);

  RunningScript& running() { return running_; }

  // The SHA1 of `text`, lower-case hex (redis.sha1hex, SCRIPT LOAD).
  static std::string Sha1Hex(const std::string& text);

 private:
  struct Script {
    std::string body;
    RunFlags run;  // from its shebang line ("#!lua flags=..."), if any
  };
  // A Lua state and its heap's size (capped at kMemoryLimit each).
  struct State {
    lua_State* lua = nullptr;
    size_t heap_bytes = 0;
  };
  static void Open(State* state, int (*build)(lua_State*));
  static void Close(State* state);
  // What Redis answers before a run of a script or function with `flags`
  // (`read_only`: through EVAL_RO or FCALL_RO), in Redis's order: past
  // maxmemory, one that declares it may write (OOM); one that may write on
  // a replica, through a *_RO command or without enough replicas; one not
  // allow-stale on a replica cut from its primary with
  // replica-serve-stale-data no (MASTERDOWN). Empty if it may run; then
  // *oom_at_start says whether memory is past maxmemory for a run that may
  // not ignore it (its calls are checked: script_run.h).
  static std::string RunRefusal(Request& r, const RunFlags& flags, bool read_only,
                                bool* oom_at_start);
  // Runs `context` (a script_run::Context) in `state`, as Begin..End of
  // running_.
  void RunIn(State* state, Request& r, void* context, bool function, const std::string& name);
  // The libraries in libraries_ again, in a new functions state (after a
  // failed RESTORE, a FLUSH).
  void ResetFunctions();
  void CountFunctions();
  // The function registered as `lower_case_name`, or null. REQUIRES: mu_.
  const FunctionInfo* FindLocked(const std::string& lower_case_name) const;

  std::mutex mu_;
  std::mutex library_changes_mu_;  // before mu_, never while a script runs
  State scripts_state_;
  std::unordered_map<std::string, Script> scripts_;  // by sha
  State functions_state_;
  std::map<std::string, LibraryInfo> libraries_;      // by name
  std::unordered_map<std::string, std::string> function_libraries_;  // lower-case name -> library
  std::atomic<size_t> library_count_{0};
  std::atomic<size_t> script_count_{0};
  std::atomic<size_t> function_count_{0};
  RunningScript running_;
  const CommandRunner& commands_;
};

}  // namespace teksdb::server
