// Connection and server commands: PING ECHO QUIT AUTH HELLO COMMAND
// (command_info.h) CONFIG INFO SHUTDOWN TIME SLOWLOG (CLIENT:
// client_commands.cc). INFO's sections follow Redis's names and fields
// where they exist (Server, Clients, Memory with memtable_bytes, Stats with
// instantaneous_ops_per_sec, expired_keys and stale_records_removed,
// Commandstats, Latencystats, Keyspace: a line per database that holds
// keys). CONFIG: config_parameters.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <mutex>
#include <sstream>

#include "ascii_case.h"
#include "command_info.h"
#include "commands.h"
#include "config_parameters.h"
#include "expiry_sweeper.h"
#include "stale_member_filter.h"
#include "glob_match.h"
#include "monotonic_clock.h"
#include "replication.h"
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

// AUTH's check, shared with HELLO's AUTH option: true if (`user`,
// `password`) open the server; otherwise replies Redis's error.
bool CheckPassword(Request& r, const std::string* user, const std::string& password) {
  if (!r.server.requirepass.required()) {
    reply::Error(r.out,
                 "ERR AUTH <password> called without any password configured for the "
                 "default user. Are you sure your configuration is correct?");
    return false;
  }
  if ((user && *user != "default") || !r.server.requirepass.Matches(password)) {
    reply::Error(r.out, "WRONGPASS invalid username-password pair or user is disabled.");
    return false;
  }
  r.client.authenticated = true;
  return true;
}

void Auth(Request& r) {
  if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
  const std::string* user = r.args.size() == 3 ? &r.args[1] : nullptr;
  if (CheckPassword(r, user, r.args.back())) reply::Ok(r.out);
}

// HELLO [protover [AUTH user password] [SETNAME name]], as Redis 7.0's:
// switches the connection to RESP2 or RESP3 and replies the server's
// description (a map in RESP3). Without protover it keeps the protocol.
void Hello(Request& r) {
  int64_t version = r.protocol();
  if (r.args.size() >= 2 && !ParseStrictInt64(r.args[1], &version)) {
    return reply::Error(r.out, "ERR Protocol version is not an integer or out of range");
  }
  const std::string* user = nullptr;
  const std::string* password = nullptr;
  const std::string* name = nullptr;
  for (size_t i = 2; i < r.args.size(); ++i) {
    const std::string option = AsciiLower(r.args[i]);
    if (option == "auth" && i + 2 < r.args.size()) {
      user = &r.args[i + 1];
      password = &r.args[i + 2];
      i += 2;
    } else if (option == "setname" && i + 1 < r.args.size()) {
      name = &r.args[++i];
    } else {
      return reply::Error(r.out, "ERR Syntax error in HELLO option '" + r.args[i] + "'");
    }
  }
  if (version < 2 || version > 3) return reply::Error(r.out, "NOPROTO unsupported protocol version");
  if (password && !CheckPassword(r, user, *password)) return;
  if (!r.client.authenticated) {
    return reply::Error(r.out,
                        "NOAUTH HELLO must be called with the client already authenticated, "
                        "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
                        "authenticate the client and select the RESP protocol version at the same "
                        "time");
  }
  if (name) SetClientName(r.client, *name);
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

// CONFIG GET pattern... | SET name value [name value ...] | RESETSTAT |
// REWRITE (SubcommandError has checked the subcommand and its arity), over
// config_parameters.h's table.
void Config(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "resetstat") {
    r.server.slowlog.Reset();
    return reply::Ok(r.out);
  }
  if (sub == "rewrite") {
    // (A replica's role is kept in its data directory: replication.h.)
    return reply::Error(r.out, "ERR The server is running without a config file");
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

// SLOWLOG GET [count] | LEN | RESET (SubcommandError checked the arity).
void Slowlog(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
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

// One "field:value\r\n" line of INFO.
template <typename Value>
std::string InfoField(const std::string& name, const Value& value) {
  std::ostringstream line;
  line << name << ':' << value << "\r\n";
  return line.str();
}

// The keyspace section: counts from a walk over every meta record. A walk
// is made only when the last one is older than ten times what it took (so
// a small keyspace is counted afresh at almost every INFO, a large one at
// most a tenth of the time), by one caller at a time; the others get the
// last counts, so INFO stays cheap however often it is asked (Sentinel asks
// every second) and however many keys there are.
std::string KeyspaceSection(ServerState& s) {
  ServerState::KeyspaceCounts& counts = s.keyspace_counts;
  constexpr int kDatabases = Keyspace::kDatabases;
  int64_t keys[kDatabases] = {}, expires[kDatabases] = {};
  auto section = [&keys, &expires] {
    std::string lines;
    for (int db = 0; db < kDatabases; ++db) {
      if (keys[db] == 0) continue;
      lines += InfoField("db" + std::to_string(db), "keys=" + std::to_string(keys[db]) +
                                                        ",expires=" + std::to_string(expires[db]) +
                                                        ",avg_ttl=0");
    }
    return lines;
  };
  // The last counts, if they are fresh for their cost (or `any`).
  auto last = [&](bool any) {
    std::lock_guard<std::mutex> lock(counts.mu);
    if (!counts.valid || (!any && MonotonicUs() - counts.at_us >= 10 * counts.walk_us)) return false;
    std::copy(counts.keys, counts.keys + kDatabases, keys);
    std::copy(counts.expires, counts.expires + kDatabases, expires);
    return true;
  };
  if (last(false)) return section();
  std::unique_lock<std::mutex> walking(counts.walking, std::try_to_lock);
  if (!walking.owns_lock()) {
    if (last(true)) return section();  // another caller walks: its last counts
    walking.lock();                    // the first counts: wait for them
    if (last(true)) return section();
  }
  const int64_t started_us = MonotonicUs();
  for (int db = 0; db < kDatabases; ++db) {
    s.keyspace->InDatabase(db).ForEachKey([&](const std::string&, const Keyspace::Value& v) {
      ++keys[db];
      expires[db] += v.expire_ms != 0 ? 1 : 0;
      return true;
    });
  }
  {
    std::lock_guard<std::mutex> lock(counts.mu);
    counts.valid = true;
    std::copy(keys, keys + kDatabases, counts.keys);
    std::copy(expires, expires + kDatabases, counts.expires);
    counts.at_us = MonotonicUs();
    counts.walk_us = counts.at_us - started_us;
  }
  return section();
}

// The commandstats and latencystats sections: a line per command run so far.
std::string CommandSection(ServerState& s, bool latency) {
  std::string lines;
  for (size_t i = 0; i < CommandTable().size(); ++i) {
    const CommandStats& c = s.stats.command(i);
    const uint64_t calls = c.calls.load(std::memory_order_relaxed);
    if (calls == 0) continue;
    const std::string name = CommandTable()[i].name;
    std::ostringstream value;
    if (latency) {
      value << std::fixed << std::setprecision(3) << "p50=" << c.latency.Percentile(0.5)
            << ",p99=" << c.latency.Percentile(0.99) << ",p99.9=" << c.latency.Percentile(0.999);
      lines += InfoField("latency_percentiles_usec_" + name, value.str());
    } else {
      const uint64_t usec = c.usec.load(std::memory_order_relaxed);
      value << "calls=" << calls << ",usec=" << usec << ",usec_per_call=" << std::fixed
            << std::setprecision(2) << static_cast<double>(usec) / static_cast<double>(calls);
      lines += InfoField("cmdstat_" + name, value.str());
    }
  }
  return lines;
}

// The replication section, as Redis 7.0 writes it and Sentinel reads it.
std::string ReplicationSection(ServerState& s) {
  Replication& replication = *s.replication;
  const ReplicationHistory history = replication.history();
  const uint64_t latest = s.db->GetLatestSequenceNumber();
  std::string lines;
  if (replication.replica()) {
    const PrimaryLink::Info link = replication.link_info();
    const int64_t now = MonotonicMs();
    lines += InfoField("role", "slave") + InfoField("master_host", history.primary_host) +
             InfoField("master_port", history.primary_port) +
             InfoField("master_link_status", link.up ? "up" : "down") +
             InfoField("master_last_io_seconds_ago",
                       link.last_io_ms == 0 ? -1 : (now - link.last_io_ms) / 1000) +
             InfoField("master_sync_in_progress", link.syncing ? 1 : 0);
    if (link.syncing) lines += InfoField("master_sync_read_bytes", link.sync_bytes);
    if (!link.up) lines += InfoField("master_link_down_since_seconds", (now - link.down_since_ms) / 1000);
    if (!link.last_error.empty()) lines += InfoField("teksdb_link_error", link.last_error);
    // Sentinel never promotes priority 0: an empty or half-synced copy.
    const int priority = replication.promotable() ? replication.settings().replica_priority.load() : 0;
    lines += InfoField("slave_read_repl_offset", latest) + InfoField("slave_repl_offset", latest) +
             InfoField("slave_priority", priority) + InfoField("slave_read_only", 1) +
             InfoField("replica_announced", 1);
  } else {
    lines += InfoField("role", "master");
  }
  const auto replicas = replication.feeds().Replicas();
  lines += InfoField("connected_slaves", replicas.size());
  for (size_t i = 0; i < replicas.size(); ++i) {
    const ReplicaFeeds::ReplicaInfo& r = replicas[i];
    lines += InfoField("slave" + std::to_string(i), "ip=" + r.ip + ",port=" + std::to_string(r.port) +
                                                        ",state=" + r.state + ",offset=" +
                                                        std::to_string(r.acked) + ",lag=" +
                                                        std::to_string(r.lag_s));
  }
  const bool has_second = history.replid2 != ReplicationHistory::kNoId;
  lines += InfoField("master_failover_state", replication.switchover().state_name()) + InfoField("master_replid", history.replid) +
           InfoField("master_replid2", history.replid2) + InfoField("master_repl_offset", latest) +
           InfoField("second_repl_offset",
                     has_second ? std::to_string(history.replid2_end + 1) : std::string("-1")) +
           InfoField("repl_backlog_active", 0);
  return lines;
}

// INFO's sections in order, each a name and what makes its lines.
std::vector<std::pair<std::string, std::function<std::string()>>> InfoSections(ServerState& s) {
  return {
      {"server",
       [&s] {
         return InfoField("redis_version", "7.0.15") + InfoField("teksdb_version", "0.1.0") +
                InfoField("run_id", s.run_id) +
                InfoField("uptime_in_seconds", (Keyspace::NowMs() - s.started_ms) / 1000) +
                InfoField("memtable", s.memtable);
       }},
      {"clients", [&s] { return InfoField("connected_clients", s.connected.load()); }},
      {"memory",
       [&s] {
         std::string memtable_bytes = "0";
         s.db->GetProperty("rocksdb.cur-size-all-mem-tables", &memtable_bytes);
         return InfoField("memtable_bytes", memtable_bytes);
       }},
      {"stats",
       [&s] {
         return InfoField("total_connections_received", s.connections.load()) +
                InfoField("total_commands_processed", s.commands.load()) +
                InfoField("instantaneous_ops_per_sec", s.stats.OpsPerSecond()) +
                InfoField("expired_keys", s.sweeper ? s.sweeper->reclaimed() : 0) +
                InfoField("stale_records_removed",
                          s.stale_filter ? s.stale_filter->dropped() : 0);
       }},
      {"replication", [&s] { return ReplicationSection(s); }},
      {"commandstats", [&s] { return CommandSection(s, false); }},
      {"latencystats", [&s] { return CommandSection(s, true); }},
      {"keyspace", [&s] { return KeyspaceSection(s); }},
  };
}

// INFO [section ...]: no argument, "default", "all" or "everything" give
// every section; otherwise those named (case-insensitive).
void Info(Request& r) {
  std::vector<std::string> wanted;
  for (size_t i = 1; i < r.args.size(); ++i) wanted.push_back(AsciiLower(r.args[i]));
  const bool every = wanted.empty() || std::any_of(wanted.begin(), wanted.end(), [](auto& w) {
    return w == "default" || w == "all" || w == "everything";
  });
  std::string text;
  for (const auto& [name, lines] : InfoSections(r.server)) {
    if (!every && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    if (!text.empty()) text += "\r\n";
    std::string title = name;
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
    text += "# " + title + "\r\n" + lines();
  }
  reply::Bulk(r.out, text);
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
         {"config", -2, Config},  {"info", -1, Info},
      {"shutdown", -1, Shutdown}, {"time", 1, Time},      {"slowlog", -2, Slowlog},
  });
}

}  // namespace teksdb::server
