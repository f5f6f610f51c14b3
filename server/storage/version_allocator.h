// VersionAllocator: hands out collection versions (storage_format.h), each
// once for the database's lifetime, restarts and crashes included.
//
// Versions are counted, not read off a clock (a clock can step back). The
// database keeps a ceiling, the version-ceiling server record: every
// version handed out lies below it. Reaching the ceiling (and at the first
// allocation after a start) raises it by kBlock with a synced write before
// handing out anything above the old one, so after a crash the next start
// begins at a ceiling no version handed out ever reached. A block costs one
// small write per kBlock collections; a restart skips what is left of its
// block (2^64 versions last ~584,000 years at a million blocks a second).
//
// Thread safety: Next may be called from any thread; one mutex, held for
// the increment and, once per block, for the ceiling's write.
#pragma once

#include <cstdint>
#include <mutex>

#include "rocksdb/db.h"

namespace teksdb::server {

class VersionAllocator {
 public:
  static constexpr uint64_t kBlock = uint64_t{1} << 20;

  explicit VersionAllocator(ROCKSDB_NAMESPACE::DB* db) : db_(db) {}

  // A version never handed out before (never 0); an error if the ceiling
  // cannot be read or written.
  ROCKSDB_NAMESPACE::Status Next(uint64_t* version);

 private:
  ROCKSDB_NAMESPACE::DB* const db_;
  std::mutex mutex_;
  uint64_t next_ = 0;     // guarded by mutex_; 0: the ceiling not read yet
  uint64_t ceiling_ = 0;  // guarded by mutex_: the stored ceiling
};

}  // namespace teksdb::server
