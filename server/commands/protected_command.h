// Redis 7.0's "protected" commands (DEBUG; MODULE LOAD, LOADEX and
// UNLOAD): allowed where their enable-*-command setting is "yes", or
// "local" and the client comes over loopback; refused otherwise, with
// Redis's message naming the command and the setting.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "server_state.h"

namespace teksdb::server {

// Whether `setting` ("no", "yes" or "local") lets `client` run the command.
bool ProtectedCommandAllowed(const std::string& setting, const ClientState& client);

// Redis's error for a refused one: "ERR DEBUG command not allowed. If the
// enable-debug-command option is set to "local", ...".
std::string ProtectedCommandRefusal(const std::string& command, const std::string& setting_name);

}  // namespace teksdb::server
