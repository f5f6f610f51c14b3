// Connection and server commands: PING ECHO QUIT AUTH HELLO COMMAND
// (command_info.h) CONFIG SHUTDOWN TIME SLOWLOG (CLIENT:
// client_commands.cc; INFO: info_command.cc). CONFIG: config_parameters.h.
#include <algorithm>
#include <chrono>

#include "acl_check.h"
#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "config_parameters.h"
#include "config_rewrite.h"
#include "expiry_sweeper.h"
#include "glob_match.h"
#include "resp_reply.h"
#include "script_engine.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// PING [message]; a RESP2 connection with subscriptions gets ["pong",
// message], as in Redis.
void Ping(Request& r) {
  if (r.args.size() > 2) return reply::Error(r.out, "ERR wrong number of arguments for 'ping' command");
  if (r.protocol() == 2 && r.client.subscriptions() > 0 && !r.client.in_script) {
    reply::ArrayHeader(r.out, 2);
    reply::Bulk(r.out, "pong");
    return reply::Bulk(r.out, r.args.size() == 2 ? r.args[1] : "");
  }
  r.args.size() == 2 ? reply::Bulk(r.out, r.args[1]) : reply::Simple(r.out, "PONG");
}

void Echo(Request& r) { reply::Bulk(r.out, r.args[1]); }

void Quit(Request& r) {
  r.client.close_after_reply = true;
  reply::Ok(r.out);
}

// Logs the client in as `username` (AUTH, HELLO's AUTH option): false,
// the failure counted in ACL LOG, if the user is unknown or off or the
// password is not one of its own.
bool LogIn(Request& r, const std::string& username, const std::string& password) {
  std::shared_ptr<const AclUser> user = r.server.acl.Find(username);
  if (user == nullptr || !user->Accepts(password)) {
    LogAuthFailure(r.server, r.client, username);
    return false;
  }
  SetClientUser(r.server, r.client, std::move(user), true);
  return true;
}
constexpr const char* kWrongPass = "WRONGPASS invalid username-password pair or user is disabled.";

// AUTH [username] password (the default user without a name).
void Auth(Request& r) {
  if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
  if (r.args.size() == 2 && r.server.acl.DefaultNoPass()) {
    return reply::Error(r.out,
                        "ERR AUTH <password> called without any password configured for the "
                        "default user. Are you sure your configuration is correct?");
  }
  const std::string username = r.args.size() == 3 ? r.args[1] : "default";
  LogIn(r, username, r.args.back()) ? reply::Ok(r.out) : reply::Error(r.out, kWrongPass);
}

// HELLO [protover [AUTH user password] [SETNAME name]], as Redis 7.0's:
// switches the connection to RESP2 or RESP3 and replies the server's
// description (a map in RESP3). Without protover it keeps the protocol.
void Hello(Request& r) {
  int64_t version = r.protocol();
  if (r.args.size() >= 2) {
    if (!ParseStrictInt64(r.args[1], &version)) {
      return reply::Error(r.out, "ERR Protocol version is not an integer or out of range");
    }
    if (version < 2 || version > 3) return reply::Error(r.out, "NOPROTO unsupported protocol version");
  }
  // Each option takes effect as it is read, as Redis's: a later one's
  // error leaves an earlier AUTH or SETNAME done.
  for (size_t i = 2; i < r.args.size(); ++i) {
    const std::string option = AsciiLower(r.args[i]);
    if (option == "auth" && i + 2 < r.args.size()) {
      if (!LogIn(r, r.args[i + 1], r.args[i + 2])) return reply::Error(r.out, kWrongPass);
      i += 2;
    } else if (option == "setname" && i + 1 < r.args.size()) {
      if (!IsClientAttribute(r.args[++i])) return reply::Error(r.out, kBadClientName);
      SetClientName(r.client, r.args[i]);
    } else {
      return reply::Error(r.out, "ERR Syntax error in HELLO option '" + r.args[i] + "'");
    }
  }
  if (!r.client.authenticated) {
    return reply::Error(r.out,
                        "NOAUTH HELLO must be called with the client already authenticated, "
                        "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
                        "authenticate the client and select the RESP protocol version at the same "
                        "time");
  }
  SetClientProtocol(r.client, static_cast<int>(version));
  reply::MapHeader(r.out, r.protocol(), 7);
  for (const char* field : {"server", "redis", "version", "7.0.15", "proto"}) reply::Bulk(r.out, field);
  reply::Integer(r.out, version);
  reply::Bulk(r.out, "id");
  reply::Integer(r.out, static_cast<int64_t>(r.client.id));
  for (const char* field : {"mode", "standalone", "role", "master", "modules"}) reply::Bulk(r.out, field);
  reply::ArrayHeader(r.out, 0);
}

// TIME: the server's clock, seconds and microseconds.
void Time(Request& r) {
  const int64_t usec = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  reply::ArrayHeader(r.out, 2);
  reply::Bulk(r.out, std::to_string(usec / 1000000));
  reply::Bulk(r.out, std::to_string(usec % 1000000));
}

void ConfigHelp(Request& r) {
  static const char* const kLines[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// CONFIG GET pattern... | SET name value [name value ...] | RESETSTAT |
// REWRITE | HELP (SubcommandError has checked the subcommand and its arity), over
// config_parameters.h's table.
void Config(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return ConfigHelp(r);
  if (sub == "resetstat") {
    // What Redis's resetServerStats, resetCommandTableStats and
    // resetErrorTableStats clear and INFO here shows (the slow log stays,
    // as Redis's does).
    ServerState& s = r.server;
    s.commands.store(0);
    s.connections.store(0);
    s.rejected_connections.store(0);
    s.clients.ResetEvicted();
    if (s.sweeper != nullptr) s.sweeper->ResetReclaimed();
    s.stats.Reset();
    return reply::Ok(r.out);
  }
  if (sub == "rewrite") {
    const std::string error = RewriteConfigFile(r.server);
    return error.empty() ? reply::Ok(r.out) : reply::Error(r.out, error);
  }
  if (sub == "set") {
    if (r.args.size() % 2 != 0) {
      return reply::Error(r.out, "ERR wrong number of arguments for 'config|set' command");
    }
    std::vector<std::pair<const ConfigParameter*, const std::string*>> changes;
    for (size_t i = 2; i + 1 < r.args.size(); i += 2) {
      const ConfigParameter* parameter = FindConfigParameter(AsciiLower(r.args[i]));
      if (parameter == nullptr) {
        return reply::Error(r.out, "ERR Unknown option or number of arguments for CONFIG SET - '" +
                                       r.args[i] + "'");
      }
      auto failed = [&](const std::string& complaint) {
        reply::Error(r.out, "ERR CONFIG SET failed (possibly related to argument '" + r.args[i] +
                                "') - " + complaint);
      };
      for (const auto& change : changes) {
        if (change.first == parameter) return failed("duplicate parameter");
      }
      if (const std::string complaint = parameter->check(r.args[i + 1]); !complaint.empty()) {
        return failed(complaint);
      }
      if (parameter->check_in_server) {
        if (const std::string complaint = parameter->check_in_server(r.server, r.args[i + 1]);
            !complaint.empty()) {
          return failed(complaint);
        }
      }
      changes.emplace_back(parameter, &r.args[i + 1]);
    }
    for (const auto& [parameter, value] : changes) parameter->set(r.server, *value);
    return reply::Ok(r.out);
  }
  // A name gets its parameter, hidden or not; a pattern every parameter
  // it matches but the hidden ones.
  std::vector<std::pair<std::string, std::string>> found;
  for (const ConfigParameter& parameter : ConfigParameters()) {
    for (size_t i = 2; i < r.args.size(); ++i) {
      const std::string pattern = AsciiLower(r.args[i]);
      const bool exact = pattern == parameter.name;
      const bool glob = pattern.find_first_of("*?[") != std::string::npos;
      if (exact || (glob && !parameter.hidden && GlobMatch(pattern, parameter.name))) {
        found.emplace_back(parameter.name, parameter.get(r.server));
        break;
      }
    }
  }
  reply::MapHeader(r.out, r.protocol(), found.size());
  for (const auto& [name, value] : found) {
    reply::Bulk(r.out, name);
    reply::Bulk(r.out, value);
  }
}

void SlowlogHelp(Request& r) {
  static const char* const kLines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// SLOWLOG GET [count] | LEN | RESET | HELP (SubcommandError checked the arity).
void Slowlog(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return SlowlogHelp(r);
  if (sub == "len") return reply::Integer(r.out, static_cast<int64_t>(r.server.slowlog.size()));
  if (sub == "reset") {
    r.server.slowlog.Reset();
    return reply::Ok(r.out);
  }
  int64_t count = 10;
  if (r.args.size() == 3 && (!ParseStrictInt64(r.args[2], &count) || count < -1)) {
    return reply::Error(r.out, "ERR count should be greater than or equal to -1");
  }
  const std::vector<SlowLog::Entry> entries = r.server.slowlog.Newest(count);
  reply::ArrayHeader(r.out, entries.size());
  for (const SlowLog::Entry& e : entries) {
    reply::ArrayHeader(r.out, 6);
    reply::Integer(r.out, static_cast<int64_t>(e.id));
    reply::Integer(r.out, e.time_s);
    reply::Integer(r.out, e.usec);
    reply::ArrayHeader(r.out, e.args.size());
    for (const std::string& a : e.args) reply::Bulk(r.out, a);
    reply::Bulk(r.out, e.client_address);
    reply::Bulk(r.out, e.client_name);
  }
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE]: every write is already in the
// database. While a script is busy only SHUTDOWN NOSAVE goes ahead, and
// stops the script without its writes (running_script.h).
void Shutdown(Request& r) {
  const bool nosave = std::any_of(r.args.begin() + 1, r.args.end(),
                                  [](const std::string& a) { return AsciiLower(a) == "nosave"; });
  if (!nosave && r.server.scripts->running().MustRefuse(r.client.id)) {
    return reply::Error(r.out, r.server.scripts->running().BusyError());
  }
  r.client.close_after_reply = true;
  if (r.server.shutdown) r.server.shutdown();
}

}  // namespace

void AddServerCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"ping", -1, Ping},       {"echo", 2, Echo},
      {"quit", -1, Quit},       {"auth", -2, Auth},      {"hello", -1, Hello},      {"command", -1, CommandCommand},
         {"config", -2, Config},
      {"shutdown", -1, Shutdown}, {"time", 1, Time},      {"slowlog", -2, Slowlog},
  });
}

}  // namespace teksdb::server
