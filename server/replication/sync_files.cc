// sync_files.h over std::filesystem and XXH64 (Debian's xxhash,
// header-only).
#include "sync_files.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace teksdb::server::sync_files {

using ROCKSDB_NAMESPACE::Status;
namespace fs = std::filesystem;

Status Sum(const std::string& path, FileSum* sum) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read " + path);
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  std::vector<char> buffer(1 << 20);
  uint64_t size = 0;
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    if (n <= 0) break;
    XXH64_update(&state, buffer.data(), static_cast<size_t>(n));
    size += static_cast<uint64_t>(n);
  }
  if (in.bad()) return Status::IOError("cannot read " + path);
  *sum = FileSum{size, XXH64_digest(&state)};
  return Status::OK();
}

Status SumAll(const std::string& dir, std::map<std::string, FileSum>* sums) {
  sums->clear();
  std::error_code error;
  if (!fs::exists(dir, error)) return Status::OK();
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    if (!entry.is_regular_file()) continue;
    FileSum sum;
    Status s = Sum(entry.path().string(), &sum);
    if (!s.ok()) return s;
    (*sums)[entry.path().filename().string()] = sum;
  }
  if (error) return Status::IOError("cannot list " + dir, error.message());
  return Status::OK();
}

Status RemoveTree(const std::string& path) {
  std::error_code error;
  fs::remove_all(path, error);
  return error ? Status::IOError("cannot remove " + path, error.message()) : Status::OK();
}

bool PlainName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

}  // namespace teksdb::server::sync_files
