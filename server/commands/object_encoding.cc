// ObjectEncoding (object_encoding.h): a string by its bytes, a collection
// by its meta record (version 0: compact, its payload's encoding byte; a
// hash's flags).
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
    return !v.payload.empty() && v.payload[0] == compact_members::kIntset ? "intset" : "listpack";
  }
  if (v.type == Keyspace::kZSet) return "skiplist";
  // A hash given field deadlines while within the listpack limits: what
  // Redis 7.4 calls a listpack with TTLs (storage_format.h's HashFlags).
  const uint8_t flags = storage_format::PayloadHashFlags(v.payload);
  return (flags & storage_format::kHashListpackEx) != 0 ? "listpackex" : "hashtable";
}

}  // namespace teksdb::server
