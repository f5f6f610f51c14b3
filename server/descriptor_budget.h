// DescriptorBudget: the process's file descriptors (RLIMIT_NOFILE) shared
// out at start, so that clients and RocksDB's table files never together
// run the process out of them: kReserved for the server's own (listening
// socket, WAL, MANIFEST, LOG, replication links and copies, MIGRATE's
// sockets), RocksDB's max_open_files (as an OPTIONS file sets it; else
// kRocksDbFiles, less when descriptors are few), and maxclients the rest,
// at most. The soft limit is raised toward what that needs (up to the hard
// limit) first, as Redis raises it; when it stays short, maxclients is
// lowered, and a warning says so in Redis's words.
//
// Thread safety: Plan runs once, on the main thread, before the database
// opens.
#pragma once

#include <cstdint>
#include <string>

namespace teksdb::server {

struct DescriptorBudget {
  static constexpr int64_t kReserved = 128;
  static constexpr int64_t kRocksDbFiles = 1024;
  static constexpr int64_t kFewestRocksDbFiles = 64;

  int64_t descriptors = 0;      // the soft limit in force
  int64_t maxclients = 0;       // what was asked, or less
  int64_t most_clients = 0;     // what CONFIG SET maxclients may go up to
  int rocksdb_open_files = 0;   // for RocksDB's max_open_files

  // `maxclients` asked; `rocksdb_max_open_files` as the options have it
  // (-1: RocksDB's "unbounded", a share chosen here). False with *error
  // when the descriptors cannot hold RocksDB and one client.
  static bool Plan(int64_t maxclients, int rocksdb_max_open_files, DescriptorBudget* budget,
                   std::string* error);
};

}  // namespace teksdb::server
