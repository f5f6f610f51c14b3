// DUMP and RESTORE (and RESTORE-ASKING, RESTORE as a cluster's migration
// sends it), as Redis 7.0 answers them: DUMP gives the key's value in
// Redis 7.0's serialization (rdb/rdb_value.h), which redis-server RESTOREs,
// and RESTORE reads every encoding redis-server's DUMP writes (and older
// RDB versions' ones), refusing a damaged payload with Redis's errors
// (and, as Redis, a line in the log saying its integrity check failed).
// IDLETIME and FREQ are checked as Redis checks them and then dropped:
// key access times and frequencies are not kept (introspection_commands).
#include <cstdio>

#include "ascii_case.h"
#include "commands.h"
#include "printable_text.h"
#include "rdb_value.h"
#include "resp_reply.h"
#include "strict_integer.h"
#include "value_image.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

void Dump(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> stored;
  const Status s = r.keyspace->Read(r.args[1], &stored);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!stored) return reply::Null(r.out, r.protocol());
  RedisValue value;
  if (!ReadValueImage(r, r.args[1], *stored, &value)) return;
  reply::Bulk(r.out, rdb_value::Dump(value));
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f]
void Restore(Request& r) {
  bool replace = false, absttl = false, idle = false, freq = false;
  for (size_t i = 4; i < r.args.size(); ++i) {
    const std::string opt = AsciiLower(r.args[i]);
    const bool has_value = i + 1 < r.args.size();
    int64_t n;
    if (opt == "replace") {
      replace = true;
    } else if (opt == "absttl") {
      absttl = true;
    } else if (opt == "idletime" && has_value && !freq) {
      if (!ParseStrictInt64(r.args[++i], &n)) return reply::Error(r.out, kNotInteger);
      if (n < 0) return reply::Error(r.out, "ERR Invalid IDLETIME value, must be >= 0");
      idle = true;
    } else if (opt == "freq" && has_value && !idle) {
      if (!ParseStrictInt64(r.args[++i], &n)) return reply::Error(r.out, kNotInteger);
      if (n < 0 || n > 255) {
        return reply::Error(r.out, "ERR Invalid FREQ value, must be >= 0 and <= 255");
      }
      freq = true;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  const std::string& key = r.args[1];
  auto locks = r.keyspace->LockKeys({key});
  std::optional<Keyspace::Value> old;
  Status s = r.keyspace->Read(key, &old);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (old && !replace) return reply::Error(r.out, "BUSYKEY Target key name already exists.");
  int64_t ttl;
  if (!ParseStrictInt64(r.args[2], &ttl)) return reply::Error(r.out, kNotInteger);
  if (ttl < 0) return reply::Error(r.out, "ERR Invalid TTL value, must be >= 0");
  RedisValue value;
  std::string damage;
  switch (rdb_value::Restore(r.args[3], &value,
                             !r.server.skip_checksum_validation.load(std::memory_order_relaxed),
                             &damage)) {
    case rdb_value::RestoreResult::kBadFooter:
      return reply::Error(r.out, "ERR DUMP payload version or checksum are wrong");
    case rdb_value::RestoreResult::kBadData:
      // (Redis's log line for a payload its sanitizer refuses.)
      std::fprintf(stderr, "teksdb-server: RESTORE: %s\n", PrintableText(damage, 200).c_str());
      return reply::Error(r.out, "ERR Bad data format");
    case rdb_value::RestoreResult::kOk:
      break;
  }
  const int64_t now = Keyspace::NowMs();
  if (ttl != 0 && !absttl) ttl = ttl > INT64_MAX - now ? INT64_MAX : ttl + now;
  if (ttl != 0 && ttl <= now) {
    // Already expired: the key is not made, and REPLACE deletes the old one.
    if (old) {
      Keyspace::Batch batch;
      batch.Delete(key);
      s = r.keyspace->Commit(&batch);
      if (!s.ok()) return ReplyStorageError(r, s);
    }
    return reply::Ok(r.out);
  }
  if (WriteValueImage(r, key, value, ttl)) reply::Ok(r.out);
}

}  // namespace

void AddDumpRestoreCommands(std::vector<Command>* table) {
  table->insert(table->end(),
                {{"dump", 2, Dump}, {"restore", -4, Restore}, {"restore-asking", -4, Restore}});
}

}  // namespace teksdb::server
