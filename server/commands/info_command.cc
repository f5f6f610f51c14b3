// INFO [section ...], as Redis 7.0 answers it: the sections and fields
// clients, tools and Sentinel read (server, clients, memory, persistence,
// stats, replication, cpu, modules, commandstats, errorstats,
// latencystats, cluster, keyspace), with Redis's selection: no argument or
// "default" gives the default sections, "all" every section,
// "everything" every one and the modules', otherwise those named (any
// case, several at once, each once). Fields that mean nothing here (RDB
// and AOF state, evictions) are there with Redis's idle values; teksdb's
// own are named teksdb_* or said in docs/COMMANDS.md.
//
// Thread safety: reads atomics and thread-safe objects of ServerState.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>

#include "ascii_case.h"
#include "commands.h"
#include "config_parameters.h"
#include "expiry_sweeper.h"
#include "monotonic_clock.h"
#include "replication.h"
#include "resp_reply.h"
#include "script_engine.h"
#include "stale_member_filter.h"
#include "storage_health.h"

namespace teksdb::server {
namespace {

// One "field:value\r\n" line of INFO.
template <typename Value>
std::string InfoField(const std::string& name, const Value& value) {
  std::ostringstream line;
  line << name << ':' << value << "\r\n";
  return line.str();
}

// A CONFIG parameter's value as CONFIG GET shows it.
std::string ConfigValue(ServerState& s, const char* name) {
  const ConfigParameter* parameter = FindConfigParameter(name);
  return parameter != nullptr ? parameter->get(s) : std::string();
}

// Bytes as Redis's *_human fields write them ("1.50M").
std::string Human(double bytes) {
  const char* units = "BKMGTP";
  int unit = 0;
  while (bytes >= 1024 && unit < 5) {
    bytes /= 1024;
    ++unit;
  }
  std::ostringstream text;
  text << std::fixed << std::setprecision(unit == 0 ? 0 : 2) << bytes << units[unit];
  return text.str();
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

// One command's (or subcommand's) line of commandstats or latencystats;
// empty when it has nothing to show.
std::string CommandLine(const std::string& name, const CommandStats& c, bool latency,
                        const std::vector<double>& percentiles) {
  const uint64_t calls = c.calls.load(std::memory_order_relaxed);
  const uint64_t rejected = c.rejected.load(std::memory_order_relaxed);
  if (calls == 0 && rejected == 0) return "";
  std::ostringstream value;
  if (latency) {
    if (c.latency.count() == 0) return "";
    value << std::fixed << std::setprecision(3);
    for (size_t i = 0; i < percentiles.size(); ++i) {
      value << (i == 0 ? "" : ",") << "p" << PercentileText(percentiles[i]) << "="
            << c.latency.Percentile(percentiles[i] / 100);
    }
    return InfoField("latency_percentiles_usec_" + name, value.str());
  }
  const uint64_t usec = c.usec.load(std::memory_order_relaxed);
  value << "calls=" << calls << ",usec=" << usec << ",usec_per_call=" << std::fixed
        << std::setprecision(2)
        << (calls == 0 ? 0.0 : static_cast<double>(usec) / static_cast<double>(calls))
        << ",rejected_calls=" << rejected
        << ",failed_calls=" << c.failed.load(std::memory_order_relaxed);
  return InfoField("cmdstat_" + name, value.str());
}

// The commandstats and latencystats sections: a line per command run so
// far, a container command's by subcommand ("config|set").
std::string CommandSection(ServerState& s, bool latency) {
  const std::vector<double> percentiles = s.stats.percentiles();
  std::string lines;
  for (size_t i = 0; i < CommandTable().size(); ++i) {
    lines += CommandLine(CommandTable()[i].name, s.stats.command(i), latency, percentiles);
  }
  for (const auto& [name, stats] : s.stats.Subcommands()) {
    lines += CommandLine(name, *stats, latency, percentiles);
  }
  return lines;
}

std::string ErrorSection(ServerState& s) {
  std::string lines;
  for (const auto& [code, count] : s.stats.ErrorCounts()) {
    lines += InfoField("errorstat_" + code, "count=" + std::to_string(count));
  }
  return lines;
}

std::string ClientsSection(ServerState& s) {
  int64_t blocked = 0;
  for (const auto& client : s.clients.List()) blocked += client->blocked.load() ? 1 : 0;
  return InfoField("connected_clients", s.connected.load()) + InfoField("cluster_connections", 0) +
         InfoField("maxclients", s.client_limits.maxclients.load()) +
         InfoField("client_recent_max_input_buffer", s.recent_max_input.Max(MonotonicMs() / 1000)) +
         InfoField("client_recent_max_output_buffer", s.recent_max_output.Max(MonotonicMs() / 1000)) +
         InfoField("blocked_clients", blocked) +
         InfoField("tracking_clients", s.tracking.clients()) +
         InfoField("clients_in_timeout_table", blocked);
}

std::string MemorySection(ServerState& s) {
  const int64_t used = s.memory.UsedBytes();  // resident memory (memory_limit.h)
  std::string memtable_bytes = "0";
  s.db->GetProperty("rocksdb.cur-size-all-mem-tables", &memtable_bytes);
  const int64_t maxmemory = s.memory.limit();
  return InfoField("used_memory", used) + InfoField("used_memory_human", Human(used)) +
         InfoField("used_memory_rss", used) + InfoField("used_memory_rss_human", Human(used)) +
         InfoField("used_memory_peak", used) + InfoField("used_memory_peak_human", Human(used)) +
         InfoField("used_memory_lua", 0) + InfoField("used_memory_scripts", 0) +
         InfoField("number_of_cached_scripts", s.scripts->script_count()) +
         InfoField("maxmemory", maxmemory) + InfoField("maxmemory_human", Human(maxmemory)) +
         InfoField("maxmemory_policy", ConfigValue(s, "maxmemory-policy")) +
         InfoField("mem_fragmentation_ratio", "1.00") + InfoField("mem_allocator", "libc") +
         // Nothing is freed in the background here (UNLINK and FLUSHDB
         // ASYNC delete as DEL does: a key's meta record, its members
         // going with compactions): none pending, none freed so.
         InfoField("lazyfree_pending_objects", 0) + InfoField("lazyfreed_objects", 0) +
         InfoField("memtable_bytes", memtable_bytes);
}

std::string PersistenceSection(ServerState& s) {
  // The WAL is the append-only log: a background error (a full disk, ...)
  // is its failed write (storage_health.h).
  const std::string storage_error = s.storage_health ? s.storage_health->error() : std::string();
  const char* write_status = storage_error.empty() ? "ok" : "err";
  return InfoField("loading", 0) + InfoField("async_loading", 0) +
         InfoField("rdb_changes_since_last_save", 0) + InfoField("rdb_bgsave_in_progress", 0) +
         InfoField("rdb_last_save_time", s.last_save_s.load()) +
         InfoField("rdb_last_bgsave_status", "ok") + InfoField("aof_enabled", 0) +
         InfoField("aof_rewrite_in_progress", 0) + InfoField("aof_rewrite_scheduled", 0) +
         InfoField("aof_last_bgrewrite_status", "ok") +
         InfoField("aof_last_write_status", write_status) +
         InfoField("storage_status", write_status) +
         InfoField("storage_error", storage_error) +
         InfoField("storage_errors", s.storage_health ? s.storage_health->errors() : 0) +
         InfoField("storage_recoveries", s.storage_health ? s.storage_health->recoveries() : 0);
}

std::string StatsSection(ServerState& s) {
  return InfoField("total_connections_received", s.connections.load()) +
         InfoField("total_commands_processed", s.commands.load()) +
         InfoField("instantaneous_ops_per_sec", s.stats.OpsPerSecond()) +
         InfoField("rejected_connections", s.rejected_connections.load()) +
         InfoField("expired_keys", s.sweeper ? s.sweeper->reclaimed() : 0) +
         InfoField("expired_subkeys", s.sweeper ? s.sweeper->reclaimed_fields() : 0) +
         InfoField("evicted_keys", 0) +
         InfoField("evicted_clients", s.clients.evicted()) +
         InfoField("pubsub_channels", s.pubsub.Channels(PubSub::kChannel, nullptr).size()) +
         InfoField("pubsub_patterns", s.pubsub.PatternCount()) +
         InfoField("migrate_cached_sockets", s.migrate_sockets.size()) +
         InfoField("total_error_replies", s.stats.error_replies()) +
         InfoField("tracking_total_keys", s.tracking.keys()) +
         InfoField("tracking_total_items", s.tracking.items()) +
         InfoField("tracking_total_prefixes", s.tracking.prefixes()) +
         InfoField("stale_records_removed", s.stale_filter ? s.stale_filter->dropped() : 0);
}

std::string CpuSection() {
  auto seconds = [](const timeval& t) {
    std::ostringstream text;
    text << t.tv_sec << '.' << std::setw(6) << std::setfill('0') << t.tv_usec;
    return text.str();
  };
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  return InfoField("used_cpu_sys", seconds(self.ru_stime)) +
         InfoField("used_cpu_user", seconds(self.ru_utime)) +
         InfoField("used_cpu_sys_children", seconds(children.ru_stime)) +
         InfoField("used_cpu_user_children", seconds(children.ru_utime));
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

struct Section {
  const char* name;   // as INFO's arguments name it
  const char* title;  // as its header says it
  bool in_default;
  std::function<std::string()> lines;
};

// INFO's sections in Redis's order.
std::vector<Section> InfoSections(ServerState& s) {
  return {
      {"server", "Server", true,
       [&s] {
         const int64_t uptime = (Keyspace::NowMs() - s.started_ms) / 1000;
         // (No git commit of Redis's: its fields as a build from a release tarball shows them.)
         return InfoField("redis_version", "7.0.15") + InfoField("redis_git_sha1", "00000000") +
                InfoField("redis_git_dirty", 0) + InfoField("redis_mode", "standalone") +
                InfoField("teksdb_version", "0.1.0") + InfoField("arch_bits", 64) +
                InfoField("process_id", getpid()) + InfoField("run_id", s.run_id) +
                InfoField("tcp_port", s.listen.port()) + InfoField("uptime_in_seconds", uptime) +
                InfoField("uptime_in_days", uptime / 86400) +
                InfoField("hz", ConfigValue(s, "hz")) + InfoField("config_file", "") +
                InfoField("memtable", s.memtable);
       }},
      {"clients", "Clients", true, [&s] { return ClientsSection(s); }},
      {"memory", "Memory", true, [&s] { return MemorySection(s); }},
      {"persistence", "Persistence", true, [&s] { return PersistenceSection(s); }},
      {"stats", "Stats", true, [&s] { return StatsSection(s); }},
      {"replication", "Replication", true, [&s] { return ReplicationSection(s); }},
      {"cpu", "CPU", true, [] { return CpuSection(); }},
      {"modules", "Modules", true, [] { return std::string(); }},
      {"commandstats", "Commandstats", false, [&s] { return CommandSection(s, false); }},
      {"errorstats", "Errorstats", true, [&s] { return ErrorSection(s); }},
      {"latencystats", "Latencystats", false, [&s] { return CommandSection(s, true); }},
      {"cluster", "Cluster", true, [] { return InfoField("cluster_enabled", 0); }},
      {"keyspace", "Keyspace", true, [&s] { return KeyspaceSection(s); }},
  };
}

void Info(Request& r) {
  std::set<std::string> named;
  bool every = false, defaults = r.args.size() == 1;
  for (size_t i = 1; i < r.args.size(); ++i) {
    const std::string word = AsciiLower(r.args[i]);
    if (word == "all" || word == "everything") {
      every = true;
    } else if (word == "default") {
      defaults = true;
    } else {
      named.insert(word);
    }
  }
  std::string text;
  for (const Section& section : InfoSections(r.server)) {
    if (!every && !(defaults && section.in_default) && named.count(section.name) == 0) continue;
    if (!text.empty()) text += "\r\n";
    text += std::string("# ") + section.title + "\r\n" + section.lines();
  }
  reply::Bulk(r.out, text);
}

}  // namespace

void AddInfoCommand(std::vector<Command>* table) { table->push_back({"info", -1, Info}); }

}  // namespace teksdb::server
