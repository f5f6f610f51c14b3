// ServerFlags: what teksdb-server is told at start, from a configuration
// file in redis.conf's syntax (config_file.h) and the command line:
//
//   teksdb-server [CONFIG_FILE] [--name value ...]
//
// Every directive of the file is also a flag ("dir /data" is "--dir
// /data"); flags come after the file's directives, so they win, as in
// Redis. A flag's value is what follows it up to the next "--" word
// ("--replicaof host 6380"), or what follows '=' ("--port=7000"); "--sync"
// alone means "--sync yes". The server's own settings (dir, port, bind,
// threads, memtable, linker-nice, rocksdb-options, sync, block-cache-mb, replicaof,
// masteruser, masterauth, repl-*, enable-debug-command, logfile, daemonize no,
// databases 16, aclfile, and "user NAME RULES..." lines) are kept here; any other name must be a CONFIG parameter
// (config_parameters.h), checked now and set once the server's state
// exists (Apply). An unknown name, a bad value or a malformed line stops
// the start, naming where ("FILE:LINE" or "command line") and why.
//
// Thread safety: parsing runs once, on the main thread.
#pragma once

#include <string>
#include <vector>

#include "config_file.h"
#include "server_state.h"

namespace teksdb::server {

struct ServerFlags {
  std::string config_file;  // absolute; empty: none
  std::string dir;
  std::string bind = "127.0.0.1";
  int port = 6379;
  int threads = 1;
  std::string memtable = "teks";
  // TeksTable's background linker's nice value (TeksTableOptions::linker_nice).
  int linker_nice = 0;
  std::string rocksdb_options;
  std::string enable_debug_command = "no";  // DEBUG: no, yes or local (loopback clients)
  std::string logfile;  // empty: standard error
  bool sync = false;
  int block_cache_mb = 1024;
  bool block_cache_given = false;
  int64_t maxclients = 10000;
  // ACL: the users of "user" lines (each its name, then its rules), or the
  // file that holds them (relative to dir; not both, as Redis).
  std::vector<std::vector<std::string>> users;
  std::string aclfile;  // also a CONFIG parameter; the descriptors may lower it
  // Replication (replication.h).
  std::string replicaof_host;  // "replicaof HOST PORT"
  int replicaof_port = 0;
  std::string masteruser, masterauth;
  int repl_max_mbps = 0;             // a full sync's rate; 0: unlimited
  int repl_wal_retention_mb = 4096;  // archived WAL kept for replicas
  int repl_wal_retention_s = 3600;
  // CONFIG parameters, checked, in the order given: Apply sets them.
  std::vector<ConfigDirective> parameters;
};

// Parses argv (exits with the reason, on standard error, if it cannot).
ServerFlags ParseServerFlags(int argc, char** argv);

// Sets flags.parameters on `server` (REQUIRES: its replication is set).
void ApplyConfigParameters(const ServerFlags& flags, ServerState* server);

}  // namespace teksdb::server
