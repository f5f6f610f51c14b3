// RetryableOpenErrors: the file system RocksDB runs on, as it is, except
// that a file it cannot open for want of descriptors ("Too many open
// files": EMFILE, ENFILE) fails with a retryable error. RocksDB treats a
// plain I/O error in a flush as fatal (no DB::Resume() gets out of it, only
// a reopen); a retryable one as passing, as it already treats a full disk.
// So when the process runs out of descriptors and gets them back, writes
// come back without a restart (storage_health.h resumes).
//
// Thread safety: as the file system it wraps (it adds no state).
#pragma once

#include <memory>
#include <string>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"

namespace teksdb::server {

class RetryableOpenErrors : public ROCKSDB_NAMESPACE::FileSystemWrapper {
 public:
  using IOStatus = ROCKSDB_NAMESPACE::IOStatus;
  using FileOptions = ROCKSDB_NAMESPACE::FileOptions;
  using IOOptions = ROCKSDB_NAMESPACE::IOOptions;
  using IODebugContext = ROCKSDB_NAMESPACE::IODebugContext;

  explicit RetryableOpenErrors(const std::shared_ptr<ROCKSDB_NAMESPACE::FileSystem>& base)
      : FileSystemWrapper(base) {}
  static const char* kClassName() { return "TeksdbRetryableOpenErrors"; }
  const char* Name() const override { return kClassName(); }

  // An Env over the default file system, so wrapped.
  static std::shared_ptr<ROCKSDB_NAMESPACE::Env> NewEnv();

  IOStatus NewSequentialFile(const std::string& f, const FileOptions& o,
                             std::unique_ptr<ROCKSDB_NAMESPACE::FSSequentialFile>* r,
                             IODebugContext* d) override;
  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o,
                               std::unique_ptr<ROCKSDB_NAMESPACE::FSRandomAccessFile>* r,
                               IODebugContext* d) override;
  IOStatus NewWritableFile(const std::string& f, const FileOptions& o,
                           std::unique_ptr<ROCKSDB_NAMESPACE::FSWritableFile>* r,
                           IODebugContext* d) override;
  IOStatus ReopenWritableFile(const std::string& f, const FileOptions& o,
                              std::unique_ptr<ROCKSDB_NAMESPACE::FSWritableFile>* r,
                              IODebugContext* d) override;
  IOStatus ReuseWritableFile(const std::string& f, const std::string& old, const FileOptions& o,
                             std::unique_ptr<ROCKSDB_NAMESPACE::FSWritableFile>* r,
                             IODebugContext* d) override;
  IOStatus NewRandomRWFile(const std::string& f, const FileOptions& o,
                           std::unique_ptr<ROCKSDB_NAMESPACE::FSRandomRWFile>* r,
                           IODebugContext* d) override;
  IOStatus NewDirectory(const std::string& name, const IOOptions& o,
                        std::unique_ptr<ROCKSDB_NAMESPACE::FSDirectory>* r,
                        IODebugContext* d) override;
  IOStatus GetChildren(const std::string& dir, const IOOptions& o, std::vector<std::string>* r,
                       IODebugContext* d) override;
  IOStatus LockFile(const std::string& f, const IOOptions& o, ROCKSDB_NAMESPACE::FileLock** l,
                    IODebugContext* d) override;
};

}  // namespace teksdb::server
