// CommandRunner: how a script runs commands (redis.call, redis.pcall,
// redis.acl_check_cmd). The command table lives in commands/, a layer
// above scripting (its EVAL and FCALL handlers call the engine), so the
// engine reaches the table only through this interface, which commands/
// implements (script_command_runner.h) and main hands to ScriptEngine.
//
// Thread safety: implementations are stateless; Run is Execute's, called
// by the script's thread while it holds the whole keyspace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace teksdb::server {

struct ClientState;
struct ServerState;

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Redis's error for a script of `client` that calls `args` (unknown
  // command, wrong number of arguments, a command scripts may not run,
  // unless DEBUG SET-DISABLE-DENY-SCRIPTS lets them, one the client's ACL
  // user may not run: logged in ACL LOG), or empty; *writes says whether
  // the command writes, *may_replicate whether it writes or may replicate
  // as Redis says (PUBLISH: refused in read-only scripts too), *deny_oom
  // whether it may grow memory (refused past maxmemory).
  virtual std::string Refusal(ServerState& server, ClientState& client,
                              const std::vector<std::string>& args, bool* writes,
                              bool* may_replicate, bool* deny_oom) const = 0;
  // redis.acl_check_cmd: whether the client's ACL user may run `args`;
  // false with *known false for an unknown command or subcommand.
  virtual bool AclAllows(ServerState& server, ClientState& client,
                         const std::vector<std::string>& args, bool* known) const = 0;
  // Runs `args` for the client, appending its reply to `out`.
  virtual void Run(ServerState& server, ClientState& client, const std::vector<std::string>& args,
                   std::string* out) const = 0;
};

}  // namespace teksdb::server
