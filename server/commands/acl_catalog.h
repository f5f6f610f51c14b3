// AclCommands(): the commands ACL rules may name (state/acl_command_set.h)
// as redis-server 7.0 knows them: every command of CommandTable() with
// COMMAND INFO's categories (every command of Redis 7.0's, and some of
// 7.2's) and every subcommand Redis 7.0 has (those the server runs and the
// others, ...|HELP), so that a rule naming any of them means what it means
// to redis-server.
//
// Thread safety: built on first use (a function-local static), then read
// only.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "acl_command_set.h"

namespace teksdb::server {

const AclCommandSet& AclCommands();
// The id in AclCommands() of a request's command (CommandTable()[
// table_index]), or of its subcommand if it has one.
int AclCommandId(size_t table_index, const std::vector<std::string>& args);

}  // namespace teksdb::server
