// The ACL checks of a request, as Redis 7.0 makes them: the command (or
// subcommand, or an allowed first argument), each key with the access
// its key spec needs (command_info.h), each channel of PUBLISH and the
// SUBSCRIBE family; the ACL LOG entries of a denial or a failed AUTH; and
// Redis's errors for a denial at the top level, inside EXEC and inside a
// script.
//
// Thread safety: as Execute's: the client's own thread; the ACL's users
// and log are thread-safe.
#pragma once

#include <string>
#include <vector>

#include "acl_user.h"
#include "server_state.h"

namespace teksdb::server {

enum class AclContext { kTopLevel, kMulti, kLua };

// The client's user, looked up again if the ACL changed since it was (a
// user deleted meanwhile: the default one, not logged in; the connection
// is being closed). Null for the server's own clients.
const AclUser* CurrentUser(ServerState& server, ClientState& client);

// The verdict of `user` on request `args`: a known command
// (CommandTable()[table_index]), its arity and subcommand checked.
AclVerdict CheckAcl(const AclUser& user, size_t table_index, const std::vector<std::string>& args);

// Whether `user` may run the request and read every key (SORT's BY and
// GET patterns, Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess).
bool AclReadsEveryKey(const AclUser& user, size_t table_index, const std::vector<std::string>& args);

// ACL LOG: a denial (the object: the command's full name, the key or the
// channel), or a failed AUTH as `username`.
void LogAclDenial(ServerState& server, const ClientState& client, const AclVerdict& verdict,
                  AclContext context, const std::vector<std::string>& args);
void LogAuthFailure(ServerState& server, const ClientState& client, const std::string& username);

// Redis's errors for a denial: of a command sent (or queued in MULTI), of
// a queued command at EXEC (the rules changed meanwhile), of a command a
// script called.
std::string AclDeniedError(const AclVerdict& verdict, const std::vector<std::string>& args);
std::string AclDeniedAtExecError(const AclVerdict& verdict);
std::string AclDeniedInScriptError(const AclVerdict& verdict);

}  // namespace teksdb::server
