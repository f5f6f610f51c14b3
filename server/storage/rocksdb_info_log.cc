// RocksDbInfoLog implementation: one formatted line, one write(2).
#include "rocksdb_info_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <sys/time.h>

namespace teksdb::server {

std::shared_ptr<RocksDbInfoLog> RocksDbInfoLog::Open(const std::string& dir, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return nullptr;
  }
  const std::string path = dir + "/LOG";
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && st.st_size > kRollBytes) {
    ::rename(path.c_str(), (path + ".old").c_str());
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  return std::shared_ptr<RocksDbInfoLog>(new RocksDbInfoLog(fd));
}

RocksDbInfoLog::~RocksDbInfoLog() {
  if (fd_ >= 0) ::close(fd_);
}

ROCKSDB_NAMESPACE::Status RocksDbInfoLog::CloseImpl() {
  if (fd_ >= 0 && ::close(fd_) != 0) {
    fd_ = -1;
    return ROCKSDB_NAMESPACE::Status::IOError("closing the info log", std::strerror(errno));
  }
  fd_ = -1;
  return ROCKSDB_NAMESPACE::Status::OK();
}

void RocksDbInfoLog::Logv(const char* format, va_list ap) {
  if (fd_ < 0) return;
  char line[4096];
  struct timeval now;
  ::gettimeofday(&now, nullptr);
  struct tm t;
  ::localtime_r(&now.tv_sec, &t);
  int n = std::snprintf(line, sizeof line, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld %ld ",
                        t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                        static_cast<long>(now.tv_usec), static_cast<long>(::syscall(SYS_gettid)));
  va_list copy;
  va_copy(copy, ap);
  const int body = std::vsnprintf(line + n, sizeof line - n - 1, format, copy);
  va_end(copy);
  // (A line cut at the buffer's end keeps what fits.)
  n = body < 0 ? n : std::min<int>(n + body, static_cast<int>(sizeof line) - 2);
  if (n == 0 || line[n - 1] != '\n') line[n++] = '\n';
  if (::write(fd_, line, static_cast<size_t>(n)) != n) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace teksdb::server
