// MigrateSockets: MIGRATE's connections to other servers, kept for the
// next MIGRATE to the same host and port as Redis keeps them
// (cluster.c's migrateGetSocket): at most 64, each closed once unused for
// 10 seconds (the server's cron calls CloseIdle), with the database the
// last MIGRATE SELECTed there so that the next one need not.
//
// A MIGRATE takes the connection out while it uses it, so two MIGRATEs to
// one target never share one; it puts it back only if nothing failed on
// it (a failed one is closed, as Redis closes it).
//
// Thread safety: all methods may be called from any thread (one mutex).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "resp_socket.h"

namespace teksdb::server {

class MigrateSockets {
 public:
  struct Cached {
    std::unique_ptr<RespSocket> socket;
    int64_t selected_db = -1;  // -1: SELECT before the next RESTORE
    bool reused = false;       // taken from the cache, not just connected
  };

  // The connection to host:port: the cached one, or a new one connected
  // within timeout_ms; its time limit set to timeout_ms. Null, with
  // *error, if it cannot connect.
  std::unique_ptr<Cached> Take(const std::string& host, const std::string& port, int timeout_ms,
                               std::string* error);
  // Keeps `cached` for the next MIGRATE to host:port.
  void Return(const std::string& host, const std::string& port, std::unique_ptr<Cached> cached,
              int64_t now_ms);
  // Closes the connections unused since 10 seconds before now_ms.
  void CloseIdle(int64_t now_ms);
  // How many are kept (INFO's migrate_cached_sockets).
  size_t size() const;

 private:
  struct Entry {
    std::unique_ptr<Cached> cached;
    int64_t last_use_ms = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> sockets_;  // "host:port" ->
};

}  // namespace teksdb::server
