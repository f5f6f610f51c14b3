// The CONFIG parameter table (config_parameters.h).
#include "config_parameters.h"

#include <cstdint>
#include <limits>

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

constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kIntMax = std::numeric_limits<int>::max();

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
  return {
      {"save", [](ServerState&) { return Fixed(""); }, nullptr, nullptr},
      {"appendonly", [](ServerState&) { return Fixed("no"); }, nullptr, nullptr},
      {"databases", [](ServerState&) { return Fixed("1"); }, nullptr, nullptr},
      {"maxmemory", [](ServerState&) { return Fixed("0"); }, nullptr, nullptr},
      {"slowlog-max-len", [](ServerState& s) { return std::to_string(s.slowlog.max_len()); },
       IntegerIn(0, kLongMax),
       [](ServerState& s, const std::string& v) { s.slowlog.set_max_len(Integer(v)); }},
      {"slowlog-log-slower-than", [](ServerState& s) { return std::to_string(s.slowlog.slower_than()); },
       IntegerIn(std::numeric_limits<int64_t>::min(), kLongMax),
       [](ServerState& s, const std::string& v) { s.slowlog.set_slower_than(Integer(v)); }},
      {"busy-reply-threshold", busy, IntegerIn(0, kLongMax), set_busy},
      {"lua-time-limit", busy, IntegerIn(0, kLongMax), set_busy},
      {"masterauth", [](ServerState& s) { return s.replication->masterauth(); },
       [](const std::string&) { return std::string(); },
       [](ServerState& s, const std::string& v) { s.replication->set_masterauth(v); }},
      {"replica-priority", priority, IntegerIn(0, kIntMax), set_priority},
      {"slave-priority", priority, IntegerIn(0, kIntMax), set_priority},
      {"min-replicas-to-write", to_write, IntegerIn(0, kIntMax), set_to_write},
      {"min-slaves-to-write", to_write, IntegerIn(0, kIntMax), set_to_write},
      {"min-replicas-max-lag", max_lag, IntegerIn(0, kIntMax), set_max_lag},
      {"min-slaves-max-lag", max_lag, IntegerIn(0, kIntMax), set_max_lag},
      {"replica-read-only", [](ServerState&) { return Fixed("yes"); }, nullptr, nullptr},
      {"slave-read-only", [](ServerState&) { return Fixed("yes"); }, nullptr, nullptr},
      {"repl-max-mbps",
       [](ServerState& s) {
         return std::to_string(s.replication->feeds().max_bytes_per_second() >> 20);
       },
       IntegerIn(0, 1 << 20),
       [](ServerState& s, const std::string& v) {
         s.replication->feeds().set_max_bytes_per_second(Integer(v) << 20);
       }},
  };
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

}  // namespace teksdb::server
