// Connection and server commands: PING ECHO SELECT QUIT AUTH COMMAND CLIENT
// CONFIG INFO SHUTDOWN. One database (SELECT 0 only); CONFIG GET answers the
// few parameters clients ask about (redis-benchmark asks "save" and
// "appendonly").
#include <cstdio>

#include "commands.h"
#include "glob_match.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

std::string Lower(const std::string& s) {
  std::string l = s;
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l;
}

void Ping(Request& r) {
  if (r.args.size() > 2) return reply::Error(r.out, "ERR wrong number of arguments for 'ping' command");
  r.args.size() == 2 ? reply::Bulk(r.out, r.args[1]) : reply::Simple(r.out, "PONG");
}

void Echo(Request& r) { reply::Bulk(r.out, r.args[1]); }

void Select(Request& r) {
  int64_t db;
  if (!ParseStrictInt64(r.args[1], &db)) return reply::Error(r.out, kNotInteger);
  if (db != 0) return reply::Error(r.out, "ERR DB index is out of range");
  reply::Ok(r.out);
}

void Quit(Request& r) {
  r.client.close_after_reply = true;
  reply::Ok(r.out);
}

void Auth(Request& r) {
  if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
  if (r.server.requirepass.empty()) {
    return reply::Error(r.out,
                        "ERR AUTH <password> called without any password configured for the "
                        "default user. Are you sure your configuration is correct?");
  }
  const std::string& password = r.args.back();
  const bool user_ok = r.args.size() == 2 || r.args[1] == "default";
  if (!user_ok || password != r.server.requirepass) {
    return reply::Error(r.out, "WRONGPASS invalid username-password pair or user is disabled.");
  }
  r.client.authenticated = true;
  reply::Ok(r.out);
}

// Clients call COMMAND (and COMMAND DOCS) to learn the command set; an
// empty answer tells them to assume nothing.
void CommandInfo(Request& r) {
  if (r.args.size() >= 2 && Lower(r.args[1]) == "count") return reply::Integer(r.out, 0);
  reply::ArrayHeader(r.out, 0);
}

void Client(Request& r) {
  const std::string sub = Lower(r.args[1]);
  if (sub == "setname" && r.args.size() == 3) {
    if (r.args[2].find_first_of(" \n") != std::string::npos) {
      return reply::Error(r.out, "ERR Client names cannot contain spaces, newlines or special characters.");
    }
    r.client.name = r.args[2];
    return reply::Ok(r.out);
  }
  if (sub == "getname" && r.args.size() == 2) {
    return r.client.name.empty() ? reply::Null(r.out) : reply::Bulk(r.out, r.client.name);
  }
  reply::Error(r.out, "ERR unknown subcommand '" + r.args[1] + "'. Try CLIENT HELP.");
}

void Config(Request& r) {
  if (Lower(r.args[1]) != "get" || r.args.size() < 3) {
    return reply::Error(r.out, "ERR unknown subcommand or wrong number of arguments for '" +
                                   r.args[1] + "'. Try CONFIG HELP.");
  }
  static const std::pair<const char*, const char*> kParameters[] = {
      {"save", ""}, {"appendonly", "no"}, {"databases", "1"}, {"maxmemory", "0"}};
  std::vector<std::pair<std::string, std::string>> found;
  for (const auto& [name, value] : kParameters) {
    for (size_t i = 2; i < r.args.size(); ++i) {
      if (GlobMatch(Lower(r.args[i]), name)) {
        found.emplace_back(name, value);
        break;
      }
    }
  }
  reply::ArrayHeader(r.out, found.size() * 2);
  for (const auto& [name, value] : found) {
    reply::Bulk(r.out, name);
    reply::Bulk(r.out, value);
  }
}

void Info(Request& r) {
  ServerState& s = r.server;
  std::string memtable_bytes = "0";
  s.db->GetProperty("rocksdb.cur-size-all-mem-tables", &memtable_bytes);
  int64_t keys = 0, expires = 0;
  s.keyspace->ForEachKey([&](const std::string&, const Keyspace::Value& v) {
    ++keys;
    expires += v.expire_ms != 0 ? 1 : 0;
    return true;
  });
  const int64_t uptime_s = (Keyspace::NowMs() - s.started_ms) / 1000;
  std::string text = "# Server\r\nredis_version:7.0.15\r\nteksdb_version:0.1.0\r\n";
  text += "uptime_in_seconds:" + std::to_string(uptime_s) + "\r\n";
  text += "memtable:" + s.memtable + "\r\n";
  text += "\r\n# Clients\r\nconnected_clients:" + std::to_string(s.connected.load()) + "\r\n";
  text += "\r\n# Memory\r\nmemtable_bytes:" + memtable_bytes + "\r\n";
  text += "\r\n# Stats\r\ntotal_connections_received:" + std::to_string(s.connections.load()) +
          "\r\ntotal_commands_processed:" + std::to_string(s.commands.load()) + "\r\n";
  text += "\r\n# Keyspace\r\n";
  if (keys > 0) {
    text += "db0:keys=" + std::to_string(keys) + ",expires=" + std::to_string(expires) +
            ",avg_ttl=0\r\n";
  }
  reply::Bulk(r.out, text);
}

void Shutdown(Request& r) {
  r.client.close_after_reply = true;
  if (r.server.shutdown) r.server.shutdown();
}

}  // namespace

void AddServerCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"ping", -1, Ping},       {"echo", 2, Echo},       {"select", 2, Select},
      {"quit", -1, Quit},       {"auth", -2, Auth},      {"command", -1, CommandInfo},
      {"client", -2, Client},   {"config", -2, Config},  {"info", -1, Info},
      {"shutdown", -1, Shutdown},
  });
}

}  // namespace teksdb::server
