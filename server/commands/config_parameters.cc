// The CONFIG parameter table (config_parameters.h).
#include "config_parameters.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "ascii_case.h"
#include "config_kept_parameters.h"
#include "keyspace_events.h"
#include "redis_args.h"
#include "replication.h"
#include "script_engine.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// An integer in [lo, hi], with Redis's complaints.
std::function<std::string(const std::string&)> IntegerIn(int64_t lo, int64_t hi) {
  return [lo, hi](const std::string& value) -> std::string {
    int64_t v;
    if (!ParseStrictInt64(value, &v)) return "argument couldn't be parsed into an integer";
    if (v < lo || v > hi) {
      return "argument must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
             " inclusive";
    }
    return "";
  };
}

int64_t Integer(const std::string& value) {
  int64_t v = 0;
  ParseStrictInt64(value, &v);
  return v;
}

std::string Fixed(const char* value) { return value; }

// What CONFIG SET answers for a parameter that cannot change at run time.
std::string Immutable(const std::string&) { return "can't set immutable config"; }
std::string ReadOnlyReplicas(const std::string& value) {
  return AsciiLower(value) == "yes" ? std::string() : "teksdb-server's replicas are always read-only";
}

// The kept parameters (config_kept_parameters.h), by name and by alias:
// the value set last, or the default.
// A check of a new value as `parameter`'s (Redis's complaint, or empty).
std::function<std::string(const std::string&)> CheckedAs(const KeptParameter* parameter) {
  return [parameter](const std::string& value) {
    std::string shown;
    return CheckKeptValue(*parameter, value, &shown);
  };
}
// A value `parameter` accepts, as CONFIG GET shows it (memory values in
// bytes, words in lower case).
std::string ShownAs(const KeptParameter& parameter, const std::string& value) {
  std::string shown;
  CheckKeptValue(parameter, value, &shown);
  return shown;
}

void AddKeptParameters(std::vector<ConfigParameter>* parameters) {
  for (const KeptParameter& k : KeptParameters()) {
    const KeptParameter* kept = &k;
    auto get = [kept](ServerState& s) {
      std::lock_guard<std::mutex> lock(s.kept_config.mu);
      const auto it = s.kept_config.values.find(kept->name);
      return it == s.kept_config.values.end() ? std::string(kept->default_value) : it->second;
    };
    const std::function<std::string(const std::string&)> check =
        k.immutable ? std::function<std::string(const std::string&)>(Immutable) : CheckedAs(kept);
    auto set = [kept](ServerState& s, const std::string& value) {
      const std::string shown = ShownAs(*kept, value);
      std::lock_guard<std::mutex> lock(s.kept_config.mu);
      s.kept_config.values[kept->name] = shown;
    };
    parameters->push_back({k.name, get, check, set, k.hidden});
    if (k.alias != nullptr) {
      parameters->push_back({k.alias, get, check, set, k.hidden});
      parameters->back().alias_of = k.name;
    }
  }
}

constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kIntMin = std::numeric_limits<int>::min();

// maxmemory's value: memory units, as Redis reads them (memory_limit.h acts on it).
const KeptParameter kMaxmemory{"maxmemory", nullptr, KeptParameter::kMemory, "0", 0, kLongMax,
                               nullptr, false, false};
// hll-sparse-max-bytes: memory units (hyperloglog.h's sparse_max_bytes).
const KeptParameter kHllSparseMaxBytes{"hll-sparse-max-bytes", nullptr, KeptParameter::kMemory,
                                       "", 0, kLongMax, nullptr, false, false};
// stream-node-max-bytes and -entries (stream_store.h's node sizes).
const KeptParameter kStreamNodeMaxBytes{"stream-node-max-bytes", nullptr, KeptParameter::kMemory,
                                        "", 0, kLongMax, nullptr, false, false};
const KeptParameter kStreamNodeMaxEntries{"stream-node-max-entries", nullptr,
                                          KeptParameter::kInteger, "", 0, kLongMax, nullptr, false,
                                          false};
// replica-serve-stale-data's: yes or no (Execute's MASTERDOWN).
const KeptParameter kServeStale{"replica-serve-stale-data", nullptr, KeptParameter::kBool, "yes",
                                0, 0, nullptr, false, false};

// What one client may hold (client_limits.h).
const KeptParameter kProtoMaxBulkLen{"proto-max-bulk-len", nullptr, KeptParameter::kMemory, "",
                                     1048576, kLongMax, nullptr, false, false};
const KeptParameter kQueryBufferLimit{"client-query-buffer-limit", nullptr, KeptParameter::kMemory,
                                      "", 1048576, kLongMax, nullptr, false, false};
const KeptParameter kProtectedMode{"protected-mode", nullptr, KeptParameter::kBool, "yes", 0, 0,
                                   nullptr, false, false};
// maxmemory-clients: bytes, or a percentage of maxmemory ("10%").
const KeptParameter kMaxmemoryClients{"maxmemory-clients", nullptr, KeptParameter::kMemoryOrPercent,
                                      "0", -100, kLongMax, nullptr, false, false};

// The client eviction limit, after maxmemory-clients or maxmemory changed
// (client_limits.h): evicts down to it at once, as Redis's next event
// loop turn does.
void ApplyClientEvictionLimit(ServerState& s) {
  s.clients.SetEvictionLimit(s.client_limits.EvictionLimit(s.memory.limit()));
}

// client-output-buffer-limit: "<class> <hard> <soft> <soft seconds>" for
// any of the classes normal, replica (or slave) and pubsub, as Redis 7.0
// reads it; *limits gets the classes given. Redis's complaint, or empty.
std::string ParseOutputLimits(
    const std::string& text,
    std::vector<std::pair<ClientLimits::Class, ClientLimits::OutputLimit>>* limits) {
  std::vector<std::string> words;
  if (!SplitRedisArgs(text, &words) || words.size() % 4 != 0) {
    return "Wrong number of arguments in buffer limit configuration.";
  }
  for (size_t i = 0; i < words.size(); i += 4) {
    const std::string name = AsciiLower(words[i]);
    ClientLimits::Class type;
    if (name == "normal") {
      type = ClientLimits::kNormal;
    } else if (name == "replica" || name == "slave") {
      type = ClientLimits::kReplica;
    } else if (name == "pubsub") {
      type = ClientLimits::kPubSub;
    } else {
      return "Invalid client class specified in buffer limit configuration.";
    }
    ClientLimits::OutputLimit limit;
    if (!ParseMemory(words[i + 1], &limit.hard_bytes) ||
        !ParseMemory(words[i + 2], &limit.soft_bytes) ||
        !ParseStrictInt64(words[i + 3], &limit.soft_seconds) || limit.soft_seconds < 0) {
      return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
    }
    limits->emplace_back(type, limit);
  }
  return "";
}

std::string OutputLimitsText(const ClientLimits& limits) {
  std::string text;
  for (const auto& [type, name] : {std::pair{ClientLimits::kNormal, "normal"},
                                   std::pair{ClientLimits::kReplica, "slave"},
                                   std::pair{ClientLimits::kPubSub, "pubsub"}}) {
    const ClientLimits::OutputLimit limit = limits.output_limit(type);
    text += std::string(text.empty() ? "" : " ") + name + " " + std::to_string(limit.hard_bytes) +
            " " + std::to_string(limit.soft_bytes) + " " + std::to_string(limit.soft_seconds);
  }
  return text;
}

void AddClientLimits(std::vector<ConfigParameter>* parameters) {
  parameters->push_back(
      {"proto-max-bulk-len",
       [](ServerState& s) { return std::to_string(s.client_limits.proto_max_bulk_len.load()); },
       CheckedAs(&kProtoMaxBulkLen),
       [](ServerState& s, const std::string& v) {
         s.client_limits.proto_max_bulk_len = Integer(ShownAs(kProtoMaxBulkLen, v));
       }});
  parameters->push_back(
      {"client-query-buffer-limit",
       [](ServerState& s) { return std::to_string(s.client_limits.query_buffer_limit.load()); },
       CheckedAs(&kQueryBufferLimit),
       [](ServerState& s, const std::string& v) {
         s.client_limits.query_buffer_limit = Integer(ShownAs(kQueryBufferLimit, v));
       }});
  parameters->push_back(
      {"protected-mode",
       [](ServerState& s) { return std::string(s.client_limits.protected_mode ? "yes" : "no"); },
       CheckedAs(&kProtectedMode),
       [](ServerState& s, const std::string& v) {
         s.client_limits.protected_mode = ShownAs(kProtectedMode, v) == "yes";
       }});
  ConfigParameter maxclients{
      "maxclients", [](ServerState& s) { return std::to_string(s.client_limits.maxclients.load()); },
      IntegerIn(1, std::numeric_limits<uint32_t>::max()),
      [](ServerState& s, const std::string& v) { s.client_limits.maxclients = Integer(v); }};
  // More clients than the descriptors left to them (client_limits.h):
  // Redis's refusal, naming the most it can take.
  maxclients.check_in_server = [](ServerState& s, const std::string& v) {
    const int64_t most = s.client_limits.maxclients_possible.load();
    if (Integer(v) <= most) return std::string();
    return "The operating system is not able to handle the specified number of clients, try with " +
           std::to_string(most);
  };
  parameters->push_back(std::move(maxclients));
  // oom-score-adj and its values, applied at once (oom_score.h): the check
  // applies them, so that what the kernel refuses is refused (Redis's
  // "Failed to set current oom_score_adj"), the set again at start.
  auto replica = [](ServerState& s) { return s.replication != nullptr && s.replication->replica(); };
  auto apply_mode = [replica](ServerState& s, const std::string& v) {
    OomScore::Mode mode;
    OomScore::ParseMode(v, &mode);
    return s.oom_score.SetMode(mode, replica(s));
  };
  auto apply_values = [replica](ServerState& s, const std::string& v) {
    std::array<int, 3> values;
    OomScore::ParseValues(v, &values);
    return s.oom_score.SetValues(values, replica(s));
  };
  ConfigParameter oom_mode{
      "oom-score-adj", [](ServerState& s) { return s.oom_score.mode_text(); },
      [](const std::string& v) {
        OomScore::Mode mode;
        return OomScore::ParseMode(v, &mode)
                   ? std::string()
                   : std::string("argument(s) must be one of the following: no, yes, relative, absolute");
      },
      apply_mode};
  oom_mode.check_in_server = apply_mode;
  parameters->push_back(std::move(oom_mode));
  ConfigParameter oom_values{
      "oom-score-adj-values", [](ServerState& s) { return s.oom_score.values_text(); },
      [](const std::string& v) {
        std::array<int, 3> values;
        return OomScore::ParseValues(v, &values);
      },
      apply_values};
  oom_values.check_in_server = apply_values;
  parameters->push_back(std::move(oom_values));
  parameters->push_back(
      {"maxmemory-clients",
       [](ServerState& s) {
         const int64_t v = s.client_limits.maxmemory_clients.load();
         return v < 0 ? std::to_string(-v) + "%" : std::to_string(v);
       },
       CheckedAs(&kMaxmemoryClients),
       [](ServerState& s, const std::string& v) {
         const std::string shown = ShownAs(kMaxmemoryClients, v);
         s.client_limits.maxmemory_clients =
             shown.back() == '%' ? -Integer(shown.substr(0, shown.size() - 1)) : Integer(shown);
         ApplyClientEvictionLimit(s);
       }});
  parameters->push_back(
      {"client-output-buffer-limit", [](ServerState& s) { return OutputLimitsText(s.client_limits); },
       [](const std::string& v) {
         std::vector<std::pair<ClientLimits::Class, ClientLimits::OutputLimit>> limits;
         return ParseOutputLimits(v, &limits);
       },
       [](ServerState& s, const std::string& v) {
         std::vector<std::pair<ClientLimits::Class, ClientLimits::OutputLimit>> limits;
         ParseOutputLimits(v, &limits);
         for (const auto& [type, limit] : limits) s.client_limits.set_output_limit(type, limit);
       }});
}

// latency-tracking-info-percentiles: numbers from 0 to 100, by spaces (none:
// no percentiles); false if `text` is not that.
bool ParsePercentiles(const std::string& text, std::vector<double>* percentiles) {
  std::vector<std::string> words;
  if (!SplitRedisArgs(text, &words)) return false;
  for (const std::string& word : words) {
    char* parsed_end = nullptr;
    const double v = std::strtod(word.c_str(), &parsed_end);
    if (parsed_end != word.c_str() + word.size() || !(v >= 0 && v <= 100)) return false;
    percentiles->push_back(v);
  }
  return true;
}

const KeptParameter kLatencyTracking{"latency-tracking", nullptr, KeptParameter::kBool, "yes", 0, 0,
                                     nullptr, false, false};

void AddLatencyTracking(std::vector<ConfigParameter>* parameters) {
  parameters->push_back(
      {"latency-tracking",
       [](ServerState& s) { return std::string(s.stats.latency_tracking() ? "yes" : "no"); },
       CheckedAs(&kLatencyTracking),
       [](ServerState& s, const std::string& v) {
         s.stats.set_latency_tracking(ShownAs(kLatencyTracking, v) == "yes");
       }});
  parameters->push_back(
      {"latency-tracking-info-percentiles",
       [](ServerState& s) {
         std::string text;
         for (const double p : s.stats.percentiles()) {
           text += (text.empty() ? "" : " ") + PercentileText(p);
         }
         return text;
       },
       [](const std::string& v) {
         std::vector<double> percentiles;
         return ParsePercentiles(v, &percentiles)
                    ? std::string()
                    : "latency-tracking-info-percentiles should be a list of numbers between 0 "
                      "and 100";
       },
       [](ServerState& s, const std::string& v) {
         std::vector<double> percentiles;
         ParsePercentiles(v, &percentiles);
         s.stats.set_percentiles(std::move(percentiles));
       }});
}

// The compact collections' limits (compact_limits.h), with Redis's checks
// and units (entries: integers; values: memory units, shown in bytes).
struct CompactLimitParameter {
  KeptParameter spec;
  std::atomic<int64_t> CompactLimits::*limit;
};
const CompactLimitParameter kCompactLimits[] = {
    {{"hash-max-listpack-entries", "hash-max-ziplist-entries", KeptParameter::kInteger, "", 0,
      kLongMax, nullptr, false, false},
     &CompactLimits::hash_entries},
    {{"hash-max-listpack-value", "hash-max-ziplist-value", KeptParameter::kMemory, "", 0, kLongMax,
      nullptr, false, false},
     &CompactLimits::hash_value},
    {{"set-max-intset-entries", nullptr, KeptParameter::kInteger, "", 0, kLongMax, nullptr, false,
      false},
     &CompactLimits::set_intset_entries},
    {{"set-max-listpack-entries", nullptr, KeptParameter::kInteger, "", 0, kLongMax, nullptr, false,
      false},
     &CompactLimits::set_entries},
    {{"set-max-listpack-value", nullptr, KeptParameter::kMemory, "", 0, kLongMax, nullptr, false,
      false},
     &CompactLimits::set_value},
    {{"zset-max-listpack-entries", "zset-max-ziplist-entries", KeptParameter::kInteger, "", 0,
      kLongMax, nullptr, false, false},
     &CompactLimits::zset_entries},
    {{"zset-max-listpack-value", "zset-max-ziplist-value", KeptParameter::kMemory, "", 0, kLongMax,
      nullptr, false, false},
     &CompactLimits::zset_value},
    {{"list-max-listpack-size", "list-max-ziplist-size", KeptParameter::kInteger, "", kIntMin,
      kIntMax, nullptr, false, false},
     &CompactLimits::list_fill},
};

void AddCompactLimits(std::vector<ConfigParameter>* parameters) {
  for (const CompactLimitParameter& c : kCompactLimits) {
    const CompactLimitParameter* p = &c;
    auto get = [p](ServerState& s) { return std::to_string((s.compact_limits.*p->limit).load()); };
    auto set = [p](ServerState& s, const std::string& v) {
      (s.compact_limits.*p->limit).store(Integer(ShownAs(p->spec, v)), std::memory_order_relaxed);
    };
    parameters->push_back({c.spec.name, get, CheckedAs(&c.spec), set});
    if (c.spec.alias != nullptr) {
      parameters->push_back({c.spec.alias, get, CheckedAs(&c.spec), set});
      parameters->back().alias_of = c.spec.name;
    }
  }
}

std::vector<ConfigParameter> MakeParameters() {
  auto busy = [](ServerState& s) { return std::to_string(s.scripts->running().busy_threshold_ms()); };
  auto set_busy = [](ServerState& s, const std::string& v) {
    s.scripts->running().set_busy_threshold_ms(Integer(v));
  };
  auto priority = [](ServerState& s) {
    return std::to_string(s.replication->settings().replica_priority.load());
  };
  auto set_priority = [](ServerState& s, const std::string& v) {
    s.replication->settings().replica_priority = static_cast<int>(Integer(v));
  };
  auto to_write = [](ServerState& s) {
    return std::to_string(s.replication->settings().min_replicas_to_write.load());
  };
  auto set_to_write = [](ServerState& s, const std::string& v) {
    s.replication->settings().min_replicas_to_write = static_cast<int>(Integer(v));
  };
  auto max_lag = [](ServerState& s) {
    return std::to_string(s.replication->settings().min_replicas_max_lag.load());
  };
  auto set_max_lag = [](ServerState& s, const std::string& v) {
    s.replication->settings().min_replicas_max_lag = static_cast<int>(Integer(v));
  };
  auto replicaof = [](ServerState& s) {
    const ReplicationHistory history = s.replication->history();
    return history.replica() ? history.primary_host + " " + std::to_string(history.primary_port)
                             : std::string();
  };
  auto serve_stale = [](ServerState& s) { return std::string(s.serve_stale_data ? "yes" : "no"); };
  const auto check_serve_stale = CheckedAs(&kServeStale);
  auto set_serve_stale = [](ServerState& s, const std::string& v) {
    s.serve_stale_data = ShownAs(kServeStale, v) == "yes";
  };
  std::vector<ConfigParameter> parameters = {
      {"databases", [](ServerState&) { return std::to_string(Keyspace::kDatabases); }, Immutable,
       nullptr},
      // bind and port move the listening socket at their check
      // (listen_address.h): a move that fails refuses the CONFIG SET; one
      // that worked stays, even if a later parameter of the same CONFIG SET
      // is refused. (Their set has nothing left to do.)
      {"port", [](ServerState& s) { return std::to_string(s.listen.port()); }, IntegerIn(0, 65535),
       [](ServerState&, const std::string&) {}, false,
       [](ServerState& s, const std::string& v) {
         return s.listen.Move(s.listen.bind(), static_cast<uint16_t>(Integer(v)));
       }},
      {"bind", [](ServerState& s) { return s.listen.bind(); },
       [](const std::string&) { return std::string(); }, [](ServerState&, const std::string&) {},
       false,
       [](ServerState& s, const std::string& v) {
         return s.listen.Move(v == "*" ? "0.0.0.0" : (v == "::*" ? "::" : v), s.listen.port());
       }},
      {"dir", [](ServerState& s) { return s.dir; }, Immutable, nullptr},
      {"replicaof", replicaof, Immutable, nullptr},
      {"slaveof", replicaof, Immutable, nullptr, false, nullptr, "replicaof"},
      {"notify-keyspace-events",
       [](ServerState& s) { return KeyspaceEventClasses(s.notify_keyspace_events.load()); },
       [](const std::string& v) {
         return KeyspaceEventFlags(v) < 0
                    ? std::string("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
                    : std::string();
       },
       [](ServerState& s, const std::string& v) { s.notify_keyspace_events = KeyspaceEventFlags(v); }},
      {"maxmemory", [](ServerState& s) { return std::to_string(s.memory.limit()); },
       CheckedAs(&kMaxmemory),
       [](ServerState& s, const std::string& v) {
         s.memory.set_limit(Integer(ShownAs(kMaxmemory, v)));
         ApplyClientEvictionLimit(s);
       }},
      {"hll-sparse-max-bytes", [](ServerState& s) { return std::to_string(s.hll_sparse_max_bytes.load()); },
       CheckedAs(&kHllSparseMaxBytes),
       [](ServerState& s, const std::string& v) {
         s.hll_sparse_max_bytes = Integer(ShownAs(kHllSparseMaxBytes, v));
       }},
      {"stream-node-max-bytes", [](ServerState& s) { return std::to_string(s.stream_node_max_bytes.load()); },
       CheckedAs(&kStreamNodeMaxBytes),
       [](ServerState& s, const std::string& v) {
         s.stream_node_max_bytes = Integer(ShownAs(kStreamNodeMaxBytes, v));
       }},
      {"stream-node-max-entries",
       [](ServerState& s) { return std::to_string(s.stream_node_max_entries.load()); },
       CheckedAs(&kStreamNodeMaxEntries),
       [](ServerState& s, const std::string& v) { s.stream_node_max_entries = Integer(v); }},
      {"replica-serve-stale-data", serve_stale, check_serve_stale, set_serve_stale},
      {"slave-serve-stale-data", serve_stale, check_serve_stale, set_serve_stale, false, nullptr,
       "replica-serve-stale-data"},
      {"tracking-table-max-keys", [](ServerState& s) { return std::to_string(s.tracking.max_keys()); },
       IntegerIn(0, kLongMax),
       [](ServerState& s, const std::string& v) { s.tracking.SetMaxKeys(Integer(v)); }},
      {"requirepass", [](ServerState& s) { return s.acl.requirepass(); },
       [](const std::string&) { return std::string(); },
       [](ServerState& s, const std::string& v) { s.acl.SetRequirePass(v); }},
      {"aclfile", [](ServerState& s) { return s.acl_file; }, Immutable, nullptr},
      {"acl-pubsub-default",
       [](ServerState& s) {
         return std::string(s.acl.all_channels_default() ? "allchannels" : "resetchannels");
       },
       [](const std::string& v) {
         return AsciiLower(v) == "allchannels" || AsciiLower(v) == "resetchannels"
                    ? std::string()
                    : std::string("argument(s) must be one of the following: allchannels, resetchannels");
       },
       [](ServerState& s, const std::string& v) { s.acl.set_all_channels_default(AsciiLower(v) == "allchannels"); }},
      {"acllog-max-len", [](ServerState& s) { return std::to_string(s.acl_log.max_len()); },
       IntegerIn(0, kLongMax), [](ServerState& s, const std::string& v) { s.acl_log.set_max_len(Integer(v)); }},
      {"slowlog-max-len", [](ServerState& s) { return std::to_string(s.slowlog.max_len()); },
       IntegerIn(0, kLongMax),
       [](ServerState& s, const std::string& v) { s.slowlog.set_max_len(Integer(v)); }},
      {"slowlog-log-slower-than", [](ServerState& s) { return std::to_string(s.slowlog.slower_than()); },
       IntegerIn(std::numeric_limits<int64_t>::min(), kLongMax),
       [](ServerState& s, const std::string& v) { s.slowlog.set_slower_than(Integer(v)); }},
      {"latency-monitor-threshold", [](ServerState& s) { return std::to_string(s.latency.threshold_ms()); },
       IntegerIn(0, kLongMax),
       [](ServerState& s, const std::string& v) { s.latency.set_threshold_ms(Integer(v)); }},
      {"busy-reply-threshold", busy, IntegerIn(0, kLongMax), set_busy},
      {"lua-time-limit", busy, IntegerIn(0, kLongMax), set_busy, false, nullptr,
       "busy-reply-threshold"},
      {"bind-source-addr", [](ServerState& s) { return s.replication->bind_source_addr(); },
       [](const std::string&) { return std::string(); },
       [](ServerState& s, const std::string& v) { s.replication->set_bind_source_addr(v); }},
      {"masterauth", [](ServerState& s) { return s.replication->auth().password; },
       [](const std::string&) { return std::string(); },
       [](ServerState& s, const std::string& v) { s.replication->set_masterauth(v); }},
      {"masteruser", [](ServerState& s) { return s.replication->auth().user; },
       [](const std::string&) { return std::string(); },
       [](ServerState& s, const std::string& v) { s.replication->set_masteruser(v); }},
      {"replica-priority", priority, IntegerIn(0, kIntMax), set_priority},
      {"slave-priority", priority, IntegerIn(0, kIntMax), set_priority, false, nullptr,
       "replica-priority"},
      {"min-replicas-to-write", to_write, IntegerIn(0, kIntMax), set_to_write},
      {"min-slaves-to-write", to_write, IntegerIn(0, kIntMax), set_to_write, false, nullptr,
       "min-replicas-to-write"},
      {"min-replicas-max-lag", max_lag, IntegerIn(0, kIntMax), set_max_lag},
      {"min-slaves-max-lag", max_lag, IntegerIn(0, kIntMax), set_max_lag, false, nullptr,
       "min-replicas-max-lag"},
      // (A replica here only ever applies its primary's WAL: "yes" is all it takes.)
      {"replica-read-only", [](ServerState&) { return Fixed("yes"); }, ReadOnlyReplicas,
       [](ServerState&, const std::string&) {}},
      {"slave-read-only", [](ServerState&) { return Fixed("yes"); }, ReadOnlyReplicas,
       [](ServerState&, const std::string&) {}, false, nullptr, "replica-read-only"},
      {"repl-max-mbps",
       [](ServerState& s) {
         return std::to_string(s.replication->feeds().max_bytes_per_second() >> 20);
       },
       IntegerIn(0, 1 << 20),
       [](ServerState& s, const std::string& v) {
         s.replication->feeds().set_max_bytes_per_second(Integer(v) << 20);
       }},
  };
  AddCompactLimits(&parameters);
  AddClientLimits(&parameters);
  AddLatencyTracking(&parameters);
  AddKeptParameters(&parameters);
  return parameters;
}

}  // namespace

const std::vector<ConfigParameter>& ConfigParameters() {
  static const std::vector<ConfigParameter> parameters = MakeParameters();
  return parameters;
}

const ConfigParameter* FindConfigParameter(const std::string& lower_case_name) {
  for (const ConfigParameter& p : ConfigParameters()) {
    if (lower_case_name == p.name) return &p;
  }
  return nullptr;
}

namespace {
// The kept parameter named (or once named) `name`, or null.
const KeptParameter* FindKept(const std::string& name) {
  for (const KeptParameter& k : KeptParameters()) {
    if (name == k.name || (k.alias != nullptr && name == k.alias)) return &k;
  }
  return nullptr;
}
}  // namespace

std::string CheckConfigAtStart(const std::string& lower_case_name, const std::string& value) {
  // (A kept parameter that CONFIG SET may not change is set here.)
  if (const KeptParameter* kept = FindKept(lower_case_name); kept != nullptr) {
    std::string shown;
    return CheckKeptValue(*kept, value, &shown);
  }
  return FindConfigParameter(lower_case_name)->check(value);
}

void SetConfigAtStart(ServerState& server, const std::string& lower_case_name,
                      const std::string& value) {
  if (const KeptParameter* kept = FindKept(lower_case_name); kept != nullptr && kept->immutable) {
    std::lock_guard<std::mutex> lock(server.kept_config.mu);
    server.kept_config.values[kept->name] = ShownAs(*kept, value);
    return;
  }
  const ConfigParameter* parameter = FindConfigParameter(lower_case_name);
  if (parameter->set) parameter->set(server, value);
}

}  // namespace teksdb::server
