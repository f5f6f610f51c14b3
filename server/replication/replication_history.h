// ReplicationHistory: who this server follows and which history its data
// belongs to, as Redis 7.0 keeps them (replid, replid2 and the offset up
// to which replid2 holds), with RocksDB's sequence number as the offset.
// Kept in a file in the data directory (kFileName), rewritten whole (a
// temporary file, fsync, rename) at every change, so the role survives a
// restart. The file is not in RocksDB: writing it never moves a replica's
// sequence.
//
// Histories. A primary's data is history `replid`; it gets a new one at
// every start and every promotion, keeping the one before as `replid2`,
// valid up to sequence `replid2_end` (what it held then). A replica asking
// to continue history H from sequence s may continue if H is the
// primary's replid and s - 1 <= the primary's latest, or H is its replid2
// and s - 1 <= replid2_end; anything else (an old primary that wrote past
// the point where its replica was promoted, a primary that lost an
// unsynced tail and restarted) gets a full sync. So no replica ever
// resumes across writes the primary does not have.
//
// Thread safety: a plain value; ReplicationHistory's file calls are for one
// thread at a time (the caller holds its lock).
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/status.h"

namespace teksdb::server {

struct ReplicationHistory {
  static constexpr const char* kFileName = "REPLICATION";
  static constexpr const char* kNoId = "0000000000000000000000000000000000000000";

  // A replica's primary (empty host: this server is a primary).
  std::string primary_host;
  int primary_port = 0;
  std::string replid = kNoId;
  std::string replid2 = kNoId;
  uint64_t replid2_end = 0;

  bool replica() const { return !primary_host.empty(); }

  // Whether a replica of history `id`, whose data ends at sequence
  // `latest`, may go on from this history when it ends at `own_latest`.
  bool MayContinue(const std::string& id, uint64_t latest, uint64_t own_latest) const;
  // Starts a new history (a start or a promotion of a server holding
  // `latest`): the current one becomes replid2, valid up to `latest`.
  void StartNew(uint64_t latest);

  // Reads `dir`/kFileName; NotFound when it is not there.
  static ROCKSDB_NAMESPACE::Status Load(const std::string& dir, ReplicationHistory* history);
  ROCKSDB_NAMESPACE::Status Save(const std::string& dir) const;
};

}  // namespace teksdb::server
