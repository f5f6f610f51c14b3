// DEBUG, the subcommands of Redis 7.0's that mean something for a server
// on RocksDB: SLEEP, SET-ACTIVE-EXPIRE (the expiry sweep off or on),
// RELOAD and LOADAOF (the data is durable already: RELOAD flushes the
// memtables, as a restart would read them), DIGEST and DIGEST-VALUE (a
// SHA1 over every key's type, expiry and contents, so two equal datasets
// digest alike; not Redis's numbers), PROTOCOL (each RESP3 type), OBJECT
// (Redis's line, with OBJECT ENCODING's encoding), LISTPACK (a compact
// collection's members on the server's log), SET-DISABLE-DENY-SCRIPTS
// (scripts may call what Redis denies them, DEBUG itself),
// SET-SKIP-CHECKSUM-VALIDATION (RESTORE's CRC64 unchecked), PAUSE-CRON (the
// server's cron: ops samples, soft output limits, pause deadlines, MIGRATE's
// idle sockets), CHANGE-REPL-ID, QUICKLIST-PACKED-THRESHOLD and REPLYBUFFER
// RESIZING (accepted: nothing here to change; a connection's replies are not
// in Redis's resizable reply buffer, so tot-mem never moves with one). Refused
// unless --enable-debug-command is yes (or local, for loopback clients),
// as in Redis: SLEEP holds a connection thread.
//
// Thread safety: as any command; DIGEST reads without locks (a dataset
// changing under it digests some mix, as in Redis only with no writer).
#include <nettle/sha1.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "ascii_case.h"
#include "commands.h"
#include "expiry_sweeper.h"
#include "collection.h"
#include "compact_members.h"
#include "list_store.h"
#include "object_encoding.h"
#include "protected_command.h"
#include "resp_reply.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

constexpr const char* kNoDigest = "0000000000000000000000000000000000000000";

// A SHA1 fed with length-prefixed parts.
class Digest {
 public:
  Digest() { sha1_init(&ctx_); }
  void Add(const std::string& part) {
    const uint64_t n = part.size();
    sha1_update(&ctx_, sizeof(n), reinterpret_cast<const uint8_t*>(&n));
    sha1_update(&ctx_, part.size(), reinterpret_cast<const uint8_t*>(part.data()));
  }
  std::string Hex() {
    uint8_t bytes[SHA1_DIGEST_SIZE];
    sha1_digest(&ctx_, sizeof(bytes), bytes);
    char hex[2 * SHA1_DIGEST_SIZE + 1];
    for (size_t i = 0; i < sizeof(bytes); ++i) std::snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    return hex;
  }

 private:
  sha1_ctx ctx_;
};

// One key's digest: its type, expiry and contents (members in member
// order, a list in its order).
Status KeyDigest(const Keyspace& keyspace, const Keyspace::Value& v, std::string* hex) {
  Digest digest;
  digest.Add(std::string(1, v.type));
  digest.Add(std::to_string(v.expire_ms));
  Status s;
  if (!storage_format::IsCollection(v.type)) {
    digest.Add(v.payload);
  } else if (v.type == Keyspace::kList) {
    s = ForEachListElement(keyspace, v, [&](const ROCKSDB_NAMESPACE::Slice& element) {
      digest.Add(element.ToString());
      return true;
    });
  } else {
    s = ForEachStoredMember(keyspace, v, [&](const std::string& m, const std::string& value) {
      digest.Add(m);
      digest.Add(value);
      return true;
    });
  }
  *hex = digest.Hex();
  return s;
}

void DigestAll(Request& r) {
  Digest all;
  bool any = false;
  for (int db = 0; db < Keyspace::kDatabases; ++db) {
    const Keyspace view = r.keyspace->InDatabase(db);
    Status inner;
    const Status s = view.ForEachKey([&](const std::string& key, const Keyspace::Value& v) {
      std::string hex;
      inner = KeyDigest(view, v, &hex);
      all.Add(std::to_string(db));
      all.Add(key);
      all.Add(hex);
      any = true;
      return inner.ok();
    });
    if (!s.ok() || !inner.ok()) return ReplyStorageError(r, s.ok() ? inner : s);
  }
  reply::Simple(r.out, any ? all.Hex() : kNoDigest);
}

void DigestValues(Request& r) {
  reply::ArrayHeader(r.out, r.args.size() - 2);
  for (size_t i = 2; i < r.args.size(); ++i) {
    std::optional<Keyspace::Value> v;
    Status s = r.keyspace->Read(r.args[i], &v);
    std::string hex = kNoDigest;
    if (s.ok() && v) s = KeyDigest(*r.keyspace, *v, &hex);
    if (!s.ok()) return ReplyStorageError(r, s);
    reply::Simple(r.out, hex);
  }
}

// DEBUG PROTOCOL type: one reply of each RESP3 type, as Redis gives it (and
// its RESP2 form).
void Protocol(Request& r) {
  const std::string type = AsciiLower(r.args[2]);
  const bool resp3 = r.protocol() == 3;
  std::string* out = r.out;
  if (type == "string") return reply::Bulk(out, "Hello World");
  if (type == "integer") return reply::Integer(out, 12345);
  if (type == "double") return reply::Double(out, r.protocol(), "3.141");
  if (type == "bignum") {
    const std::string digits = "1234567999999999999999999999999999999";
    if (!resp3) return reply::Bulk(out, digits);
    out->append("(" + digits + "\r\n");
    return;
  }
  if (type == "null") return reply::Null(out, r.protocol());
  if (type == "array" || type == "set") {
    type == "set" ? reply::SetHeader(out, r.protocol(), 3) : reply::ArrayHeader(out, 3);
    for (int i = 0; i < 3; ++i) reply::Integer(out, i);
    return;
  }
  auto boolean = [&](bool b) {
    if (resp3) {
      out->append(b ? "#t\r\n" : "#f\r\n");
    } else {
      reply::Integer(out, b ? 1 : 0);
    }
  };
  if (type == "map") {
    reply::MapHeader(out, r.protocol(), 3);
    for (int i = 0; i < 3; ++i) {
      reply::Integer(out, i);
      boolean(i == 1);
    }
    return;
  }
  if (type == "attrib") {
    if (resp3) {
      out->append("|1\r\n");
      reply::Bulk(out, "key-popularity");
      reply::ArrayHeader(out, 2);
      reply::Bulk(out, "key:123");
      reply::Integer(out, 90);
    }
    return reply::Bulk(out, "Some real reply following the attribute");
  }
  if (type == "push") {
    if (!resp3) return reply::Error(out, "ERR RESP2 is not supported by this command");
    out->append(">2\r\n");
    reply::Bulk(out, "server-cpu-usage");
    reply::Integer(out, 42);
    return reply::Bulk(out, "Some real reply following the push reply");
  }
  if (type == "true" || type == "false") return boolean(type == "true");
  if (type == "verbatim") {
    return reply::Verbatim(out, resp3 ? 3 : 2, "This is a verbatim\nstring");
  }
  reply::Error(out,
               "ERR Wrong protocol type name. Please use one of the following: "
               "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
}

// DEBUG LISTPACK key: a compact collection's members (a listpackex's
// field deadlines too) on the server's log, as Redis prints its listpack.
void Listpack(Request& r) {
  std::optional<Keyspace::Value> v;
  bool expired;
  const Status s = r.keyspace->ReadAny(r.args[2], &v, &expired);
  if (!s.ok()) return ReplyStorageError(r, s);
  if (!v) return reply::Error(r.out, "ERR no such key");
  const std::string encoding = ObjectEncoding(*v);
  if (encoding != "listpack" && encoding != "listpackex") {
    return reply::Error(r.out, "ERR Not a listpack encoded object.");
  }
  const bool deadlines = encoding == "listpackex";
  std::string text = "{compact record of " + std::to_string(MemberCount(*v)) + " members}\n";
  compact_members::Reader reader(v->payload);
  ROCKSDB_NAMESPACE::Slice member, value;
  for (int i = 0; reader.Next(&member, &value); ++i) {
    text += "{member " + std::to_string(i) + "} " + member.ToString() + " = " +
            (deadlines ? compact_members::ValueOf(value) : value).ToString() +
            (deadlines ? " deadline " + std::to_string(compact_members::DeadlineOf(value)) : "") +
            "\n";
  }
  std::fprintf(stderr, "%s{end}\n", text.c_str());
  reply::Simple(r.out, "Listpack structure printed on stdout");
}

void Debug(Request& r) {
  if (!ProtectedCommandAllowed(r.server.enable_debug_command, r.client)) {
    return reply::Error(r.out, ProtectedCommandRefusal("DEBUG", "enable-debug-command"));
  }
  const std::string sub = AsciiLower(r.args[1]);
  const size_t argc = r.args.size();
  if (sub == "sleep" && argc == 3) {
    const double seconds = std::strtod(r.args[2].c_str(), nullptr);
    if (std::isfinite(seconds) && seconds > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6)));
    }
    return reply::Ok(r.out);
  }
  if (sub == "set-active-expire" && argc == 3) {
    if (r.server.sweeper != nullptr) r.server.sweeper->SetActive(r.args[2] != "0");
    return reply::Ok(r.out);
  }
  if ((sub == "reload" || sub == "loadaof") && argc >= 2) {
    ROCKSDB_NAMESPACE::FlushOptions options;
    options.wait = true;
    const Status s = r.server.db->Flush(options);
    if (!s.ok()) return ReplyStorageError(r, s);
    return reply::Ok(r.out);
  }
  if (sub == "set-disable-deny-scripts" && argc == 3) {
    r.server.scripts_call_denied.store(r.args[2] != "0", std::memory_order_relaxed);
    return reply::Ok(r.out);
  }
  if (sub == "set-skip-checksum-validation" && argc == 3) {
    r.server.skip_checksum_validation.store(r.args[2] != "0", std::memory_order_relaxed);
    return reply::Ok(r.out);
  }
  if (sub == "pause-cron" && argc == 3) {
    r.server.cron_paused.store(r.args[2] != "0", std::memory_order_relaxed);
    return reply::Ok(r.out);
  }
  if (sub == "digest" && argc == 2) return DigestAll(r);
  if (sub == "digest-value" && argc >= 2) return DigestValues(r);
  if (sub == "protocol" && argc == 3) return Protocol(r);
  if ((sub == "change-repl-id" && argc == 2) || (sub == "quicklist-packed-threshold" && argc == 3) ||
      (sub == "replybuffer" && argc == 4 && AsciiLower(r.args[2]) == "resizing")) {
    return reply::Ok(r.out);
  }
  if (sub == "listpack" && argc == 3) return Listpack(r);
  if (sub == "object" && argc == 3) {
    // An expired key not yet deleted is still there for DEBUG, as in Redis.
    std::optional<Keyspace::Value> v;
    bool expired;
    const Status s = r.keyspace->ReadAny(r.args[2], &v, &expired);
    if (!s.ok()) return ReplyStorageError(r, s);
    if (!v) return reply::Error(r.out, "ERR no such key");
    return reply::Simple(r.out, "Value at:0x0 refcount:1 encoding:" + ObjectEncoding(*v) +
                                    " serializedlength:" + std::to_string(v->payload.size()) +
                                    " lru:0 lru_seconds_idle:0");
  }
  reply::Error(r.out, "ERR unknown subcommand or wrong number of arguments for '" +
                          r.args[1].substr(0, 128) + "'. Try DEBUG HELP.");
}

}  // namespace

void AddDebugCommand(std::vector<Command>* table) { table->push_back({"debug", -2, Debug}); }

}  // namespace teksdb::server
