// Execute: the table lookup, arity and AUTH checks, and Redis's error
// replies for requests that never reach a handler.
#include "commands.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "resp_reply.h"

namespace teksdb::server {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const std::unordered_map<std::string, Command>& Table() {
  static const std::unordered_map<std::string, Command> table = [] {
    std::vector<Command> commands;
    AddStringCommands(&commands);
    AddKeyCommands(&commands);
    AddHashCommands(&commands);
    AddSetCommands(&commands);
    AddListCommands(&commands);
    AddZSetCommands(&commands);
    AddServerCommands(&commands);
    std::unordered_map<std::string, Command> by_name;
    for (const Command& c : commands) by_name.emplace(c.name, c);
    return by_name;
  }();
  return table;
}

// Redis's reply to an unknown command: the name and the arguments'
// beginning, 128 bytes each at most.
std::string UnknownCommand(const std::vector<std::string>& args) {
  std::string list;
  for (size_t i = 1; i < args.size() && list.size() < 128; ++i) {
    list += "'" + args[i].substr(0, 128 - list.size()) + "' ";
  }
  return "ERR unknown command '" + args[0].substr(0, 128) + "', with args beginning with: " + list;
}

}  // namespace

void Execute(ServerState& server, ClientState& client, const std::vector<std::string>& args,
             std::string* out) {
  server.commands.fetch_add(1, std::memory_order_relaxed);
  const std::string name = Lower(args[0]);
  const auto it = Table().find(name);
  if (it == Table().end()) {
    reply::Error(out, UnknownCommand(args));
    return;
  }
  const Command& command = it->second;
  const int argc = static_cast<int>(args.size());
  if ((command.arity > 0 && argc != command.arity) || argc < -command.arity) {
    reply::Error(out, "ERR wrong number of arguments for '" + name + "' command");
    return;
  }
  if (!server.requirepass.empty() && !client.authenticated && name != "auth" &&
      name != "quit") {
    reply::Error(out, "NOAUTH Authentication required.");
    return;
  }
  Request request{server, client, args, out};
  command.handler(request);
}

void ReplyStorageError(Request& r, const ROCKSDB_NAMESPACE::Status& s) {
  std::string message = s.ToString();
  std::replace(message.begin(), message.end(), '\r', ' ');
  std::replace(message.begin(), message.end(), '\n', ' ');
  reply::Error(r.out, "ERR storage: " + message);
}

}  // namespace teksdb::server
