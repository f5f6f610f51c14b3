// Introspection commands as a client of Redis 7.0 expects them: OBJECT
// (ENCODING: object_encoding.h; FREQ refused as Redis
// refuses it without an LFU policy; REFCOUNT as Redis's, whose integers
// 0-9999 are shared objects; IDLETIME refused: key access times are not
// kept, since a clock touched by every read measured 9% of a GET's server
// CPU), MEMORY USAGE (the bytes the key's records
// take, estimated from SAMPLES members as Redis does), MEMORY STATS and
// DOCTOR, LATENCY (latency_monitor.h's events, off by default as Redis's;
// its per-command HISTOGRAM comes from INFO's latency histograms) and
// LOLWUT.
#include <algorithm>
#include <cmath>

#include "ascii_case.h"
#include "commands.h"
#include "config_parameters.h"
#include "collection.h"
#include "list_store.h"
#include "object_encoding.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

// The key's meta record: false having replied (storage error), or, if it
// is absent, replied null.
bool Lookup(Request& r, std::optional<Keyspace::Value>* v) {
  const Status s = r.keyspace->Read(r.args[2], v);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (!*v) return reply::Null(r.out, r.protocol()), false;
  return true;
}

void ObjectHelp(Request& r) {
  static const char* const kLines[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key | HELP (SubcommandError checked it).
void Object(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return ObjectHelp(r);
  std::optional<Keyspace::Value> v;
  if (!Lookup(r, &v)) return;
  if (sub == "encoding") {
    reply::Bulk(r.out, ObjectEncoding(*v));
  } else if (sub == "refcount") {
    // Redis shares the integers 0-9999 between keys (refcount INT_MAX),
    // unless a maxmemory with an LRU or LFU policy needs each value its own.
    int64_t n = -1;
    const std::string policy = FindConfigParameter("maxmemory-policy")->get(r.server);
    const bool evicting = FindConfigParameter("maxmemory")->get(r.server) != "0" &&
                          (policy.find("lru") != std::string::npos ||
                           policy.find("lfu") != std::string::npos);
    const bool shared = v->type == Keyspace::kString && ParseStrictInt64(v->payload, &n) &&
                        n >= 0 && n < 10000 && std::to_string(n) == v->payload && !evicting;
    reply::Integer(r.out, shared ? 2147483647 : 1);
  } else if (sub == "freq") {
    reply::Error(r.out,
                 "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please "
                 "note that when switching between policies at runtime LRU and LFU data will take "
                 "some time to adjust.");
  } else {  // idletime
    reply::Error(r.out, "ERR teksdb-server does not track when keys were last accessed");
  }
}

void MemoryHelp(Request& r) {
  static const char* const kLines[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return memory in bytes used by <key> and its value. Nested values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Prints this help.",
  };
  reply::StatusLines(r.out, kLines);
}

// MEMORY USAGE key [SAMPLES count] | STATS | DOCTOR | PURGE | MALLOC-STATS | HELP
void Memory(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return MemoryHelp(r);
  if (sub == "usage") {
    int64_t samples = 5;
    if (r.args.size() == 5 && AsciiLower(r.args[3]) == "samples") {
      if (!ParseStrictInt64(r.args[4], &samples) || samples < 0) return reply::Error(r.out, kNotInteger);
    } else if (r.args.size() != 3) {
      return reply::Error(r.out, kSyntaxError);
    }
    std::optional<Keyspace::Value> v;
    if (!Lookup(r, &v)) return;
    // Each record: its key and value, and RocksDB's per-entry overhead
    // (about the 8-byte sequence and type plus the memtable's node).
    constexpr int64_t kRecordOverhead = 32;
    int64_t bytes = static_cast<int64_t>(r.args[2].size() + v->payload.size()) + 16 + kRecordOverhead;
    // A compact collection's members (a small list's elements) are in its
    // payload, counted above; a large list's member records are its chunks.
    if (storage_format::IsCollection(v->type) && v->version != 0) {
      int64_t seen = 0, seen_bytes = 0;
      const Status s = r.keyspace->ForEachMember(v->version, [&](const std::string& m,
                                                                 const std::string& value) {
        seen_bytes += static_cast<int64_t>(9 + m.size() + value.size()) + kRecordOverhead;
        return ++seen < samples || samples == 0;
      });
      if (!s.ok()) return ReplyStorageError(r, s);
      const int64_t count = v->type == Keyspace::kList ? ListChunkCount(*v) : MemberCount(*v);
      if (seen > 0) bytes += seen_bytes * std::max(count, seen) / seen;
      if (v->type == Keyspace::kZSet) bytes += seen > 0 ? seen_bytes * count / seen : 0;  // the index
    }
    return reply::Integer(r.out, bytes);
  }
  if (sub == "stats") {
    std::string memtables = "0", table_readers = "0", block_cache = "0";
    r.server.db->GetProperty("rocksdb.cur-size-all-mem-tables", &memtables);
    r.server.db->GetProperty("rocksdb.estimate-table-readers-mem", &table_readers);
    r.server.db->GetProperty("rocksdb.block-cache-usage", &block_cache);
    reply::MapHeader(r.out, r.protocol(), 3);
    for (const auto& [name, value] : {std::make_pair("memtables.bytes", &memtables),
                                      std::make_pair("table-readers.bytes", &table_readers),
                                      std::make_pair("block-cache.bytes", &block_cache)}) {
      reply::Bulk(r.out, name);
      reply::Integer(r.out, std::strtoll(value->c_str(), nullptr, 10));
    }
    return;
  }
  if (sub == "doctor") {
    return reply::Bulk(r.out, "teksdb-server keeps its data in RocksDB; MEMORY STATS and INFO "
                              "memory report its memtables.");
  }
  if (sub == "malloc-stats") return reply::Bulk(r.out, "Stats not supported for the current allocator");
  reply::Ok(r.out);  // purge
}

// LATENCY HISTOGRAM's entry for one command or subcommand: its calls and
// the cumulative counts at powers of two of microseconds where they grow,
// as Redis replies.
void ReplyHistogram(Request& r, const std::string& name, const CommandStats& stats) {
  const uint64_t calls = stats.latency.count();
  reply::Bulk(r.out, name);
  reply::MapHeader(r.out, r.protocol(), 2);
  reply::Bulk(r.out, "calls");
  reply::Integer(r.out, static_cast<int64_t>(calls));
  reply::Bulk(r.out, "histogram_usec");
  std::string buckets;
  size_t n = 0;
  uint64_t previous = 0;
  for (double edge = 1; previous < calls && edge < 1e18; edge *= 2) {
    const uint64_t below = std::max(previous, stats.latency.CountBelow(edge + 1));
    if (below > previous) {
      reply::Integer(&buckets, static_cast<int64_t>(edge));
      reply::Integer(&buckets, static_cast<int64_t>(below));
      ++n;
    }
    previous = below;
  }
  reply::MapHeader(r.out, r.protocol(), n);
  r.out->append(buckets);
}

// LATENCY HISTOGRAM [command ...]: the commands named (a container: its
// subcommands; "client|id": that one; unknown names skipped), or all, that
// ran since the last CONFIG RESETSTAT.
void Histogram(Request& r) {
  const std::vector<std::pair<std::string, const CommandStats*>> subcommands =
      r.server.stats.Subcommands();
  std::vector<std::pair<std::string, const CommandStats*>> entries;
  auto add_command = [&](size_t i) {
    const std::string& name = CommandTable()[i].name;
    const CommandStats& stats = r.server.stats.command(i);
    if (stats.calls.load(std::memory_order_relaxed) > 0) entries.emplace_back(name, &stats);
    for (const auto& [full_name, sub_stats] : subcommands) {
      if (full_name.compare(0, name.size() + 1, name + "|") == 0 &&
          sub_stats->calls.load(std::memory_order_relaxed) > 0) {
        entries.emplace_back(full_name, sub_stats);
      }
    }
  };
  if (r.args.size() == 2) {
    for (size_t i = 0; i < CommandTable().size(); ++i) add_command(i);
  }
  for (size_t j = 2; j < r.args.size(); ++j) {
    const std::string name = AsciiLower(r.args[j]);
    if (const Command* command = LookupCommand(name)) {
      add_command(static_cast<size_t>(command - CommandTable().data()));
      continue;
    }
    for (const auto& [full_name, sub_stats] : subcommands) {
      if (full_name == name && sub_stats->calls.load(std::memory_order_relaxed) > 0) {
        entries.emplace_back(full_name, sub_stats);
      }
    }
  }
  reply::MapHeader(r.out, r.protocol(), entries.size());
  for (const auto& [name, stats] : entries) ReplyHistogram(r, name, *stats);
}

// LATENCY GRAPH event: the event's samples as a column chart, the largest
// at the top, one column per sample, oldest first, with each sample's age
// below it.
std::string Graph(const std::string& event, const std::vector<LatencyMonitor::Point>& points,
                  int64_t max_ms, int64_t now_s) {
  constexpr int kRows = 8;
  int64_t high = 0, low = INT64_MAX;
  for (const LatencyMonitor::Point& p : points) {
    high = std::max(high, p.latency_ms);
    low = std::min(low, p.latency_ms);
  }
  std::string text = event + " - high " + std::to_string(high) + " ms, low " + std::to_string(low) +
                     " ms (all time high " + std::to_string(max_ms) + " ms)\n" +
                     std::string(80, '-') + "\n";
  for (int row = kRows; row >= 1; --row) {
    for (const LatencyMonitor::Point& p : points) {
      const int64_t filled = high == 0 ? kRows : (p.latency_ms * kRows + high - 1) / high;
      text += filled >= row ? '#' : ' ';
    }
    text += '\n';
  }
  for (const LatencyMonitor::Point& p : points) {
    const int64_t age = std::max<int64_t>(0, now_s - p.time_s);
    text += age < 60 ? 's' : age < 3600 ? 'm' : 'h';
  }
  return text + "\n(s: seconds ago, m: minutes, h: hours)\n";
}

void LatencyHelp(Request& r) {
  static const char* const kLines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Prints this help."};
  reply::StatusLines(r.out, kLines);
}

// LATENCY DOCTOR: what the monitor saw, event by event, in words.
std::string Doctor(const LatencyMonitor& monitor) {
  const int64_t threshold = monitor.threshold_ms();
  if (threshold == 0) {
    return "The latency monitor is off (latency-monitor-threshold 0): CONFIG SET "
           "latency-monitor-threshold <milliseconds> to sample what takes longer. LATENCY "
           "HISTOGRAM and INFO latencystats report per-command latencies meanwhile.\n";
  }
  const std::vector<LatencyMonitor::Latest> latest = monitor.LatestEvents();
  if (latest.empty()) {
    return "No event took " + std::to_string(threshold) +
           " ms or more (latency-monitor-threshold) since the monitor was last reset.\n";
  }
  std::string text = "Events that took " + std::to_string(threshold) + " ms or more:\n";
  for (const LatencyMonitor::Latest& event : latest) {
    const std::vector<LatencyMonitor::Point> points = monitor.History(event.event);
    int64_t sum = 0;
    for (const LatencyMonitor::Point& p : points) sum += p.latency_ms;
    text += "- " + event.event + ": " + std::to_string(points.size()) + " seconds with a sample, " +
            "average " + std::to_string(points.empty() ? 0 : sum / static_cast<int64_t>(points.size())) +
            " ms, latest " + std::to_string(event.last.latency_ms) + " ms, all time high " +
            std::to_string(event.max_ms) + " ms.\n";
  }
  text += "\"command\" and \"fast-command\" are commands slower than the threshold: SLOWLOG GET "
          "names them.\n";
  return text;
}

// LATENCY LATEST | HISTORY event | RESET [event ...] | GRAPH event | DOCTOR
// | HISTOGRAM [command ...] | HELP (SubcommandError has checked the
// subcommand and its arity).
void Latency(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  LatencyMonitor& monitor = r.server.latency;
  if (sub == "latest") {
    const std::vector<LatencyMonitor::Latest> latest = monitor.LatestEvents();
    reply::ArrayHeader(r.out, latest.size());
    for (const LatencyMonitor::Latest& event : latest) {
      reply::ArrayHeader(r.out, 4);
      reply::Bulk(r.out, event.event);
      reply::Integer(r.out, event.last.time_s);
      reply::Integer(r.out, event.last.latency_ms);
      reply::Integer(r.out, event.max_ms);
    }
    return;
  }
  if (sub == "history") {
    const std::vector<LatencyMonitor::Point> points = monitor.History(r.args[2]);
    reply::ArrayHeader(r.out, points.size());
    for (const LatencyMonitor::Point& p : points) {
      reply::ArrayHeader(r.out, 2);
      reply::Integer(r.out, p.time_s);
      reply::Integer(r.out, p.latency_ms);
    }
    return;
  }
  if (sub == "reset") {
    return reply::Integer(r.out, monitor.Reset({r.args.begin() + 2, r.args.end()}));
  }
  if (sub == "graph") {
    int64_t max_ms;
    const std::vector<LatencyMonitor::Point> points = monitor.History(r.args[2]);
    if (points.empty() || !monitor.Max(r.args[2], &max_ms)) {
      return reply::Error(r.out, "ERR No samples available for event '" + r.args[2] + "'");
    }
    return reply::Verbatim(r.out, r.protocol(), Graph(r.args[2], points, max_ms, Keyspace::NowMs() / 1000));
  }
  if (sub == "doctor") return reply::Verbatim(r.out, r.protocol(), Doctor(monitor));
  if (sub == "help") return LatencyHelp(r);
  Histogram(r);
}

void Lolwut(Request& r) { reply::Bulk(r.out, "teksdb-server, speaking Redis ver. 7.0.15\n"); }

}  // namespace

void AddIntrospectionCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"object", -2, Object},   {"memory", -2, Memory}, {"latency", -2, Latency},
      {"lolwut", -1, Lolwut},
  });
}

}  // namespace teksdb::server
