// The parameters CONFIG GET answers and CONFIG SET changes, in one table:
// each with its value as CONFIG GET shows it, a check of a new value and
// the change itself. Those that act here first, then Redis 7.0's others,
// kept without effect (config_kept_parameters.h). CONFIG SET checks every
// value before it changes any (all or nothing, as Redis 7.0).
//
// Thread safety: the values live in thread-safe objects (the slow log, the
// running script, replication's settings).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "server_state.h"

namespace teksdb::server {

struct ConfigParameter {
  const char* name;  // lower case
  std::function<std::string(ServerState&)> get;
  // Redis's complaint about `value` ("argument must be ...", "can't set
  // immutable config"), or empty.
  std::function<std::string(const std::string& value)> check;
  std::function<void(ServerState&, const std::string& value)> set;  // null: immutable
  bool hidden = false;  // CONFIG GET shows it only by its exact name
  // A check that needs the server (maxclients against the descriptors it
  // has), after `check`; null: none.
  std::function<std::string(ServerState&, const std::string& value)> check_in_server = nullptr;
  // Another name of the parameter named so (Redis's older names:
  // slaveof, hash-max-ziplist-entries, ...); null: this is its name.
  const char* alias_of = nullptr;
};

const std::vector<ConfigParameter>& ConfigParameters();
// The parameter named `lower_case_name`, or null.
const ConfigParameter* FindConfigParameter(const std::string& lower_case_name);

// At start (a configuration file, the command line), where parameters that
// cannot change at run time are set too: Redis's complaint about `value`
// for the parameter `lower_case_name`, or empty. REQUIRES: it exists.
std::string CheckConfigAtStart(const std::string& lower_case_name, const std::string& value);
// Sets it (REQUIRES: CheckConfigAtStart found nothing to complain of);
// the server's parameters that only the start sets (port, dir, ...) are
// main.cc's, not this one's.
void SetConfigAtStart(ServerState& server, const std::string& lower_case_name,
                      const std::string& value);

}  // namespace teksdb::server
