// RocksDbInfoLog: the database's LOG (RocksDB's info log), written by the
// server's own rocksdb::Logger instead of RocksDB's. RocksDB's logger
// writes through a WritableFileWriter, which, built with assertions (as
// Debian's librocksdb is), aborts the process on the next line after one
// failed write: a full disk would kill the server in its log. This one
// writes each line with one write(2) and drops a line it cannot write
// (counted), so a full disk costs log lines, never the server.
//
// DIR/LOG is appended to (RocksDB's "date time thread message" lines); at
// open, a LOG past kRollBytes becomes LOG.old (replacing the one before).
//
// Thread safety: Logv may be called from any thread (one write each, with
// O_APPEND); RocksDB calls it from its background threads and writers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/env.h"

namespace teksdb::server {

class RocksDbInfoLog : public ROCKSDB_NAMESPACE::Logger {
 public:
  static constexpr int64_t kRollBytes = int64_t{64} << 20;

  // Opens DIR/LOG (creating DIR); null with *error set if it cannot.
  static std::shared_ptr<RocksDbInfoLog> Open(const std::string& dir, std::string* error);
  ~RocksDbInfoLog() override;

  using ROCKSDB_NAMESPACE::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  // Lines that could not be written (a full disk, an I/O error).
  uint64_t dropped_lines() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  explicit RocksDbInfoLog(int fd) : fd_(fd) {}
  ROCKSDB_NAMESPACE::Status CloseImpl() override;

  int fd_;
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace teksdb::server
