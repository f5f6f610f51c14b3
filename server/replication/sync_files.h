// The files of a full sync: a checkpoint's files on the primary, the copy
// arriving on the replica, and their XXH64 checksums (link_frames.h's
// FILEEND).
//
// Thread safety: pure functions over the file system.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "rocksdb/status.h"

namespace teksdb::server::sync_files {

struct FileSum {
  uint64_t size = 0;
  uint64_t checksum = 0;  // XXH64, seed 0
  bool operator==(const FileSum& o) const { return size == o.size && checksum == o.checksum; }
};

// Size and checksum of the file at `path`.
ROCKSDB_NAMESPACE::Status Sum(const std::string& path, FileSum* sum);
// Every plain file directly in `dir` with its size and checksum (an empty
// map when `dir` is not there).
ROCKSDB_NAMESPACE::Status SumAll(const std::string& dir, std::map<std::string, FileSum>* sums);
// Removes `path` and everything under it (nothing there: OK).
ROCKSDB_NAMESPACE::Status RemoveTree(const std::string& path);
// Whether `name` may name a file of a sync: a plain name, no path.
bool PlainName(const std::string& name);

}  // namespace teksdb::server::sync_files
