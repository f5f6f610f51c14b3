// The replies every handler shares (request.h).
#include "request.h"

#include "resp_reply.h"

namespace teksdb::server {

void ReplyStorageError(Request& r, const ROCKSDB_NAMESPACE::Status& s) {
  reply::Error(r.out, "ERR storage: " + s.ToString());
}

bool StillHolds(Request& r, const std::string& key, uint64_t version) {
  bool unchanged;
  const ROCKSDB_NAMESPACE::Status s = r.keyspace->Unchanged(key, version, &unchanged);
  if (!s.ok()) {
    ReplyStorageError(r, s);
    return false;
  }
  if (!unchanged) r.retry = true;
  return unchanged;
}

}  // namespace teksdb::server
