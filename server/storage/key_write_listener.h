// KeyWriteListener: told of the keys written once they are in the
// database, of databases emptied, and of keys read (CLIENT TRACKING:
// state/client_tracking.h). Keyspace calls it after a commit's DB::Write
// (a group's: after FlushGroup), never before, so a reader told of a write
// reads it; keys are named without their database, as Redis's tracking
// names them.
//
// Thread safety: called from any thread that writes (connections, the
// expiry sweep, a replica's link); an implementation locks for itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace teksdb::server {

class KeyWriteListener {
 public:
  virtual ~KeyWriteListener() = default;
  // Whether anyone listens now (cheap: writers skip the rest when not).
  virtual bool listening() const = 0;
  // `keys` are written, by connection `writer` (0: the server itself).
  virtual void Written(const std::vector<std::string>& keys, uint64_t writer) = 0;
  // Every key of a database may have changed (FLUSHDB, FLUSHALL, SWAPDB).
  virtual void Cleared(uint64_t writer) = 0;
  // Connection `reader` reads `keys` (CLIENT TRACKING remembers them);
  // `caching_given`: CLIENT CACHING came before. Called before the read,
  // or, for keys its own pipeline wrote and has not flushed, once that
  // write is in (no other writer can come between: the pipeline holds the
  // keys' locks until then).
  virtual void Read(const std::vector<std::string>& keys, uint64_t reader, bool caching_given) = 0;
};

}  // namespace teksdb::server
