// ListStore: how a list is stored, and the reads and writes its commands
// share (list_commands.cc, list_edit_commands.cc, list_move_commands.cc),
// as Redis keeps a list: a small one in one listpack, a large one as a
// quicklist of listpack nodes.
//
// - Small: a list that fits one chunk (list_chunk.h's limits, CONFIG's
//   list-max-listpack-size) lies whole in its meta record (type 'l',
//   version 0, payload: the chunk), so LPUSH is one read and one put of
//   that record and LRANGE one point read.
// - Chunked: past that, once (as Redis never turns a quicklist back into a
//   listpack), the list gets a version and its elements lie in chunk
//   records under it (`"H" version chunk-id`, the id biased by 2^63 and
//   big-endian, so chunks sort in list order), each within the limits; the
//   meta record holds the element count, the first and last chunk ids and
//   a generation, counted up by every write of the list, which is also
//   written before each chunk it writes. A push touches the end chunk (a
//   new one below the first or above the last when it is full), a pop the
//   end chunk (deleted when emptied); LINDEX, LSET and LRANGE walk chunks
//   from the nearer end by their counts, as Redis walks quicklist nodes.
//   LINSERT and LREM rewrite the list (O(n), as in Redis), deleting or
//   emptying it writes its meta record only.
//
// Thread safety: writers hold the key's lock. Reads take no lock (until
// they run again: LockOnRerun): a chunk
// whose generation is above the one the reader's meta record carries was
// written after it, a chunk missing between the first and last ids was
// popped (or a compaction removed a replaced version's): either way the
// reader asks for a rerun (r.retry) unless the meta record is unchanged
// (then the record is damaged: Corruption).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "list_chunk.h"
#include "request.h"

namespace teksdb::server {

// One command's view of one list key. Reads see the list as stored; Push,
// Pop and Set edit it in memory, Stage writes the edits into a batch.
class StoredList {
 public:
  // Reads the list at `key`: false, having replied, on a storage error or
  // another type (WRONGTYPE). An absent key opens as an empty list.
  bool Open(Request& r, const std::string& key);
  // An empty list that replaces whatever `key` holds, expiring at
  // `expire_ms` (0: never): Stage writes it new, or deletes the key if it
  // is left empty.
  void Replace(const std::string& key, int64_t expire_ms);

  bool exists() const { return exists_; }
  int64_t count() const { return count_; }
  int64_t expire_ms() const { return expire_ms_; }
  // Whether the list lies whole in its meta record.
  bool small() const { return version_ == 0; }

  // Reads, as stored (REQUIRES: no edit yet). False having replied (a
  // storage error, Corruption) or set r.retry.
  // Elements start..stop, in order (0 <= start <= stop < count()).
  bool Range(Request& r, int64_t start, int64_t stop, std::vector<std::string>* out);
  bool All(Request& r, std::vector<std::string>* out);
  // The element at 0 <= index < count().
  bool At(Request& r, int64_t index, std::string* value);

  // Edits (REQUIRES the key's lock). False having replied.
  // Pushes `values` on one end, each in turn (LPUSH a b: b first).
  bool Push(Request& r, bool left, const std::string* values, size_t n);
  bool Push(Request& r, bool left, const std::vector<std::string>& values) {
    return Push(r, left, values.data(), values.size());
  }
  // Pops up to n elements from one end, appending them to *values (if not
  // null) in pop order.
  bool Pop(Request& r, bool left, int64_t n, std::vector<std::string>* values);
  // Sets the element at 0 <= index < count() (REQUIRES: no other edit yet).
  bool Set(Request& r, int64_t index, const std::string& value);
  // Stages the edits: the changed chunks and the meta record, or the
  // key's deletion when the list is left empty (if it existed).
  void Stage(Keyspace::Batch* batch);

 private:
  struct Chunk {
    std::string bytes;  // list_chunk.h's layout
    uint32_t count = 0;
    bool dirty = false;
  };
  // A walk over the stored chunks from one end: visit(id, chunk, count)
  // until it returns false. False having replied or set r.retry.
  template <typename Visit>
  bool Walk(Request& r, bool from_left, Visit visit);
  // The chunk where the element at `index` lies, and its index there.
  bool Find(Request& r, int64_t index, int64_t* id, uint32_t* offset);
  // A stored chunk, loaded for an edit; nullptr having replied.
  Chunk* Load(Request& r, int64_t id);
  Chunk* NewChunk(int64_t id);
  // Moves a small list's elements (in list order) into chunks under a new
  // version. False having replied.
  bool ToChunks(Request& r, std::vector<std::string> elements);
  // After a read that found the chunks out of step with the meta record:
  // sets r.retry if the list was written since, else replies Corruption.
  bool Settle(Request& r);
  list_chunk::Limits limits(const Request& r) const;
  // A chunked list's meta payload.
  std::string ChunkedPayload() const;

  std::string key_;
  bool exists_ = false;
  bool new_version_ = false;  // a version this command made (owner record)
  int64_t count_ = 0;
  int64_t expire_ms_ = 0;
  uint64_t version_ = 0;
  std::string small_;  // a small list's chunk (version 0)
  int64_t first_ = 0, last_ = -1;  // chunk ids (chunked)
  uint64_t generation_ = 0;
  std::map<int64_t, Chunk> chunks_;  // loaded or new
  std::set<int64_t> erased_;
};

// Every element of the list whose meta record is `meta`, in order, passed
// to `visit` until it returns false, read without the key's lock and
// without the generation check (DEBUG DIGEST-VALUE's read: a list written
// under it reads as some mix, as in Redis only with no writer).
ROCKSDB_NAMESPACE::Status ForEachListElement(
    const Keyspace& keyspace, const Keyspace::Value& meta,
    const std::function<bool(const ROCKSDB_NAMESPACE::Slice&)>& visit);

// How many chunk records a list's meta record names (0 for a small list:
// it has none), for MEMORY USAGE.
int64_t ListChunkCount(const Keyspace::Value& meta);

// For the reads that take no lock (LRANGE, LINDEX, LPOS): the key's lock
// when the handler runs again (its first read met a write), so that a list
// written without pause is still read, at the second try; no lock at the
// first.
Keyspace::KeyLocks LockOnRerun(Request& r, const std::string& key);

// Stages `elements` as a new list at `key`, replacing whatever it holds
// (deleting it when there are none); expiring at `expire_ms`. False
// having replied.
bool StageNewList(Request& r, const std::string& key, int64_t expire_ms,
                  const std::vector<std::string>& elements, Keyspace::Batch* batch);
// StageNewList and Commit.
bool WriteNewList(Request& r, const std::string& key, int64_t expire_ms,
                  const std::vector<std::string>& elements);

// Redis's index rules: negative counts from the end.
inline int64_t NormalizeIndex(int64_t index, int64_t count) {
  return index < 0 ? count + index : index;
}

}  // namespace teksdb::server
