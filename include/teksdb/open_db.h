// OpenDB: RocksDB's DB::Open (and OpenDBReadOnly its DB::OpenForReadOnly) as
// every release from 7.8.3 to 11.x can call it. RocksDB 7.8.3 to 9.x open
// into a DB**, 10.x into either, 11.x only into a std::unique_ptr<DB>*
// (include/teksdb/rocksdb_version.h); these take the unique_ptr on every
// release. A stock DB: TeksDB::Open opens one under the layer.
//
// Thread safety: as DB::Open.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "teksdb/rocksdb_version.h"

namespace teksdb {

// DB::Open(options, path, db).
inline ROCKSDB_NAMESPACE::Status OpenDB(const ROCKSDB_NAMESPACE::Options& options,
                                        const std::string& path,
                                        std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if TEKSDB_ROCKSDB_OPEN_TAKES_UNIQUE_PTR
  return ROCKSDB_NAMESPACE::DB::Open(options, path, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::DB::Open(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

// DB::Open(db_options, path, column_families, handles, db).
inline ROCKSDB_NAMESPACE::Status OpenDB(
    const ROCKSDB_NAMESPACE::DBOptions& db_options, const std::string& path,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if TEKSDB_ROCKSDB_OPEN_TAKES_UNIQUE_PTR
  return ROCKSDB_NAMESPACE::DB::Open(db_options, path, column_families, handles, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::DB::Open(db_options, path, column_families, handles, &raw);
  db->reset(raw);
  return s;
#endif
}

// DB::OpenForReadOnly(options, path, db).
inline ROCKSDB_NAMESPACE::Status OpenDBReadOnly(const ROCKSDB_NAMESPACE::Options& options,
                                                const std::string& path,
                                                std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
#if TEKSDB_ROCKSDB_OPEN_TAKES_UNIQUE_PTR
  return ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, db);
#else
  ROCKSDB_NAMESPACE::DB* raw = nullptr;
  const ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::DB::OpenForReadOnly(options, path, &raw);
  db->reset(raw);
  return s;
#endif
}

}  // namespace teksdb
