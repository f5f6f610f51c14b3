// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
//         [AUTH password] [AUTH2 username password] [KEYS key ...]
// as Redis 7.0 runs it (cluster.c's migrateCommand): the keys that exist
// are DUMPed (value_image.h, rdb/rdb_value.h) and sent to the target as
// RESTORE key ttl payload [REPLACE] after AUTH and SELECT, in one write;
// each key the target accepted is deleted here unless COPY. The target's
// first error is the reply ("Target instance replied with error: ..."); a
// connection that fails or passes the timeout is IOERR, retried once on a
// fresh connection when a kept one failed before any reply (Redis's rule).
// Connections are kept for the next MIGRATE (state/migrate_sockets.h).
//
// The keys stay locked from the read to the deletes, so what the target
// got is what is deleted; the target is waited for (up to the timeout)
// with them locked, as Redis waits with the whole server.
#include <algorithm>

#include "ascii_case.h"
#include "commands.h"
#include "rdb_value.h"
#include "resp_reply.h"
#include "strict_integer.h"
#include "value_image.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

struct MigrateArgs {
  std::string host, port;
  int64_t db = 0, timeout_ms = 0;
  bool copy = false, replace = false;
  std::vector<std::string> auth;  // AUTH's arguments: password, or username and password
  std::vector<std::string> keys;
};

// False, having replied, on a syntax error or a bad number.
bool ParseMigrate(Request& r, MigrateArgs* m) {
  m->host = r.args[1];
  m->port = r.args[2];
  size_t first_key = 3, key_count = 1;
  for (size_t j = 6; j < r.args.size(); ++j) {
    const size_t more = r.args.size() - 1 - j;
    const std::string opt = AsciiLower(r.args[j]);
    if (opt == "copy") {
      m->copy = true;
    } else if (opt == "replace") {
      m->replace = true;
    } else if (opt == "auth" && more >= 1) {
      m->auth = {r.args[++j]};
    } else if (opt == "auth2" && more >= 2) {
      m->auth = {r.args[j + 1], r.args[j + 2]};
      j += 2;
    } else if (opt == "keys") {
      if (!r.args[3].empty()) {
        reply::Error(r.out, "ERR When using MIGRATE KEYS option, the key argument must be set to "
                            "the empty string");
        return false;
      }
      first_key = j + 1;
      key_count = r.args.size() - first_key;
      break;
    } else {
      reply::Error(r.out, kSyntaxError);
      return false;
    }
  }
  if (!ParseStrictInt64(r.args[5], &m->timeout_ms) || !ParseStrictInt64(r.args[4], &m->db)) {
    reply::Error(r.out, kNotInteger);
    return false;
  }
  if (m->timeout_ms <= 0) m->timeout_ms = 1000;
  m->timeout_ms = std::min<int64_t>(m->timeout_ms, INT32_MAX);
  m->keys.assign(r.args.begin() + first_key, r.args.begin() + first_key + key_count);
  return true;
}

// A key to send: its name, TTL left (0: none) and payload.
struct Outgoing {
  std::string key;
  int64_t ttl_ms = 0;
  std::string payload;
};

enum class Sent { kOk, kTargetError, kSocketError };

// One try over `link`: the commands sent, the replies read; the keys the
// target took are appended to *taken; *error is the target's first error.
Sent SendOnce(RespSocket& socket, const MigrateArgs& m, bool select,
              const std::vector<Outgoing>& outgoing, std::vector<std::string>* taken,
              std::string* error, bool* any_reply, bool* write_failed) {
  if (!m.auth.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    auth.insert(auth.end(), m.auth.begin(), m.auth.end());
    socket.Append(auth);
  }
  if (select) socket.Append({"SELECT", std::to_string(m.db)});
  for (const Outgoing& o : outgoing) {
    std::vector<std::string> restore = {"RESTORE", o.key, std::to_string(o.ttl_ms), o.payload};
    if (m.replace) restore.push_back("REPLACE");
    socket.Append(restore);
  }
  if (!socket.Flush()) {
    *write_failed = true;
    return Sent::kSocketError;
  }
  std::string auth_error, select_error, restore_error;
  if (!m.auth.empty() && !socket.ReadReply(&auth_error)) return Sent::kSocketError;
  if (select && !socket.ReadReply(&select_error)) return Sent::kSocketError;
  *any_reply = !m.auth.empty() || select;
  for (const Outgoing& o : outgoing) {
    if (!socket.ReadReply(&restore_error)) return Sent::kSocketError;
    *any_reply = true;
    const std::string& first = !auth_error.empty()     ? auth_error
                               : !select_error.empty() ? select_error
                                                       : restore_error;
    if (!first.empty()) {
      if (error->empty()) *error = first;
    } else {
      taken->push_back(o.key);
    }
  }
  return error->empty() ? Sent::kOk : Sent::kTargetError;
}

void Migrate(Request& r) {
  MigrateArgs m;
  if (!ParseMigrate(r, &m)) return;
  auto locks = r.keyspace->LockKeys(m.keys);
  std::vector<Outgoing> outgoing;
  bool any_present = false;
  const int64_t now = Keyspace::NowMs();
  for (const std::string& key : m.keys) {
    std::optional<Keyspace::Value> stored;
    const Status s = r.keyspace->Read(key, &stored);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (!stored) continue;
    any_present = true;
    Outgoing o{key, 0, {}};
    if (stored->expire_ms != 0) {
      o.ttl_ms = stored->expire_ms - now;
      if (o.ttl_ms < 0) continue;
      o.ttl_ms = std::max<int64_t>(o.ttl_ms, 1);
    }
    RedisValue value;
    if (!ReadValueImage(r, key, *stored, &value)) return;
    o.payload = rdb_value::Dump(value);
    outgoing.push_back(std::move(o));
  }
  if (!any_present) return reply::Simple(r.out, "NOKEY");
  MigrateSockets& sockets = r.server.migrate_sockets;
  std::vector<std::string> taken;
  std::string target_error;
  for (int attempt = 0;; ++attempt) {
    std::string connect_error;
    std::unique_ptr<MigrateSockets::Cached> link =
        sockets.Take(m.host, m.port, static_cast<int>(m.timeout_ms), &connect_error);
    if (link == nullptr) return reply::Error(r.out, "IOERR error or timeout connecting to the client");
    const bool select = link->selected_db != m.db;
    bool any_reply = false, write_failed = false;
    taken.clear();
    target_error.clear();
    const Sent sent = SendOnce(*link->socket, m, select, outgoing, &taken, &target_error,
                               &any_reply, &write_failed);
    if (sent == Sent::kSocketError) {
      // A kept connection the target closed meanwhile: once more on a new
      // one, if nothing was taken and it was not the timeout.
      if (attempt == 0 && link->reused && taken.empty() && !any_reply && !link->socket->timed_out()) {
        continue;
      }
      if (taken.empty()) {
        return reply::Error(r.out, std::string("IOERR error or timeout ") +
                                       (write_failed ? "writing" : "reading") + " to target instance");
      }
    } else {
      link->selected_db = sent == Sent::kOk ? m.db : -1;
      sockets.Return(m.host, m.port, std::move(link), Keyspace::NowMs());
    }
    break;
  }
  if (!m.copy && !taken.empty()) {
    Keyspace::Batch batch;
    for (const std::string& key : taken) batch.Delete(key);
    const Status s = r.keyspace->Commit(&batch);
    if (!s.ok()) return ReplyStorageError(r, s);
  }
  if (!target_error.empty()) {
    return reply::Error(r.out, "ERR Target instance replied with error: " + target_error);
  }
  if (taken.size() < outgoing.size()) {
    return reply::Error(r.out, "IOERR error or timeout reading to target instance");
  }
  reply::Ok(r.out);
}

}  // namespace

void AddMigrateCommand(std::vector<Command>* table) {
  table->push_back({"migrate", -6, Migrate});
}

}  // namespace teksdb::server
