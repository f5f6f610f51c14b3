// teksdb-rdb-import: loads a Redis RDB file (versions 1 to 10: Redis 7.0's
// and every older one's, rdb/rdb_file.h) into a running teksdb-server, or
// any server that speaks RESTORE.
//
//   teksdb-rdb-import [--host 127.0.0.1] [--port 6379] [--password PW]
//                     [--replace] [--batch 256] FILE
//
// Each key is sent as Redis's own migration sends it: SELECT its database
// (a database the server refuses stops the import),
// RESTORE key expiry payload ABSTTL [REPLACE] (the value re-serialized by
// rdb/rdb_value.h after it was read and checked), pipelined --batch
// commands at a time; function libraries as FUNCTION LOAD [REPLACE]. Keys
// whose expiry has passed are skipped, as Redis skips them loading a file.
// Progress goes to stderr every second; at the end a table of keys per
// database, skipped and refused keys. A key the server refuses (BUSYKEY
// without --replace, ...) is named with the server's error and the import
// goes on; a damaged file stops it at the byte it could not read. Exit
// status: 0 all imported, 1 some key refused, 2 the file or the server
// could not be read.
//
// Thread safety: single-threaded.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "printable_text.h"
#include "rdb_file.h"
#include "rdb_value.h"
#include "resp_socket.h"

namespace {

using teksdb::server::PrintableText;
using teksdb::server::RdbFile;
using teksdb::server::RespSocket;
namespace rdb_value = teksdb::server::rdb_value;

struct Flags {
  std::string host = "127.0.0.1";
  std::string port = "6379";
  std::string password;
  bool replace = false;
  size_t batch = 256;
  std::string file;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "teksdb-rdb-import: %s\n"
               "usage: teksdb-rdb-import [--host 127.0.0.1] [--port 6379] [--password PW]\n"
               "                         [--replace] [--batch 256] FILE\n",
               why);
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--host") {
      f.host = value();
    } else if (a == "--port") {
      f.port = value();
    } else if (a == "--password") {
      f.password = value();
    } else if (a == "--replace") {
      f.replace = true;
    } else if (a == "--batch") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1 || n > 100000) Usage(("bad --batch " + v).c_str());
      f.batch = static_cast<size_t>(n);
    } else if (!a.empty() && a[0] == '-') {
      Usage(("unknown flag " + a).c_str());
    } else if (f.file.empty()) {
      f.file = a;
    } else {
      Usage("one file at a time");
    }
  }
  if (f.file.empty()) Usage("no RDB file given");
  return f;
}

// The file's bytes, mapped for the time of the import.
class MappedFile {
 public:
  bool Open(const std::string& path, std::string* error) {
    fd_ = open(path.c_str(), O_RDONLY);
    struct stat st {};
    if (fd_ < 0 || fstat(fd_, &st) != 0) {
      *error = "cannot open " + path + ": " + std::strerror(errno);
      return false;
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) return true;
    void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (p == MAP_FAILED) {
      *error = "cannot map " + path + ": " + std::strerror(errno);
      return false;
    }
    data_ = static_cast<const char*>(p);
    return true;
  }
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
    if (fd_ >= 0) close(fd_);
  }
  std::string_view bytes() const { return {data_ == nullptr ? "" : data_, size_}; }

 private:
  int fd_ = -1;
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// What was sent and what came of it.
struct Tally {
  std::map<int, uint64_t> keys;  // imported, per database
  uint64_t expired = 0, functions = 0, refused = 0;
  // What each pipelined command was, to name a refused one.
  std::vector<std::string> pending;
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Sends the pipeline and reads its replies; false if the server went away.
bool Exchange(RespSocket& c, Tally* tally) {
  if (!c.Flush()) return false;
  for (const std::string& what : tally->pending) {
    std::string error;
    if (!c.ReadReply(&error)) return false;
    if (!error.empty()) {
      ++tally->refused;
      std::fprintf(stderr, "[rdb-import] %s refused: %s\n", what.c_str(),
                   PrintableText(error).c_str());
    }
  }
  tally->pending.clear();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  std::string error;
  MappedFile file;
  if (!file.Open(flags.file, &error)) {
    std::fprintf(stderr, "teksdb-rdb-import: %s\n", error.c_str());
    return 2;
  }
  RdbFile rdb(file.bytes());
  if (!rdb.Start()) {
    std::fprintf(stderr, "teksdb-rdb-import: %s: %s\n", flags.file.c_str(), rdb.error().c_str());
    return 2;
  }
  RespSocket c;
  if (!c.Connect(flags.host, flags.port, /*timeout_ms=*/0, &error)) {
    std::fprintf(stderr, "teksdb-rdb-import: %s\n", error.c_str());
    return 2;
  }
  Tally tally;
  if (!flags.password.empty()) {
    c.Append({"AUTH", flags.password});
    tally.pending.push_back("AUTH");
  }
  std::fprintf(stderr, "[rdb-import] %s: RDB version %d, %.1f MB, into %s:%s\n", flags.file.c_str(),
               rdb.version(), rdb.size() / 1e6, flags.host.c_str(), flags.port.c_str());
  const auto start = std::chrono::steady_clock::now();
  auto last_report = start;
  int selected = 0;
  uint64_t sent_keys = 0;
  RdbFile::Entry entry;
  for (;;) {
    const RdbFile::Item item = rdb.Next(&entry);
    if (item == RdbFile::Item::kError) {
      Exchange(c, &tally);
      std::fprintf(stderr, "teksdb-rdb-import: %s: %s\n", flags.file.c_str(), rdb.error().c_str());
      return 2;
    }
    if (item == RdbFile::Item::kEnd) break;
    if (item == RdbFile::Item::kFunction) {
      std::vector<std::string> load = {"FUNCTION", "LOAD"};
      if (flags.replace) load.push_back("REPLACE");
      load.push_back(entry.function_code);
      c.Append(load);
      tally.pending.push_back("a function library");
      ++tally.functions;
    } else if (entry.expire_ms != 0 && entry.expire_ms <= NowMs()) {
      ++tally.expired;
    } else {
      if (entry.db != selected) {
        // SELECT alone, its reply read before any key follows: a database
        // the server does not have stops the import (its keys must not
        // land in the one selected before).
        std::string select_error;
        if (!Exchange(c, &tally)) {
          std::fprintf(stderr, "teksdb-rdb-import: the server closed the connection\n");
          return 2;
        }
        c.Append({"SELECT", std::to_string(entry.db)});
        if (!c.Flush() || !c.ReadReply(&select_error)) {
          std::fprintf(stderr, "teksdb-rdb-import: the server closed the connection\n");
          return 2;
        }
        if (!select_error.empty()) {
          std::fprintf(stderr, "teksdb-rdb-import: database %d: %s\n", entry.db,
                       PrintableText(select_error).c_str());
          return 2;
        }
        selected = entry.db;
      }
      std::vector<std::string> restore = {"RESTORE", entry.key, std::to_string(entry.expire_ms),
                                          rdb_value::Dump(entry.value), "ABSTTL"};
      if (flags.replace) restore.push_back("REPLACE");
      c.Append(restore);
      tally.pending.push_back("key '" + PrintableText(entry.key) + "' (db " +
                              std::to_string(entry.db) + ")");
      ++tally.keys[entry.db];
      ++sent_keys;
    }
    if (tally.pending.size() >= flags.batch && !Exchange(c, &tally)) {
      std::fprintf(stderr, "teksdb-rdb-import: the server closed the connection\n");
      return 2;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report >= std::chrono::seconds(1)) {
      last_report = now;
      std::fprintf(stderr, "[rdb-import] %.1f / %.1f MB (%.0f%%), %llu keys\n", rdb.position() / 1e6,
                   rdb.size() / 1e6, 100.0 * rdb.position() / rdb.size(),
                   static_cast<unsigned long long>(sent_keys));
    }
  }
  if (!Exchange(c, &tally)) {
    std::fprintf(stderr, "teksdb-rdb-import: the server closed the connection\n");
    return 2;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-22s %12s\n", "database", "keys sent");
  for (const auto& [db, n] : tally.keys) {
    std::printf("%-22d %12llu\n", db, static_cast<unsigned long long>(n));
  }
  std::printf("%-22s %12llu\n", "expired (skipped)", static_cast<unsigned long long>(tally.expired));
  std::printf("%-22s %12llu\n", "function libraries",
              static_cast<unsigned long long>(tally.functions));
  std::printf("%-22s %12llu\n", "refused by the server",
              static_cast<unsigned long long>(tally.refused));
  std::printf("%-22s %12.1f\n", "seconds", seconds);
  return tally.refused == 0 ? 0 : 1;
}
