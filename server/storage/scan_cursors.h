// ScanCursors: the positions behind SCAN and HSCAN cursors. Redis's cursor
// is a number that encodes a place in its hash table; here keys are in
// RocksDB's order, so a cursor names a saved position (the smallest key or
// member the next call returns) in this table. Save hands out a new
// number for a position, Find looks one up.
//
// Bounded: at most kMaxCursors positions and kMaxBytes of them (the oldest
// go first; one position is always kept, so a single huge key still
// scans). A cursor that was never handed out, or was evicted, is refused
// ("ERR invalid cursor") rather than silently restarted, so a client never
// loops or skips keys without knowing. Numbers start at a random point, so
// those of an earlier run of the server are unlikely to be taken for valid.
//
// Thread safety: every method may be called from any I/O thread; one mutex
// guards the table (a SCAN call takes it twice).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace teksdb::server {

class ScanCursors {
 public:
  static constexpr size_t kMaxCursors = 16384;
  static constexpr size_t kMaxBytes = size_t{64} << 20;

  ScanCursors();

  // A new cursor (never 0) for `position`.
  uint64_t Save(std::string position);
  // The position saved under `cursor`; false if there is none.
  bool Find(uint64_t cursor, std::string* position) const;

 private:
  mutable std::mutex mutex_;
  uint64_t next_;
  std::unordered_map<uint64_t, std::string> positions_;
  std::deque<uint64_t> order_;  // oldest first
  size_t bytes_ = 0;
};

}  // namespace teksdb::server
