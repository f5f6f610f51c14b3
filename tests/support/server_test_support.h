// What the tests of teksdb-server's storage share: a database opened and
// prepared as the server prepares it, counting the data records a database
// holds (below the server records: storage_format.h), and a compaction of
// everything down to the last level, so the stale member filter sees every
// record.
//
// Thread safety: as the DB's calls.
#pragma once

#include <memory>
#include <string>

#include "rocksdb/db.h"
#include "storage_format.h"
#include "teksdb/open_db.h"

namespace teksdb::server {

// Opens the database at `path` with `options` (created if missing) and
// prepares it as teksdb-server does (storage_format::Prepare).
inline ROCKSDB_NAMESPACE::Status OpenPreparedDB(ROCKSDB_NAMESPACE::Options options,
                                                const std::string& path,
                                                std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  options.create_if_missing = true;
  ROCKSDB_NAMESPACE::Status s = teksdb::OpenDB(options, path, db);
  if (s.ok()) s = storage_format::Prepare(db->get());
  return s;
}

inline int DataRecordsIn(ROCKSDB_NAMESPACE::DB* db) {
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
  int n = 0;
  for (it->SeekToFirst(); it->Valid() && it->key().compare(storage_format::ServerRecords()) < 0;
       it->Next()) {
    ++n;
  }
  return n;
}

inline ROCKSDB_NAMESPACE::Status CompactToLastLevel(ROCKSDB_NAMESPACE::DB* db) {
  ROCKSDB_NAMESPACE::CompactRangeOptions all;
  all.bottommost_level_compaction = ROCKSDB_NAMESPACE::BottommostLevelCompaction::kForce;
  return db->CompactRange(all, nullptr, nullptr);
}

}  // namespace teksdb::server
