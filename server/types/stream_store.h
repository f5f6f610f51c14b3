// StreamStore: how a stream is stored, and the reads and writes its
// commands share (stream_commands.cc, stream_group_commands.cc,
// stream_info_command.cc).
//
// A stream is a collection (storage_format.h, type 'x') that is never
// compact: its meta record's payload is StreamMeta, and every entry,
// consumer group, consumer and pending entry is a member record under the
// stream's version, so DEL, RENAME and expiry are O(1) as for the other
// types. Member names, by their first byte:
//   'e' id                       an entry (id: 16 bytes, ms and sequence
//                                big-endian, so entries sort by id: XRANGE
//                                is a seek and a scan); value: its node and
//                                its field-value pairs
//   'n' id                       a node: the entries from this id on that
//                                Redis would keep in one listpack (below);
//                                value: its live and total entries, the
//                                last id appended to it
//   'g' group                    a consumer group: last delivered id and
//                                entries read
//   'c' len group consumer       a consumer (len: 4 bytes big-endian): the
//                                last time it was seen
//   'p' len group id             the group's pending entry: delivery time,
//                                delivery count, consumer
//   'q' len group len consumer id  the same entry in its consumer's list
//
// Nodes: Redis keeps a stream as listpacks of up to stream-node-max-entries
// entries (live and deleted) and stream-node-max-bytes bytes, and trims
// with "~" whole listpacks only; XINFO counts them. The store follows the
// same boundaries: XADD starts a new node where Redis would start a new
// listpack (its size computed as Redis's listpack would have it), a node
// whose last live entry goes is removed, as Redis removes its listpack.
//
// Thread safety: one command's, which holds the key's lock for writes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "request.h"

namespace teksdb::server {

struct StreamId {
  uint64_t ms = 0, seq = 0;

  bool operator<(const StreamId& o) const { return ms < o.ms || (ms == o.ms && seq < o.seq); }
  bool operator==(const StreamId& o) const { return ms == o.ms && seq == o.seq; }
  bool operator!=(const StreamId& o) const { return !(*this == o); }
  bool operator<=(const StreamId& o) const { return !(o < *this); }
  bool operator>(const StreamId& o) const { return o < *this; }
  bool operator>=(const StreamId& o) const { return !(*this < o); }
  bool zero() const { return ms == 0 && seq == 0; }
  static StreamId Max() { return {UINT64_MAX, UINT64_MAX}; }
  // The next and previous id; false (and unchanged) at the ends.
  bool Increment();
  bool Decrement();
  std::string Text() const;  // "ms-seq"
  std::string Bytes() const;  // 16 bytes big-endian
  static StreamId FromBytes(std::string_view bytes);
};

using StreamFields = std::vector<std::pair<std::string, std::string>>;

struct StreamEntry {
  StreamId id;
  StreamFields fields;
};

// The meta record's payload.
struct StreamMeta {
  uint64_t length = 0;
  StreamId last_id, max_deleted, first_id;  // first_id: Redis's recorded one
  uint64_t entries_added = 0;
  uint64_t nodes = 0;  // Redis's radix tree keys
  // The node XADD appends to (none when tail_total is 0).
  StreamId tail;
  uint64_t tail_live = 0, tail_total = 0, tail_bytes = 0;
  uint64_t tail_master_fields = 0, tail_master_hash = 0;
  int64_t expire_ms = 0;
  uint64_t version = 0;
};

struct StreamGroup {
  StreamId last_id;
  int64_t entries_read = -1;  // -1: unknown (Redis's SCG_INVALID_ENTRIES_READ)
};

struct PendingEntry {
  StreamId id;
  std::string consumer;
  int64_t delivery_ms = 0;
  uint64_t delivery_count = 0;
};

// How XADD and XTRIM trim.
struct StreamTrim {
  enum class Strategy { kNone, kMaxLen, kMinId } strategy = Strategy::kNone;
  bool approx = false;
  uint64_t maxlen = 0;
  StreamId minid;
  int64_t limit = 0;  // 0: none
};

class StreamStore {
 public:
  // Reads stream `key`: false (having replied) on a storage error or
  // another type; exists() false if there is none.
  bool Open(Request& r, const std::string& key);
  // Open for a caller that answers another type itself (a woken XREAD
  // waits on): *other_type set and exists() false, nothing replied.
  bool Load(Request& r, const std::string& key, bool* other_type);
  // A new empty stream (XADD, XGROUP CREATE MKSTREAM), or one that
  // replaces whatever `key` holds (RESTORE); false on a storage error.
  bool Create(Request& r);
  bool Replace(Request& r, const std::string& key) {
    key_ = key;
    return Create(r);
  }
  bool exists() const { return exists_; }
  StreamMeta& meta() { return meta_; }
  const std::string& key() const { return key_; }

  // Entries from `start` to `end` (both included), ascending or
  // descending, until `visit` returns false. Staged changes are not seen.
  bool Range(Request& r, StreamId start, StreamId end, bool reverse,
             const std::function<bool(const StreamEntry&)>& visit);
  // One entry, if it exists.
  bool ReadEntry(Request& r, StreamId id, std::optional<StreamEntry>* entry);
  // The first (or last) entry's id, if any.
  bool EdgeId(Request& r, bool last, std::optional<StreamId>* id);

  // Appends an entry with `id` (checked by the caller: above last_id).
  void Append(StreamId id, const StreamFields& fields, int64_t node_max_bytes,
              int64_t node_max_entries);
  // Deletes entry `id` if it exists (*deleted says), keeping its node.
  bool Delete(Request& r, StreamId id, bool* deleted);
  // Trims as Redis's streamTrim; *deleted: the entries removed.
  bool Trim(Request& r, const StreamTrim& trim, int64_t* deleted);

  // Consumer groups.
  bool ReadGroup(Request& r, const std::string& group, std::optional<StreamGroup>* out);
  void PutGroup(const std::string& group, const StreamGroup& g);
  bool ForEachGroup(Request& r,
                    const std::function<bool(const std::string&, const StreamGroup&)>& visit);
  // Deletes a group with its consumers and pending entries.
  bool DestroyGroup(Request& r, const std::string& group);
  // A consumer's last-seen time, if it exists.
  bool ReadConsumer(Request& r, const std::string& group, const std::string& consumer,
                    std::optional<int64_t>* seen_ms);
  void PutConsumer(const std::string& group, const std::string& consumer, int64_t seen_ms);
  bool ForEachConsumer(Request& r, const std::string& group,
                       const std::function<bool(const std::string&, int64_t)>& visit);
  // Deletes a consumer and its pending entries (*pending: how many).
  bool DeleteConsumer(Request& r, const std::string& group, const std::string& consumer,
                      int64_t* pending);
  // The group's pending entries from `start` on (all consumers, or one's).
  bool ForEachPending(Request& r, const std::string& group, const std::string* consumer,
                      StreamId start, const std::function<bool(const PendingEntry&)>& visit);
  bool ReadPending(Request& r, const std::string& group, StreamId id,
                   std::optional<PendingEntry>* out);
  // Writes (or moves, when `old_consumer` differs) a pending entry.
  void PutPending(const std::string& group, const PendingEntry& p, const std::string* old_consumer);
  void DeletePending(const std::string& group, const PendingEntry& p);

  // Writes the meta record and everything staged; false having replied.
  bool Commit(Request& r);

 private:
  // A node's live and total entries, and the last id ever appended to it
  // (deleted or not: what Redis's "~" MINID trimming compares).
  struct NodeCounts {
    uint64_t live = 0, total = 0;
    StreamId last;
  };
  bool ReadNode(Request& r, StreamId node, NodeCounts* counts);
  void PutNode(StreamId node, const NodeCounts& counts);
  // Takes one live entry from node `node` (the last one removes it).
  bool DropFromNode(Request& r, StreamId node);
  bool ReadFirstId(Request& r);

  std::string key_;
  bool exists_ = false, created_ = false;
  StreamMeta meta_;
  Keyspace::Batch batch_;
  // This command's changes that reads of the database do not see yet: the
  // nodes' counts (0 live: removed), the entries deleted.
  std::map<StreamId, NodeCounts> nodes_;
  std::set<StreamId> deleted_;
};

// The entries-read counter of `id` as Redis 7.0 estimates it
// (streamEstimateDistanceFromFirstEverEntry); -1 when unknown.
int64_t EstimateEntriesRead(const StreamMeta& meta, StreamId id);
// Whether a deleted entry may lie between `start` and the end of the
// stream (streamRangeHasTombstones with no end).
bool HasTombstonesFrom(const StreamMeta& meta, StreamId start);
// A group's lag: entries added less entries read, saturated (both may
// come from a RESTOREd payload).
int64_t GroupLag(uint64_t entries_added, int64_t entries_read);

}  // namespace teksdb::server
