// Introspection commands as a client of Redis 7.0 expects them: OBJECT
// (ENCODING: object_encoding.h; FREQ refused as Redis
// refuses it without an LFU policy; REFCOUNT as Redis's, whose integers
// 0-9999 are shared objects; IDLETIME refused: key access times are not
// kept, since a clock touched by every read measured 9% of a GET's server
// CPU), MEMORY USAGE (the bytes the key's records
// take, estimated from SAMPLES members as Redis does), MEMORY STATS and
// DOCTOR, LATENCY (the latency monitor is off, as Redis's default; its
// per-command HISTOGRAM comes from INFO's latency histograms) and LOLWUT.
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

// OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT key (SubcommandError checked it).
void Object(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
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

// MEMORY USAGE key [SAMPLES count] | STATS | DOCTOR | PURGE | MALLOC-STATS
void Memory(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
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

// LATENCY LATEST | HISTORY event | RESET [event ...] | DOCTOR | GRAPH event
// | HISTOGRAM [command ...]
void Latency(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "latest" || sub == "history") return reply::ArrayHeader(r.out, 0);
  if (sub == "reset") return reply::Integer(r.out, 0);
  if (sub == "graph") return reply::Error(r.out, "ERR No samples available for event '" + r.args[2] + "'");
  if (sub == "doctor") {
    return reply::Bulk(r.out, "Latency monitoring is disabled in this teksdb-server instance "
                              "(latency-monitor-threshold 0); LATENCY HISTOGRAM and INFO "
                              "latencystats report per-command latencies.");
  }
  // histogram: the commands named (or all that ran), cumulative counts at
  // powers of two of microseconds where they grow, as Redis replies.
  std::vector<size_t> commands;
  for (size_t i = 0; i < CommandTable().size(); ++i) {
    const bool named = r.args.size() == 2 ||
        std::any_of(r.args.begin() + 2, r.args.end(),
                    [&](const std::string& a) { return AsciiLower(a) == CommandTable()[i].name; });
    if (named && r.server.stats.command(i).calls.load(std::memory_order_relaxed) > 0) {
      commands.push_back(i);
    }
  }
  reply::MapHeader(r.out, r.protocol(), commands.size());
  for (size_t i : commands) {
    const CommandStats& stats = r.server.stats.command(i);
    const uint64_t calls = stats.latency.count();
    reply::Bulk(r.out, CommandTable()[i].name);
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
