// Request: one command as its handler sees it (the server, the client,
// the arguments, where the reply goes, the keyspace to read and write
// through), and the replies every handler shares.
//
// Thread safety: a Request lives on its connection's thread for one
// command.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/status.h"
#include "server_state.h"

namespace teksdb::server {

struct Request {
  ServerState& server;
  ClientState& client;
  const std::vector<std::string>& args;
  std::string* out;
  Keyspace* keyspace;  // what handlers read and write through (ClientState's)
  // Set by a read that found its key's version replaced under it
  // (Collection::Settled): Execute drops what the handler replied and runs
  // it again.
  bool retry = false;
  // Which run of the handler this is (1, then 2, ... after each retry).
  int attempt = 1;

  int protocol() const { return client.protocol; }
};

// Replies shared by handlers.
void ReplyStorageError(Request& r, const ROCKSDB_NAMESPACE::Status& s);
// For reads without the key's lock that missed a member, or met fewer than
// the meta record's count: true if `key` still holds collection `version`;
// false, having replied a storage error or set r.retry (the version was
// replaced, and a compaction may have removed its members), if not.
bool StillHolds(Request& r, const std::string& key, uint64_t version);
constexpr const char* kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr const char* kNotInteger = "ERR value is not an integer or out of range";
constexpr const char* kSyntaxError = "ERR syntax error";
constexpr const char* kBadClientName =
    "ERR Client names cannot contain spaces, newlines or special characters.";

}  // namespace teksdb::server
