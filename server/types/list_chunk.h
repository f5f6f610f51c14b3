// ListChunk: how a run of a list's elements is packed into one record, as
// Redis packs a quicklist node into a listpack: a small list's whole run is
// its meta record's payload, a large list's runs are its chunk records
// (list_store.h).
//
// Layout:
//   [count: 4 bytes big-endian] then, per element, in list order:
//   [length: varint] [bytes] [length again, its varint bytes reversed]
// The trailing copy of the length lets a pop from the right end find the
// last element without walking the others (listpack's backlen).
//
// Limits: list-max-listpack-size (Redis's "fill") bounds a chunk as it
// bounds a quicklist node - positive, at most that many elements (and
// 8 KB, Redis's safety limit); negative, at most 4 KB, 8 KB, 16 KB, 32 KB
// or 64 KB for -1 to -5 (and below); 0 counts as 1 - and kMaxChunkBytes
// bounds it below that: a chunk is rewritten whole by every push and pop
// it takes, and RocksDB's cost of a write grows with its bytes: an LPUSH
// onto one long list cost 31.5 µs of server CPU in 8 KB chunks, 9.7 in
// 1 KB ones, 7.3 in 512-byte ones; LRANGE 0 99 13 µs in 512-byte chunks,
// 21 in 256-byte ones (docs/BENCHMARKS.md §15). A chunk always takes its
// first element, however large.
//
// Every read is checked against the bytes left, so a damaged chunk reads as
// false (the caller's Corruption), never past its end.
//
// Thread safety: pure functions over bytes their caller owns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rocksdb/slice.h"

namespace teksdb::server::list_chunk {

constexpr size_t kHeaderBytes = 4;
constexpr size_t kMaxChunkBytes = 512;

struct Limits {
  int64_t max_entries;
  size_t max_bytes;
};
Limits LimitsFor(int64_t fill);
// What an element of `size` bytes adds to a chunk.
size_t ElementBytes(size_t size);
// Whether a chunk of `count` elements and `bytes` bytes, with one more
// element of `add` bytes (ElementBytes), is within `limits`: always for an
// empty chunk.
inline bool Fits(const Limits& limits, int64_t count, size_t bytes, size_t add) {
  return count == 0 || (count < limits.max_entries && bytes + add <= limits.max_bytes);
}

// How many of values[0..n) a chunk of `count` elements and `bytes` bytes
// takes in turn within `limits` (Fits, element by element).
size_t HowManyFit(const Limits& limits, int64_t count, size_t bytes, const std::string* values,
                  size_t n);

// A chunk of no element.
std::string Empty();
// The element count of a chunk; false if it has no header.
bool Count(const ROCKSDB_NAMESPACE::Slice& chunk, uint32_t* count);

// Walks a chunk's elements in list order.
class Reader {
 public:
  // REQUIRES: `chunk` outlives the reader.
  explicit Reader(const ROCKSDB_NAMESPACE::Slice& chunk);
  // The next element (pointing into the chunk); false at the end or when
  // the bytes are damaged (then corrupt()).
  bool Next(ROCKSDB_NAMESPACE::Slice* element);
  bool corrupt() const { return corrupt_; }
  uint32_t count() const { return count_; }

 private:
  ROCKSDB_NAMESPACE::Slice rest_;
  uint32_t count_ = 0;
  uint32_t left_ = 0;
  bool corrupt_ = false;
};

// Every element of a chunk, in order, appended to *out; false (and *out as
// it was) when the bytes are damaged.
bool DecodeAll(const ROCKSDB_NAMESPACE::Slice& chunk, std::vector<std::string>* out);

// Edits of a chunk its caller owns; false when the bytes are damaged (the
// chunk is then unchanged).
// Puts `values` in front, each in turn, as LPUSH does: values[n-1] first
// in the list.
bool PushFront(std::string* chunk, const std::string* values, size_t n);
// Puts `values` at the end, values[n-1] last in the list.
bool Append(std::string* chunk, const std::string* values, size_t n);
// Removes n <= count elements from the front (left) or the back, appending
// them to *out (if not null) in the order they leave: the first element
// first from the front, the last first from the back.
bool RemoveFront(std::string* chunk, uint32_t n, std::vector<std::string>* out);
bool RemoveBack(std::string* chunk, uint32_t n, std::vector<std::string>* out);
// Replaces the element at `index` < count by `value`.
bool Replace(std::string* chunk, uint32_t index, const ROCKSDB_NAMESPACE::Slice& value);

}  // namespace teksdb::server::list_chunk
