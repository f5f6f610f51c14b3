// ObjectEncoding (object_encoding.h): the thresholds from CONFIG, then one
// walk of the members while the answer can still be the compact one.
#include "object_encoding.h"

#include "config_parameters.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

int64_t ConfigNumber(ServerState& s, const char* name) {
  const ConfigParameter* parameter = FindConfigParameter(name);
  int64_t n = 0;
  if (parameter != nullptr) ParseStrictInt64(parameter->get(s), &n);
  return n;
}

}  // namespace

int64_t MemberCount(const Keyspace::Value& v) {
  uint64_t n = 0;
  for (size_t i = 0; i < 8 && i < v.payload.size(); ++i) {
    n = (n << 8) | static_cast<unsigned char>(v.payload[i]);
  }
  return static_cast<int64_t>(n);
}

bool ObjectEncoding(Request& r, const Keyspace::Value& v, std::string* name) {
  if (v.type == Keyspace::kString) {
    int64_t n;
    *name = v.payload.size() <= 20 && ParseStrictInt64(v.payload, &n)
                ? "int"
                : (v.payload.size() <= 44 ? "embstr" : "raw");
    return true;
  }
  if (v.type == Keyspace::kList) return *name = "quicklist", true;
  const int64_t count = MemberCount(v);
  int64_t max_entries, max_value = 0;
  if (v.type == Keyspace::kSet) {
    max_entries = ConfigNumber(r.server, "set-max-intset-entries");
  } else if (v.type == Keyspace::kHash) {
    max_entries = ConfigNumber(r.server, "hash-max-listpack-entries");
    max_value = ConfigNumber(r.server, "hash-max-listpack-value");
  } else {
    max_entries = ConfigNumber(r.server, "zset-max-listpack-entries");
    max_value = ConfigNumber(r.server, "zset-max-listpack-value");
  }
  bool compact = count <= max_entries;
  if (compact) {
    const ROCKSDB_NAMESPACE::Status s = r.keyspace->ForEachMember(
        v.version, [&](const std::string& m, const std::string& value) {
          int64_t n;
          if (v.type == Keyspace::kSet) {
            compact = ParseStrictInt64(m, &n);
          } else {
            compact = static_cast<int64_t>(m.size()) <= max_value &&
                      (v.type != Keyspace::kHash || static_cast<int64_t>(value.size()) <= max_value);
          }
          return compact;
        });
    if (!s.ok()) return ReplyStorageError(r, s), false;
  }
  if (v.type == Keyspace::kSet) return *name = compact ? "intset" : "hashtable", true;
  *name = compact ? "listpack" : (v.type == Keyspace::kHash ? "hashtable" : "skiplist");
  return true;
}

}  // namespace teksdb::server
