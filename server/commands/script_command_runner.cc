// ScriptCommandRunner: which commands a script may call, as Redis 7.0
// decides it (unknown, wrong arity, a subcommand's errors, the commands
// denied in scripts, those the caller's ACL user may not run).
#include "script_command_runner.h"

#include <cstring>

#include "acl_check.h"
#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"

namespace teksdb::server {

std::string ScriptCommandRunner::Refusal(ServerState& server, ClientState& client,
                                         const std::vector<std::string>& args,
                                         bool* writes, bool* may_replicate,
                                         bool* deny_oom) const {
  const std::string name = AsciiLower(args[0]);
  const Command* command = LookupCommand(name);
  const CommandInfo* info = FindCommandInfo(name);
  if (command == nullptr || info == nullptr) return "Unknown Redis command called from script";
  const std::string subcommand_error = SubcommandError(args);
  if (subcommand_error.find("unknown subcommand") != std::string::npos) {
    return "Unknown Redis command called from script";
  }
  if (!ArityFits(*command, args.size()) || !subcommand_error.empty()) {
    return "Wrong number of args calling Redis command from script";
  }
  if (DeniedInScripts(args) && !server.scripts_call_denied.load(std::memory_order_relaxed)) {
    return "This Redis command is not allowed from script";
  }
  if (const AclUser* user = CurrentUser(server, client)) {
    const AclVerdict verdict =
        CheckAcl(*user, static_cast<size_t>(command - CommandTable().data()), args);
    if (!verdict.allowed()) {
      LogAclDenial(server, client, verdict, AclContext::kLua, args);
      return AclDeniedInScriptError(verdict);
    }
  }
  *writes = Writes(*info);
  *may_replicate = *writes || FlaggedMayReplicate(name);
  *deny_oom = std::strstr(info->flags, "denyoom") != nullptr;
  return "";
}

bool ScriptCommandRunner::AclAllows(ServerState& server, ClientState& client,
                                    const std::vector<std::string>& args, bool* known) const {
  const Command* command = LookupCommand(AsciiLower(args[0]));
  *known = command != nullptr && SubcommandError(args).find("unknown subcommand") == std::string::npos;
  if (!*known) return false;
  const AclUser* user = CurrentUser(server, client);
  return user == nullptr ||
         CheckAcl(*user, static_cast<size_t>(command - CommandTable().data()), args).allowed();
}

void ScriptCommandRunner::Run(ServerState& server, ClientState& client,
                              const std::vector<std::string>& args, std::string* out) const {
  Execute(server, client, args, out);
}

}  // namespace teksdb::server
