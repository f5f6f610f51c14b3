// Replication's commands, as Redis 7.0 answers them (replication.h has the
// machinery): REPLICAOF / SLAVEOF (host port, or NO ONE), ROLE, WAIT,
// WAITAOF (Redis 7.2's), FAILOVER (switchover.h), and
// the replica's side of the handshake on its primary: REPLCONF (its port,
// run id, data format, the files of a cut-off sync it holds) and PSYNC,
// after which the connection hands its socket to the replica feeds. SYNC,
// Redis's old full sync, is refused: a teksdb-server replica sends PSYNC.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "ascii_case.h"
#include "commands.h"
#include "replication.h"
#include "resp_reply.h"
#include "storage_format.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// Where WAIT and paused writes block: a key name (no database's: its first
// byte is no database's number) that acknowledgements and the
// end of a pause touch (replication.h's progress hook).
const char kWakeKey[] = "\xff" "replication-progress";

// Each replica takes a thread and may hold the primary's file deletions
// (a full sync): PSYNC beyond this many is refused.
constexpr size_t kMaxReplicas = 64;

void ReplicaOf(Request& r) {
  Replication& replication = *r.server.replication;
  // This pipeline's writes go first: the role change waits for the expiry
  // sweep, which may wait for the stripes this connection's group holds.
  if (const ROCKSDB_NAMESPACE::Status s = r.keyspace->FlushGroup(); !s.ok()) {
    return ReplyStorageError(r, s);
  }
  if (AsciiLower(r.args[1]) == "no" && AsciiLower(r.args[2]) == "one") {
    const ROCKSDB_NAMESPACE::Status s = replication.Promote();
    if (!s.ok()) return ReplyStorageError(r, s);
    std::fprintf(stderr, "teksdb-server: primary mode (REPLICAOF NO ONE from %s)\n", r.client.address.c_str());
    return reply::Ok(r.out);
  }
  int64_t port;
  if (!ParseStrictInt64(r.args[2], &port) || port < 0 || port > 65535) {
    return reply::Error(r.out, "ERR Invalid master port");
  }
  const std::string& host = r.args[1];
  if (host.empty() || host.find_first_of(" \t\r\n") != std::string::npos) {
    return reply::Error(r.out, "ERR Invalid master host '" + host.substr(0, 128) + "'");
  }
  bool already = false;
  const ROCKSDB_NAMESPACE::Status s = replication.Follow(host, static_cast<int>(port), &already);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (already) return reply::Simple(r.out, "OK Already connected to specified master");
  std::fprintf(stderr, "teksdb-server: REPLICAOF %s:%lld (from %s)\n", host.c_str(),
               static_cast<long long>(port), r.client.address.c_str());
  reply::Ok(r.out);
}

void Role(Request& r) {
  Replication& replication = *r.server.replication;
  const uint64_t latest = r.server.db->GetLatestSequenceNumber();
  if (!replication.replica()) {
    const auto replicas = replication.feeds().Replicas();
    reply::ArrayHeader(r.out, 3);
    reply::Bulk(r.out, "master");
    reply::Integer(r.out, static_cast<int64_t>(latest));
    reply::ArrayHeader(r.out, replicas.size());
    for (const ReplicaFeeds::ReplicaInfo& replica : replicas) {
      reply::ArrayHeader(r.out, 3);
      reply::Bulk(r.out, replica.ip);
      reply::Bulk(r.out, std::to_string(replica.port));
      reply::Bulk(r.out, std::to_string(replica.acked));
    }
    return;
  }
  const ReplicationHistory history = replication.history();
  const PrimaryLink::Info link = replication.link_info();
  reply::ArrayHeader(r.out, 5);
  reply::Bulk(r.out, "slave");
  reply::Bulk(r.out, history.primary_host);
  reply::Integer(r.out, history.primary_port);
  reply::Bulk(r.out, link.up ? "connected" : (link.syncing ? "sync" : "connecting"));
  reply::Integer(r.out, static_cast<int64_t>(latest));
}

// WAIT's and WAITAOF's timeout in milliseconds as a deadline (0: none):
// false having replied Redis 7.2's errors (a timeout past the clock's range
// too, where 7.0 blocks for ever).
bool ParseWaitDeadline(Request& r, const std::string& arg, int64_t* deadline_ms) {
  int64_t timeout;
  if (!ParseStrictInt64(arg, &timeout)) {
    return reply::Error(r.out, "ERR timeout is not an integer or out of range"), false;
  }
  if (timeout < 0) return reply::Error(r.out, "ERR timeout is negative"), false;
  const int64_t now_ms = Keyspace::NowMs();
  if (timeout > std::numeric_limits<int64_t>::max() - now_ms) {
    return reply::Error(r.out, "ERR timeout is out of range"), false;
  }
  *deadline_ms = timeout == 0 ? 0 : now_ms + timeout;
  return true;
}

// WAIT's and WAITAOF's first run: what this client wrote is in the database
// before it counts, and the target is fixed (later writes of others do not
// move it). False having replied a storage error.
bool FixWaitTarget(Request& r) {
  if (r.client.block_rerun) return true;
  const ROCKSDB_NAMESPACE::Status s = r.keyspace->FlushGroup();
  if (!s.ok()) return ReplyStorageError(r, s), false;
  r.client.wait_target = r.server.db->GetLatestSequenceNumber();
  return true;
}

// WAIT numreplicas timeout: blocks (as BLPOP does) until that many replicas
// acknowledged this client's writes, or the timeout; replies how many did.
void Wait(Request& r) {
  int64_t wanted, deadline_ms;
  if (!ParseStrictInt64(r.args[1], &wanted)) return reply::Error(r.out, kNotInteger);
  if (!ParseWaitDeadline(r, r.args[2], &deadline_ms)) return;
  Replication& replication = *r.server.replication;
  if (replication.replica()) {
    return reply::Error(r.out, "ERR WAIT cannot be used with replica instances. Please also note "
                               "that since Redis 4.0 if a replica is configured to be writable "
                               "(which is not the default) writes to replicas are just local and "
                               "are not propagated.");
  }
  if (!FixWaitTarget(r)) return;
  const int acked = replication.feeds().CountAcked(r.client.wait_target);
  if (acked >= wanted || r.client.block_timed_out || !r.client.may_block) {
    return reply::Integer(r.out, acked);
  }
  r.client.block = ClientState::Block{{kWakeKey}, deadline_ms, /*rerun_at_deadline=*/true};
}

// Whether WAITAOF synced the WAL up to `sequence` already.
bool SyncedThrough(const ServerState& server, uint64_t sequence) {
  return server.wal_synced_through.load() >= sequence;
}

// WAITAOF numlocal numreplicas timeout, as Redis 7.2's, on the WAL (this
// server's append-only file, always on): numlocal 1 syncs the WAL to disk
// here up to this client's writes (on this thread, once), then it blocks as
// WAIT does until numreplicas replicas acknowledged them on disk (those
// that sync each batch, --sync, say so in their handshake: REPLCONF capa
// teksdb-acks-on-disk), or the timeout. Replies [1 if synced here (with
// --sync, or by a WAITAOF 1 since the writes), the replicas].
void WaitAof(Request& r) {
  int64_t local, wanted, deadline_ms;
  if (!ParseStrictInt64(r.args[1], &local)) return reply::Error(r.out, kNotInteger);
  if (local < 0 || local > 1) {
    return reply::Error(r.out, "ERR value is out of range, value must between 0 and 1");
  }
  if (!ParseStrictInt64(r.args[2], &wanted) || wanted < 0) {
    return reply::Error(r.out, "ERR value is out of range, must be positive");
  }
  if (!ParseWaitDeadline(r, r.args[3], &deadline_ms)) return;
  Replication& replication = *r.server.replication;
  if (replication.replica()) {
    return reply::Error(r.out, "ERR WAITAOF cannot be used with replica instances. Please also note "
                               "that writes to replicas are just local and are not propagated.");
  }
  const bool first_run = !r.client.block_rerun;
  if (!FixWaitTarget(r)) return;
  if (first_run && local == 1 && !r.keyspace->syncs_writes() &&
      !SyncedThrough(r.server, r.client.wait_target)) {
    const ROCKSDB_NAMESPACE::Status s = r.server.db->SyncWAL();
    if (!s.ok()) return ReplyStorageError(r, s);
    uint64_t synced = r.server.wal_synced_through.load();
    while (synced < r.client.wait_target &&
           !r.server.wal_synced_through.compare_exchange_weak(synced, r.client.wait_target)) {
    }
  }
  const int acked = replication.feeds().CountAcked(r.client.wait_target, /*on_disk=*/true);
  if (acked >= wanted || r.client.block_timed_out || !r.client.may_block) {
    reply::ArrayHeader(r.out, 2);
    const bool synced = r.keyspace->syncs_writes() || SyncedThrough(r.server, r.client.wait_target);
    reply::Integer(r.out, synced ? 1 : 0);
    return reply::Integer(r.out, acked);
  }
  r.client.block = ClientState::Block{{kWakeKey}, deadline_ms, /*rerun_at_deadline=*/true};
}

// REPLCONF option value [option value ...] from a replica's handshake.
void ReplConf(Request& r) {
  if (r.args.size() % 2 == 0) return reply::Error(r.out, kSyntaxError);
  PsyncRequest& request = r.client.replica_request;
  for (size_t i = 1; i + 1 < r.args.size(); i += 2) {
    const std::string option = AsciiLower(r.args[i]);
    const std::string& value = r.args[i + 1];
    int64_t number = 0;
    if (option == "listening-port") {
      if (!ParseStrictInt64(value, &number) || number < 0 || number > 65535) {
        return reply::Error(r.out, "ERR Invalid listening port");
      }
      request.listening_port = static_cast<int>(number);
    } else if (option == "teksdb-runid") {
      if (value == r.server.run_id) {
        return reply::Error(r.out, "ERR this replica is the primary itself (REPLICAOF names its own address)");
      }
    } else if (option == "teksdb-format") {
      if (value != storage_format::FormatName()) {
        return reply::Error(r.out, "ERR this primary's data is in '" + storage_format::FormatName() +
                                       "', the replica reads '" + value.substr(0, 128) + "'");
      }
      request.format = value;
    } else if (option == "teksdb-held") {
      if (!request.ParseHeld(value)) return reply::Error(r.out, "ERR malformed teksdb-held list");
    } else if (option == "ack" || option == "getack") {
      return;  // Redis answers nothing to these
    } else if (option == "capa") {
      request.acks_on_disk |= value == "teksdb-acks-on-disk";
    } else if (option != "ip-address") {
      return reply::Error(r.out, "ERR Unrecognized REPLCONF option: " + r.args[i].substr(0, 128));
    }
  }
  reply::Ok(r.out);
}

// PSYNC replid next: the feeds answer (+CONTINUE or +FULLRESYNC) on the
// socket the connection hands them.
void PSync(Request& r) {
  if (r.client.replica_request.format.empty()) {
    return reply::Error(r.out, "ERR teksdb-server ships RocksDB's WAL to teksdb-server replicas only "
                               "(REPLCONF teksdb-format first)");
  }
  Replication& replication = *r.server.replication;
  if (replication.replica() && !replication.promotable()) {
    return reply::Error(r.out, "NOMASTERLINK Can't SYNC while not connected with my master");
  }
  if (replication.feeds().Replicas().size() >= kMaxReplicas) {
    return reply::Error(r.out, "ERR this primary serves " + std::to_string(kMaxReplicas) +
                                   " replicas already");
  }
  int64_t next;
  if (!ParseStrictInt64(r.args[2], &next) || next < 0) return reply::Error(r.out, kNotInteger);
  r.client.replica_request.replid = r.args[1];
  r.client.replica_request.next = static_cast<uint64_t>(next);
  r.client.hand_over_to_feeds = true;
}

// FAILOVER [TO host port [FORCE]] [TIMEOUT ms] | FAILOVER ABORT: the
// switchover runs on its own (switchover.h); OK at once, as Redis.
void Failover(Request& r) {
  Replication& replication = *r.server.replication;
  if (r.args.size() == 2 && AsciiLower(r.args[1]) == "abort") {
    if (!replication.switchover().Abort()) return reply::Error(r.out, "ERR No failover in progress.");
    return reply::Ok(r.out);
  }
  Switchover::Request request;
  bool force = false, has_timeout = false, has_target = false;
  for (size_t i = 1; i < r.args.size(); ++i) {
    const std::string option = AsciiLower(r.args[i]);
    int64_t number = 0;
    if (option == "timeout" && i + 1 < r.args.size() && !has_timeout) {
      if (!ParseStrictInt64(r.args[++i], &number)) return reply::Error(r.out, kNotInteger);
      if (number <= 0) return reply::Error(r.out, "ERR FAILOVER timeout must be greater than 0");
      request.timeout_ms = number;
      has_timeout = true;
    } else if (option == "to" && i + 2 < r.args.size() && !has_target) {
      if (!ParseStrictInt64(r.args[i + 2], &number)) return reply::Error(r.out, kNotInteger);
      request.host = r.args[i + 1];
      request.port = static_cast<int>(number);
      has_target = true;
      i += 2;
    } else if (option == "force" && !force) {
      force = true;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  request.force = force;
  if (replication.switchover().paused()) return reply::Error(r.out, "ERR FAILOVER already in progress.");
  if (replication.replica()) return reply::Error(r.out, "ERR FAILOVER is not valid when server is a replica.");
  const auto replicas = replication.feeds().Replicas();
  if (replicas.empty()) return reply::Error(r.out, "ERR FAILOVER requires connected replicas.");
  if (force && (!has_timeout || !has_target)) {
    return reply::Error(r.out, "ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
  }
  if (has_target) {
    const auto target = std::find_if(replicas.begin(), replicas.end(), [&](const auto& replica) {
      return replica.ip == request.host && replica.port == request.port;
    });
    if (target == replicas.end()) return reply::Error(r.out, "ERR FAILOVER target HOST and PORT is not a replica.");
    if (target->state != "online") return reply::Error(r.out, "ERR FAILOVER target replica is not online.");
  }
  std::string error;
  if (!replication.switchover().Start(request, replication.auth(), &error)) {
    return reply::Error(r.out, error);
  }
  reply::Ok(r.out);
}

void Sync(Request& r) {
  reply::Error(r.out, "ERR teksdb-server replicas send PSYNC (REPLCONF teksdb-format first)");
}

}  // namespace

std::string ReplicationWakeKey() { return kWakeKey; }

void AddReplicationCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"replicaof", 3, ReplicaOf}, {"slaveof", 3, ReplicaOf}, {"role", 1, Role},
      {"wait", 3, Wait},           {"waitaof", 4, WaitAof},
      {"replconf", -1, ReplConf}, {"psync", -3, PSync},
      {"sync", 1, Sync},           {"failover", -1, Failover},
  });
}

}  // namespace teksdb::server
