// RetryableOpenErrors implementation: each opening call, its error marked.
#include "retryable_open_errors.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::IOStatus;

// (RocksDB's POSIX file system words the error with strerror: EMFILE's
// "Too many open files", ENFILE's "Too many open files in system".)
IOStatus Marked(IOStatus s) {
  if (s.IsIOError() && s.ToString().find("Too many open files") != std::string::npos) {
    s.SetRetryable(true);
  }
  return s;
}

}  // namespace

std::shared_ptr<ROCKSDB_NAMESPACE::Env> RetryableOpenErrors::NewEnv() {
  return ROCKSDB_NAMESPACE::NewCompositeEnv(
      std::make_shared<RetryableOpenErrors>(ROCKSDB_NAMESPACE::FileSystem::Default()));
}

IOStatus RetryableOpenErrors::NewSequentialFile(
    const std::string& f, const FileOptions& o,
    std::unique_ptr<ROCKSDB_NAMESPACE::FSSequentialFile>* r, IODebugContext* d) {
  return Marked(target()->NewSequentialFile(f, o, r, d));
}

IOStatus RetryableOpenErrors::NewRandomAccessFile(
    const std::string& f, const FileOptions& o,
    std::unique_ptr<ROCKSDB_NAMESPACE::FSRandomAccessFile>* r, IODebugContext* d) {
  return Marked(target()->NewRandomAccessFile(f, o, r, d));
}

IOStatus RetryableOpenErrors::NewWritableFile(const std::string& f, const FileOptions& o,
                                              std::unique_ptr<ROCKSDB_NAMESPACE::FSWritableFile>* r,
                                              IODebugContext* d) {
  return Marked(target()->NewWritableFile(f, o, r, d));
}

IOStatus RetryableOpenErrors::ReopenWritableFile(
    const std::string& f, const FileOptions& o,
    std::unique_ptr<ROCKSDB_NAMESPACE::FSWritableFile>* r, IODebugContext* d) {
  return Marked(target()->ReopenWritableFile(f, o, r, d));
}

IOStatus RetryableOpenErrors::ReuseWritableFile(
    const std::string& f, const std::string& old, const FileOptions& o,
    std::unique_ptr<ROCKSDB_NAMESPACE::FSWritableFile>* r, IODebugContext* d) {
  return Marked(target()->ReuseWritableFile(f, old, o, r, d));
}

IOStatus RetryableOpenErrors::NewRandomRWFile(const std::string& f, const FileOptions& o,
                                              std::unique_ptr<ROCKSDB_NAMESPACE::FSRandomRWFile>* r,
                                              IODebugContext* d) {
  return Marked(target()->NewRandomRWFile(f, o, r, d));
}

IOStatus RetryableOpenErrors::NewDirectory(const std::string& name, const IOOptions& o,
                                           std::unique_ptr<ROCKSDB_NAMESPACE::FSDirectory>* r,
                                           IODebugContext* d) {
  return Marked(target()->NewDirectory(name, o, r, d));
}

IOStatus RetryableOpenErrors::GetChildren(const std::string& dir, const IOOptions& o,
                                          std::vector<std::string>* r, IODebugContext* d) {
  return Marked(target()->GetChildren(dir, o, r, d));
}

IOStatus RetryableOpenErrors::LockFile(const std::string& f, const IOOptions& o,
                                       ROCKSDB_NAMESPACE::FileLock** l, IODebugContext* d) {
  return Marked(target()->LockFile(f, o, l, d));
}

}  // namespace teksdb::server
