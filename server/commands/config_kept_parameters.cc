// The table of Redis 7.0's parameters kept without effect
// (config_kept_parameters.h): names, older names, kinds, defaults and bounds
// as Redis 7.0.15 documents and checks them.
#include "config_kept_parameters.h"

#include <limits>

#include "ascii_case.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using K = KeptParameter;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kIntMax = std::numeric_limits<int32_t>::max();
constexpr int64_t kIntMin = std::numeric_limits<int32_t>::min();
constexpr int64_t kUIntMax = std::numeric_limits<uint32_t>::max();
constexpr K::Kind kBool = K::kBool, kEnum = K::kEnum, kInteger = K::kInteger, kOctal = K::kOctal,
                  kMemory = K::kMemory, kString = K::kString;

}  // namespace

bool ParseMemory(const std::string& text, int64_t* bytes) {
  static const struct { const char* unit; int64_t factor; } kUnits[] = {
      {"gb", int64_t{1} << 30}, {"mb", int64_t{1} << 20}, {"kb", int64_t{1} << 10},
      {"g", 1000 * 1000 * 1000}, {"m", 1000 * 1000},     {"k", 1000},
      {"b", 1}};
  const std::string lower = AsciiLower(text);
  std::string digits = lower;
  int64_t factor = 1;
  for (const auto& u : kUnits) {
    const size_t n = std::char_traits<char>::length(u.unit);
    if (lower.size() > n && lower.compare(lower.size() - n, n, u.unit) == 0) {
      digits = lower.substr(0, lower.size() - n);
      factor = u.factor;
      break;
    }
  }
  int64_t v;
  if (!ParseStrictInt64(digits, &v) || v < 0 || v > kMax / factor) return false;
  *bytes = v * factor;
  return true;
}

namespace {

std::string Between(int64_t min, int64_t max) {
  return "argument must be between " + std::to_string(min) + " and " + std::to_string(max) +
         " inclusive";
}

}  // namespace

const std::vector<KeptParameter>& KeptParameters() {
  static const std::vector<KeptParameter> table = {
    {"rdbchecksum", nullptr, kBool, "yes", 0, 0, nullptr, true, false},
    {"daemonize", nullptr, kBool, "no", 0, 0, nullptr, true, false},
    {"io-threads-do-reads", nullptr, kBool, "no", 0, 0, nullptr, true, false},
    {"always-show-logo", nullptr, kBool, "no", 0, 0, nullptr, true, false},
    {"rdbcompression", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"rdb-del-sync-files", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"activerehashing", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"stop-writes-on-bgsave-error", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"set-proc-title", nullptr, kBool, "yes", 0, 0, nullptr, true, false},
    {"dynamic-hz", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"lazyfree-lazy-eviction", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"lazyfree-lazy-expire", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"lazyfree-lazy-server-del", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"lazyfree-lazy-user-del", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"lazyfree-lazy-user-flush", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"repl-disable-tcp-nodelay", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"repl-diskless-sync", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"aof-rewrite-incremental-fsync", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"no-appendfsync-on-rewrite", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"cluster-require-full-coverage", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"rdb-save-incremental-fsync", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"aof-load-truncated", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"aof-use-rdb-preamble", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"aof-timestamp-enabled", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"cluster-replica-no-failover", "cluster-slave-no-failover", kBool, "no", 0, 0, nullptr, false, false},
    {"replica-lazy-flush", "slave-lazy-flush", kBool, "no", 0, 0, nullptr, false, false},
    {"replica-ignore-maxmemory", "slave-ignore-maxmemory", kBool, "yes", 0, 0, nullptr, false, false},
    {"jemalloc-bg-thread", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"activedefrag", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"syslog-enabled", nullptr, kBool, "no", 0, 0, nullptr, true, false},
    {"cluster-enabled", nullptr, kBool, "no", 0, 0, nullptr, true, false},
    {"appendonly", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"cluster-allow-reads-when-down", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"cluster-allow-pubsubshard-when-down", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"crash-log-enabled", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"crash-memcheck-enabled", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"use-exit-on-panic", nullptr, kBool, "no", 0, 0, nullptr, false, true},
    {"disable-thp", nullptr, kBool, "yes", 0, 0, nullptr, true, false},
    {"cluster-allow-replica-migration", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"replica-announced", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"aof-disable-auto-gc", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"replica-ignore-disk-write-errors", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"unixsocket", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"pidfile", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"replica-announce-ip", "slave-announce-ip", kString, "", 0, 0, nullptr, false, false},
    {"cluster-announce-ip", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"cluster-config-file", nullptr, kString, "nodes.conf", 0, 0, nullptr, true, false},
    {"cluster-announce-hostname", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"syslog-ident", nullptr, kString, "redis", 0, 0, nullptr, true, false},
    {"dbfilename", nullptr, kString, "dump.rdb", 0, 0, nullptr, false, false},
    {"appendfilename", nullptr, kString, "appendonly.aof", 0, 0, nullptr, true, false},
    {"appenddirname", nullptr, kString, "appendonlydir", 0, 0, nullptr, true, false},
    {"server_cpulist", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"bio_cpulist", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"aof_rewrite_cpulist", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"bgsave_cpulist", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"ignore-warnings", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"proc-title-template", nullptr, kString, "{title} {listen-addr} {server-mode}", 0, 0, nullptr, false, false},
    {"logfile", nullptr, kString, "", 0, 0, nullptr, true, false},
    {"supervised", nullptr, kEnum, "no", 0, 0, "upstart systemd auto no", true, false},
    {"syslog-facility", nullptr, kEnum, "local0", 0, 0, "user local0 local1 local2 local3 local4 local5 local6 local7", true, false},
    {"repl-diskless-load", nullptr, kEnum, "disabled", 0, 0, "disabled on-empty-db swapdb", false, false},
    {"loglevel", nullptr, kEnum, "notice", 0, 0, "debug verbose notice warning", false, false},
    {"maxmemory-policy", nullptr, kEnum, "noeviction", 0, 0, "volatile-lru volatile-lfu volatile-random volatile-ttl allkeys-lru allkeys-lfu allkeys-random noeviction", false, false},
    {"appendfsync", nullptr, kEnum, "everysec", 0, 0, "everysec always no", false, false},
    {"sanitize-dump-payload", nullptr, kEnum, "no", 0, 0, "no yes clients", false, false},
    {"enable-protected-configs", nullptr, kEnum, "no", 0, 0, "no yes local", true, false},
    {"enable-debug-command", nullptr, kEnum, "no", 0, 0, "no yes local", true, false},
    {"enable-module-command", nullptr, kEnum, "no", 0, 0, "no yes local", true, false},
    {"cluster-preferred-endpoint-type", nullptr, kEnum, "ip", 0, 0, "ip hostname unknown-endpoint", false, false},
    {"propagation-error-behavior", nullptr, kEnum, "ignore", 0, 0, "ignore panic panic-on-replicas", false, false},
    {"shutdown-on-sigint", nullptr, kEnum, "default", 0, 0, "default save nosave now force", false, false},
    {"shutdown-on-sigterm", nullptr, kEnum, "default", 0, 0, "default save nosave now force", false, false},
    {"io-threads", nullptr, kInteger, "1", 1, 128, nullptr, true, false},
    {"auto-aof-rewrite-percentage", nullptr, kInteger, "100", 0, kIntMax, nullptr, false, false},
    {"cluster-replica-validity-factor", "cluster-slave-validity-factor", kInteger, "10", 0, kIntMax, nullptr, false, false},
    {"tcp-keepalive", nullptr, kInteger, "300", 0, kIntMax, nullptr, false, false},
    {"cluster-migration-barrier", nullptr, kInteger, "1", 0, kIntMax, nullptr, false, false},
    {"active-defrag-cycle-min", nullptr, kInteger, "1", 1, 99, nullptr, false, false},
    {"active-defrag-cycle-max", nullptr, kInteger, "25", 1, 99, nullptr, false, false},
    {"active-defrag-threshold-lower", nullptr, kInteger, "10", 0, 1000, nullptr, false, false},
    {"active-defrag-threshold-upper", nullptr, kInteger, "100", 0, 1000, nullptr, false, false},
    {"lfu-log-factor", nullptr, kInteger, "10", 0, kIntMax, nullptr, false, false},
    {"lfu-decay-time", nullptr, kInteger, "1", 0, kIntMax, nullptr, false, false},
    {"repl-diskless-sync-delay", nullptr, kInteger, "5", 0, kIntMax, nullptr, false, false},
    {"maxmemory-samples", nullptr, kInteger, "5", 1, kIntMax, nullptr, false, false},
    {"maxmemory-eviction-tenacity", nullptr, kInteger, "10", 0, 100, nullptr, false, false},
    {"timeout", nullptr, kInteger, "0", 0, kIntMax, nullptr, false, false},
    {"replica-announce-port", "slave-announce-port", kInteger, "0", 0, 65535, nullptr, false, false},
    {"tcp-backlog", nullptr, kInteger, "511", 0, kIntMax, nullptr, true, false},
    {"cluster-port", nullptr, kInteger, "0", 0, 65535, nullptr, true, false},
    {"cluster-announce-bus-port", nullptr, kInteger, "0", 0, 65535, nullptr, false, false},
    {"cluster-announce-port", nullptr, kInteger, "0", 0, 65535, nullptr, false, false},
    {"cluster-announce-tls-port", nullptr, kInteger, "0", 0, 65535, nullptr, false, false},
    {"repl-timeout", nullptr, kInteger, "60", 1, kIntMax, nullptr, false, false},
    {"repl-ping-replica-period", "repl-ping-slave-period", kInteger, "10", 1, kIntMax, nullptr, false, false},
    {"list-compress-depth", nullptr, kInteger, "0", 0, kIntMax, nullptr, false, false},
    {"rdb-key-save-delay", nullptr, kInteger, "0", kIntMin, kIntMax, nullptr, false, true},
    {"key-load-delay", nullptr, kInteger, "0", kIntMin, kIntMax, nullptr, false, true},
    {"active-expire-effort", nullptr, kInteger, "1", 1, 10, nullptr, false, false},
    {"hz", nullptr, kInteger, "10", 0, kIntMax, nullptr, false, false},
    {"watchdog-period", nullptr, kInteger, "0", 0, kIntMax, nullptr, false, true},
    {"shutdown-timeout", nullptr, kInteger, "10", 0, kIntMax, nullptr, false, false},
    {"repl-diskless-sync-max-replicas", nullptr, kInteger, "0", 0, kIntMax, nullptr, false, false},
    {"unixsocketperm", nullptr, kOctal, "0", 0, 511, nullptr, true, false},
    {"socket-mark-id", nullptr, kInteger, "0", 0, kUIntMax, nullptr, true, false},
    {"active-defrag-max-scan-fields", nullptr, kInteger, "1000", 1, kMax, nullptr, false, false},
    {"cluster-node-timeout", nullptr, kInteger, "15000", 0, kMax, nullptr, false, false},
    {"repl-backlog-size", nullptr, kMemory, "1048576", 1, kMax, nullptr, false, false},
    {"cluster-link-sendbuf-limit", nullptr, kMemory, "0", 0, kMax, nullptr, false, false},
    {"active-defrag-ignore-bytes", nullptr, kMemory, "104857600", 1, kMax, nullptr, false, false},
    {"repl-backlog-ttl", nullptr, kInteger, "3600", 0, kMax, nullptr, false, false},
    {"auto-aof-rewrite-min-size", nullptr, kMemory, "67108864", 0, kMax, nullptr, false, false},
    {"loading-process-events-interval-bytes", nullptr, kInteger, "2097152", 1024, kIntMax, nullptr, false, true},
    {"tls-port", nullptr, kInteger, "0", 0, 65535, nullptr, false, false},
    {"tls-session-cache-size", nullptr, kInteger, "20480", 0, kIntMax, nullptr, false, false},
    {"tls-session-cache-timeout", nullptr, kInteger, "300", 0, kIntMax, nullptr, false, false},
    {"tls-cluster", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"tls-replication", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"tls-auth-clients", nullptr, kEnum, "yes", 0, 0, "no yes optional", false, false},
    {"tls-prefer-server-ciphers", nullptr, kBool, "no", 0, 0, nullptr, false, false},
    {"tls-session-caching", nullptr, kBool, "yes", 0, 0, nullptr, false, false},
    {"tls-cert-file", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-key-file", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-key-file-pass", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-client-cert-file", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-client-key-file", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-client-key-file-pass", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-dh-params-file", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-ca-cert-file", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-ca-cert-dir", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-protocols", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-ciphers", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"tls-ciphersuites", nullptr, kString, "", 0, 0, nullptr, false, false},
    {"save", nullptr, kString, "", 0, 0, nullptr, false, false},
  };
  return table;
}

std::string CheckKeptValue(const KeptParameter& p, const std::string& value, std::string* shown) {
  switch (p.kind) {
    case K::kBool: {
      const std::string word = AsciiLower(value);
      if (word != "yes" && word != "no") return "argument must be 'yes' or 'no'";
      *shown = word;
      return "";
    }
    case K::kEnum: {
      const std::string word = AsciiLower(value);
      std::string allowed, choice;
      const std::string choices = p.choices;
      for (size_t at = 0; at <= choices.size();) {
        const size_t end = std::min(choices.find(' ', at), choices.size());
        choice = choices.substr(at, end - at);
        if (choice == word) {
          *shown = word;
          return "";
        }
        allowed += (allowed.empty() ? "" : ", ") + choice;
        at = end + 1;
      }
      return "argument(s) must be one of the following: " + allowed;
    }
    case K::kInteger: {
      int64_t v;
      if (!ParseStrictInt64(value, &v)) return "argument couldn't be parsed into an integer";
      if (v < p.min || v > p.max) return Between(p.min, p.max);
      *shown = std::to_string(v);
      return "";
    }
    case K::kOctal: {
      size_t used = 0;
      int64_t v = -1;
      try {
        v = std::stoll(value, &used, 8);
      } catch (const std::exception&) {
        used = 0;
      }
      if (value.empty() || used != value.size()) return "argument couldn't be parsed into an integer";
      if (v < p.min || v > p.max) return Between(p.min, p.max);
      *shown = value;
      return "";
    }
    case K::kMemory:
    case K::kMemoryOrPercent: {
      int64_t v;
      if (p.kind == K::kMemoryOrPercent && !value.empty() && value.back() == '%') {
        if (!ParseStrictInt64(value.substr(0, value.size() - 1), &v) || v < 0) {
          return "argument must be a memory or percent value";
        }
        // (Kept negative, as Redis keeps it: its lower bound is minus the
        // largest percentage.)
        if (-v < p.min) return "percentage argument must be less or equal to " + std::to_string(-p.min);
        *shown = std::to_string(v) + "%";
        return "";
      }
      if (!ParseMemory(value, &v)) {
        return p.kind == K::kMemory ? "argument must be a memory value"
                                    : "argument must be a memory or percent value";
      }
      if (v < p.min || v > p.max) return Between(p.min, p.max);
      *shown = std::to_string(v);
      return "";
    }
    case K::kString:
      *shown = value;
      return "";
  }
  return "";
}

}  // namespace teksdb::server
