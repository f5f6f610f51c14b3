// LinkSocket: one replication link's TCP socket, blocking with timeouts
// (poll): the replica's connection to its primary, and the primary's end
// of a replica's connection (taken over from the client connection after
// PSYNC). Frames on a link are RESP arrays of bulk strings
// (link_frames.h), read with the protocol's own parser; handshake replies
// are single lines.
//
// Thread safety: one thread reads and writes; Shutdown may be called from
// any thread (it wakes a blocked read, which then fails).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "resp_parser.h"
#include "rocksdb/status.h"

namespace teksdb::server {

class LinkSocket {
 public:
  LinkSocket() = default;
  explicit LinkSocket(int fd) : fd_(fd) {}
  ~LinkSocket();
  LinkSocket(const LinkSocket&) = delete;
  LinkSocket& operator=(const LinkSocket&) = delete;

  // Connects to host:port (a name or an address) within timeout_ms, from
  // the address `source` if given (bind-source-addr).
  ROCKSDB_NAMESPACE::Status Connect(const std::string& host, int port, int timeout_ms,
                                    const std::string& source = "");
  bool connected() const { return fd_ >= 0; }
  // The peer's address, or empty.
  std::string PeerAddress() const;

  ROCKSDB_NAMESPACE::Status WriteAll(std::string_view bytes, int timeout_ms);
  // A line ended by "\r\n" (without it): a handshake reply. TimedOut or
  // IOError (closed) otherwise.
  ROCKSDB_NAMESPACE::Status ReadLine(std::string* line, int timeout_ms);
  // The next frame; TimedOut when none came whole within timeout_ms (what
  // came is kept), IOError when the link closed or spoke no RESP.
  ROCKSDB_NAMESPACE::Status ReadFrame(std::vector<std::string>* frame, int timeout_ms);

  void Shutdown();

 private:
  // Reads what arrives within timeout_ms into pending_.
  ROCKSDB_NAMESPACE::Status Fill(int timeout_ms);

  int fd_ = -1;
  std::string pending_;  // read, not yet consumed
  RespParser parser_;
};

}  // namespace teksdb::server
