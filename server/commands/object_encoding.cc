// ObjectEncoding (object_encoding.h): a string by its bytes, a collection
// by its meta record (version 0: compact, its payload's encoding byte).
#include "object_encoding.h"

#include "compact_members.h"
#include "strict_integer.h"

namespace teksdb::server {

std::string ObjectEncoding(const Keyspace::Value& v) {
  if (v.type == Keyspace::kString) {
    int64_t n;
    if (v.payload.size() <= 20 && ParseStrictInt64(v.payload, &n)) return "int";
    return v.payload.size() <= 44 ? "embstr" : "raw";
  }
  if (v.type == Keyspace::kList) return "quicklist";
  if (v.type == Keyspace::kStream) return "stream";
  if (v.version == 0) {
    if (v.payload.empty()) return "listpack";
    if (v.payload[0] == compact_members::kIntset) return "intset";
    return v.payload[0] == compact_members::kListpackEx ? "listpackex" : "listpack";
  }
  return v.type == Keyspace::kZSet ? "skiplist" : "hashtable";
}

}  // namespace teksdb::server
