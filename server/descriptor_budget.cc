// DescriptorBudget implementation: getrlimit, setrlimit, arithmetic.
#include "descriptor_budget.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace teksdb::server {

bool DescriptorBudget::Plan(int64_t maxclients, int rocksdb_max_open_files,
                            DescriptorBudget* budget, std::string* error) {
  const bool files_given = rocksdb_max_open_files > 0;
  int64_t files = files_given ? rocksdb_max_open_files : kRocksDbFiles;
  const int64_t wanted = maxclients + kReserved + files;
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    *error = std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno);
    return false;
  }
  if (limit.rlim_cur != RLIM_INFINITY && static_cast<int64_t>(limit.rlim_cur) < wanted) {
    struct rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY
                          ? static_cast<rlim_t>(wanted)
                          : std::min<rlim_t>(static_cast<rlim_t>(wanted), limit.rlim_max);
    if (raised.rlim_cur > limit.rlim_cur && ::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      limit = raised;
    }
  }
  const int64_t descriptors = limit.rlim_cur == RLIM_INFINITY
                                  ? wanted
                                  : static_cast<int64_t>(limit.rlim_cur);
  if (descriptors < wanted && !files_given) {
    // Few descriptors: RocksDB gets a quarter of what is left after the
    // reserve (table files reopen as needed), the clients the rest.
    files = std::clamp<int64_t>((descriptors - kReserved) / 4, kFewestRocksDbFiles, kRocksDbFiles);
  }
  const int64_t most_clients = descriptors - kReserved - files;
  if (most_clients < 1) {
    *error = "the limit of open files ('ulimit -n') is " + std::to_string(descriptors) +
             ": teksdb-server needs at least " + std::to_string(kReserved + files + 1) + " (" +
             std::to_string(kReserved) + " of its own, " + std::to_string(files) +
             " for RocksDB's table files, 1 client)";
    return false;
  }
  budget->descriptors = descriptors;
  budget->rocksdb_open_files = static_cast<int>(files);
  budget->most_clients = most_clients;
  budget->maxclients = std::min(maxclients, most_clients);
  if (budget->maxclients < maxclients) {
    std::fprintf(stderr,
                 "teksdb-server: You requested maxclients of %lld requiring at least %lld max file "
                 "descriptors.\n"
                 "teksdb-server: Current maximum open files is %lld. maxclients has been reduced to "
                 "%lld to compensate for low ulimit (%lld kept for RocksDB's table files and %lld "
                 "for the server's own). If you need higher maxclients increase 'ulimit -n'.\n",
                 static_cast<long long>(maxclients), static_cast<long long>(wanted),
                 static_cast<long long>(descriptors), static_cast<long long>(budget->maxclients),
                 static_cast<long long>(files), static_cast<long long>(kReserved));
  }
  return true;
}

}  // namespace teksdb::server
