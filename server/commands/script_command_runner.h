// The command table as scripts call it (scripting/command_runner.h):
// Redis's checks of redis.call's arguments, then Execute.
//
// Thread safety: stateless.
#pragma once

#include "command_runner.h"

namespace teksdb::server {

class ScriptCommandRunner : public CommandRunner {
 public:
  std::string Refusal(ServerState& server, ClientState& client, const std::vector<std::string>& args,
                      bool* writes, bool* may_replicate, bool* deny_oom) const override;
  bool AclAllows(ServerState& server, ClientState& client, const std::vector<std::string>& args,
                 bool* known) const override;
  void Run(ServerState& server, ClientState& client, const std::vector<std::string>& args,
           std::string* out) const override;
};

}  // namespace teksdb::server
