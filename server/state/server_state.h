// ServerState and ClientState: what the whole server shares (the keyspace,
// stats, Pub/Sub, clients, the slow log, the script engine) and what one
// connection owns (authentication, protocol, MULTI's queue, WATCH,
// subscriptions, a blocked command's keys). Commands reach both through
// their Request (request.h).
//
// Thread safety: ServerState's members are thread-safe objects or atomics,
// set before the server starts serving, except as each says. A ClientState
// belongs to its connection: one request at a time touches it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "acl_log.h"
#include "acl_users.h"
#include "client_limits.h"
#include "client_pause.h"
#include "client_registry.h"
#include "client_tracking.h"
#include "keyspace.h"
#include "latency_monitor.h"
#include "compact_limits.h"
#include "listen_address.h"
#include "memory_limit.h"
#include "migrate_sockets.h"
#include "monitors.h"
#include "oom_score.h"
#include "pubsub.h"
#include "recent_peak.h"
#include "replica_feeds.h"
#include "scan_cursors.h"
#include "server_stats.h"
#include "slow_log.h"
#include "watched_keys.h"

namespace teksdb::server {

class ExpirySweeper;
class Replication;
class ScriptEngine;
class StaleMemberFilterFactory;
class StorageHealth;

// What the whole server shares.
struct ServerState {
  ServerState(size_t command_count, AclUsers& users) : acl(users), stats(command_count) {}

  Keyspace* keyspace = nullptr;
  ROCKSDB_NAMESPACE::DB* db = nullptr;
  AclUsers& acl;   // ACL's users and requirepass (main's: they outlive a full sync)
  AclLog acl_log;  // ACL LOG
  // aclfile as given (CONFIG GET, ACL LOAD's errors) and as opened
  // (relative to dir); empty: none. Set at start.
  std::string acl_file, acl_file_path;
  std::string dir;           // --dir (CONFIG GET)
  ListenAddress listen;      // bind and port (CONFIG GET and SET)
  std::string enable_debug_command = "no";  // DEBUG: "no", "yes" or "local"
  std::atomic<int> notify_keyspace_events{0};  // keyspace_events.h's flags
  std::atomic<bool> scripts_call_denied{false};  // DEBUG SET-DISABLE-DENY-SCRIPTS
  std::atomic<bool> cron_paused{false};  // DEBUG PAUSE-CRON: the server's cron does nothing
  // DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE and FUNCTION RESTORE take a
  // payload whatever its CRC64 (the object is checked whole all the same).
  std::atomic<bool> skip_checksum_validation{false};
  std::atomic<bool> serve_stale_data{true};  // replica-serve-stale-data
  // CONFIG's parameters kept without effect (config_kept_parameters.h),
  // those set so far: name to value.
  struct KeptConfig {
    std::mutex mu;
    std::map<std::string, std::string> values;
  } kept_config;
  std::string memtable;      // the memtable factory's Name(), for INFO
  int64_t started_ms = 0;
  std::atomic<uint64_t> commands{0};
  std::atomic<uint64_t> connections{0};
  std::atomic<int64_t> connected{0};
  // Connections refused (maxclients, protected mode): INFO's rejected_connections.
  std::atomic<uint64_t> rejected_connections{0};
  ClientLimits client_limits;  // maxclients, buffer limits, protected-mode
  OomScore oom_score;          // oom-score-adj
  // The largest query and output buffers of the last seconds (INFO's
  // client_recent_max_input_buffer, client_recent_max_output_buffer).
  RecentPeak recent_max_input, recent_max_output;
  ServerStats stats;  // one entry per command of the table
  ScanCursors cursors;                      // SCAN, HSCAN
  PubSub pubsub;                            // SUBSCRIBE, PUBLISH
  Monitors monitors;                        // MONITOR
  MemoryLimit memory;                       // maxmemory, used_memory
  CompactLimits compact_limits;             // hash-max-listpack-entries, ...
  MigrateSockets migrate_sockets;           // MIGRATE's connections to other servers
  ClientPause pause;                        // CLIENT PAUSE, FAILOVER's hold on writers
  std::atomic<int64_t> hll_sparse_max_bytes{3000};  // hll-sparse-max-bytes (hyperloglog.h)
  // The sequence up to which WAITAOF last synced the WAL (without --sync).
  std::atomic<uint64_t> wal_synced_through{0};
  // stream-node-max-bytes and -entries (stream_store.h's nodes)
  std::atomic<int64_t> stream_node_max_bytes{4096};
  std::atomic<int64_t> stream_node_max_entries{100};
  ScriptEngine* scripts = nullptr;          // EVAL, SCRIPT (scripting/; set by main)
  Replication* replication = nullptr;       // REPLICAOF, WAIT, ... (replication/; set by main)
  std::string run_id;                       // INFO's: 40 hex digits, new each start
  SlowLog slowlog;                          // SLOWLOG
  LatencyMonitor latency;                   // LATENCY LATEST, HISTORY, ...
  ClientRegistry clients;                   // CLIENT LIST, KILL
  ClientTracking tracking{&clients};        // CLIENT TRACKING
  std::atomic<int64_t> last_save_s{0};      // LASTSAVE (set at start and by SAVE)
  ExpirySweeper* sweeper = nullptr;  // INFO's expired_keys, DEBUG SET-ACTIVE-EXPIRE
  const StaleMemberFilterFactory* stale_filter = nullptr;  // INFO's stale_records_removed
  const StorageHealth* storage_health = nullptr;  // INFO's storage error (storage_health.h)
  // The configuration file the server started with (CONFIG REWRITE's;
  // empty: none), and every CONFIG parameter's value before the file's
  // and the flags' were set (what CONFIG REWRITE leaves out). Set at start.
  std::string config_file;
  std::map<std::string, std::string> config_defaults;
  std::function<void()> shutdown;  // SHUTDOWN: stops the server
  // INFO's keyspace counts, per database: a walk of every meta record, so made again only
  // when the last is old for its cost, by one caller at a time
  // (server_commands.cc); Sentinel sends INFO every second.
  struct KeyspaceCounts {
    std::mutex walking;  // held by the caller that walks
    std::mutex mu;       // guards the fields below
    bool valid = false;
    int64_t keys[Keyspace::kDatabases] = {}, expires[Keyspace::kDatabases] = {};
    int64_t at_us = 0, walk_us = 0;  // when the last walk ended, what it took
  } keyspace_counts;
};

// One connection's state.
struct ClientState {
  uint64_t id = 0;  // HELLO's "id": the connection's number since start
  std::string address;  // the peer's "ip:port" (SLOWLOG)
  // What CLIENT LIST shows of this connection (null without one).
  std::shared_ptr<ClientRegistry::Info> info;
  bool authenticated = false;
  // The ACL user it runs as, as of the ACL's version `user_version`
  // (Execute looks it up again when the ACL changed); null: a connection
  // of the server's own, which may run anything.
  std::shared_ptr<const AclUser> user;
  uint64_t user_version = 0;
  int protocol = 2;  // RESP2 until HELLO 3
  // A script of this client is calling the command (redis.call): no
  // Pub/Sub context or busy check, no slow log or CLIENT LIST entry.
  bool in_script = false;
  std::string name;
  bool close_after_reply = false;  // QUIT, SHUTDOWN, protocol errors
  // When the connection's last command ended, while the next runs right
  // after it (a pipeline's commands, run back to back): that command's
  // start, so that a command reads the clock once (Execute). Cleared
  // whenever the connection does anything else between two commands
  // (a read, a parse, a write).
  std::optional<std::chrono::steady_clock::time_point> last_command_end;
  // CLIENT REPLY OFF, and SKIP's count of replies still to drop (its own
  // and the next command's): Execute drops them. Pub/Sub messages still go.
  bool replies_off = false;
  int replies_to_skip = 0;
  // CLIENT TRACKING on (client_tracking.h holds how), and CLIENT CACHING
  // given for the next command.
  bool tracking = false;
  bool tracking_caching = false;
  // The keys the running script declared (EVAL's, FCALL's): a read inside
  // it makes tracking remember these, as Redis does.
  const std::vector<std::string>* script_keys = nullptr;
  // The connection's view of the keyspace (its pipeline's write group,
  // keyspace.h); null: the server's own.
  Keyspace* keyspace = nullptr;
  // Expired keys its commands' reads met since its group was last written
  // (Keyspace::RecordExpiredReads): deleted then (ReclaimExpiredReads).
  std::vector<Keyspace::ExpiredRead> expired_reads;
  // MULTI (transaction_commands.cc): commands queued for EXEC, and whether
  // one was refused while queuing (EXEC then answers EXECABORT).
  bool in_multi = false;
  bool multi_refused = false;
  bool in_exec = false;  // EXEC is running the queued commands
  std::vector<std::vector<std::string>> queued;
  int64_t queued_bytes = 0;  // their ArgumentsBytes
  // WATCH's keys, by name (Keyspace::Name); the connection unwatches them
  // when it closes.
  WatchedKeys::Watcher watcher;
  // Pub/Sub (pubsub_commands.cc): what the connection subscribed to, and
  // the connection as a subscriber (expired for requests without one).
  // (Patterns in the order they were subscribed: Redis unsubscribes them
  // all in that order.)
  std::set<std::string> channels, shard_channels;
  std::vector<std::string> patterns;
  std::weak_ptr<Subscriber> subscriber;
  size_t subscriptions() const {
    return channels.size() + patterns.size() + shard_channels.size();
  }
  size_t tracking_prefixes = 0;  // CLIENT TRACKING's BCAST prefixes
  // What the client's state holds beside its buffers, for client eviction
  // (CLIENT LIST's tot-mem, as Redis counts it): the commands queued in
  // MULTI, and for each key watched, channel or pattern subscribed and
  // tracking prefix the bytes of its entry (not the name's own bytes,
  // which Redis does not count either).
  int64_t held_bytes() const {
    constexpr int64_t kEntryBytes = 64;
    return queued_bytes + static_cast<int64_t>(watcher.keys.size() + subscriptions() +
                                               tracking_prefixes) * kEntryBytes;
  }
  // Blocking commands (blocking_commands.cc). One that found nothing to
  // serve sets `block`: the connection waits for a write of one of its
  // keys (then runs the command again, `block_rerun` set) or for the
  // deadline (then replies a null array). Inside EXEC `may_block` is
  // false: they answer at once.
  struct Block {
    std::vector<std::string> keys;  // by name (Keyspace::Name)
    int64_t deadline_ms = 0;  // 0: none
    // At the deadline the command runs once more (block_timed_out set)
    // and replies itself, rather than the null array (WAIT).
    bool rerun_at_deadline = false;
    // Woken when a key is deleted too (XREADGROUP: its group went with
    // the key, an error to reply).
    bool wake_on_delete = false;
    // Held by a pause at least this strict (ClientPause::kWakeKey its one
    // key, no deadline): woken when the pause in force eases below it,
    // then run as if it had just arrived.
    ClientPause::Kind paused_by = ClientPause::kNone;
  };
  std::optional<Block> block;
  bool block_rerun = false;
  bool may_block = true;
  bool block_timed_out = false;  // Block::rerun_at_deadline's last run
  uint64_t wait_target = 0;       // WAIT's sequence, fixed at its first run
  // XREAD's ids, a "$" resolved to the stream's last id at its first run
  // (a blocked XREAD waits for what comes after that, however often it
  // runs again)
  std::vector<std::string> xread_ids;
  // What the command's run did that its keyspace events name
  // (keyspace_events.h), cleared before each run: XREADGROUP, XCLAIM and
  // XAUTOCLAIM made a consumer ("xgroup-createconsumer"); HEXPIRE and
  // friends deleted fields given a past deadline ("hdel", not "hexpire").
  struct EventHints {
    bool stream_consumer_created = false;
    bool hash_fields_deleted = false;
  };
  EventHints event_hints;
  // A replica's handshake (REPLCONF), and PSYNC's hand-over: once its
  // replies are written, the connection gives its socket to the replica
  // feeds (replica_feeds.h).
  PsyncRequest replica_request;
  bool hand_over_to_feeds = false;
};

// What a command's arguments hold in memory: their bytes and strings.
inline int64_t ArgumentsBytes(const std::vector<std::string>& args) {
  int64_t bytes = sizeof(args);
  for (const std::string& arg : args) bytes += static_cast<int64_t>(sizeof(arg) + arg.size());
  return bytes;
}

// Whether `value` may be a client's name, lib-name or lib-ver: printable
// ASCII without spaces, so that a CLIENT LIST line splits at its spaces.
inline bool IsClientAttribute(std::string_view value) {
  for (const char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < '!' || byte > '~') return false;
  }
  return true;
}

// A client's name and protocol, also as CLIENT LIST shows them.
inline void SetClientName(ClientState& client, const std::string& name) {
  client.name = name;
  if (client.info) client.info->set_name(name);
}
// The user the client runs as (AUTH, HELLO, RESET), also as CLIENT LIST
// shows it; `authenticated` says whether it logged in.
inline void SetClientUser(ServerState& server, ClientState& client,
                          std::shared_ptr<const AclUser> user, bool authenticated) {
  client.user_version = server.acl.version();
  client.user = std::move(user);
  client.authenticated = authenticated;
  if (client.info) client.info->set_user(client.user->name());
}
// The connection as it starts: the default user, logged in if that needs
// no password (Redis's clientSetDefaultAuth).
inline void SetClientDefaultUser(ServerState& server, ClientState& client) {
  SetClientUser(server, client, server.acl.Find("default"), !server.acl.AuthRequired());
}
inline void SetClientProtocol(ClientState& client, int protocol) {
  client.protocol = protocol;
  if (client.info) client.info->protocol.store(protocol, std::memory_order_relaxed);
}

}  // namespace teksdb::server
