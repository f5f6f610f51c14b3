// CompactLimits: how small a hash, set or sorted set must be to live inside
// its meta record (storage/compact_members.h), and how large a list's
// chunks grow (types/list_store.h), as CONFIG sets them: Redis's
// hash-max-listpack-entries / -value, set-max-intset-entries,
// set-max-listpack-entries / -value (Redis 7.2's) and
// zset-max-listpack-entries / -value, list-max-listpack-size. A collection past a limit is
// converted to one record per member once, and stays so until deleted, as
// Redis converts a listpack to a hash table.
//
// The defaults are chosen for records in RocksDB, not copied from Redis's
// in-memory trade-offs: a write to a compact collection rewrites its whole
// meta record, so the size of that record, not a pointer chase, is what a
// limit bounds. docs/BENCHMARKS.md §9.1 measures it: an HSET of one field
// costs 1.3x the per-member layout's at 1.7 KB, 2.7x at 6.6 KB, 5.8x at
// 17 KB and 18x at 34 KB, an HGETALL 1.6-1.9x less throughout: 64 entries
// of up to 128 bytes keep a hash under about 9 KB plus its field names (a
// YCSB record, 11 fields of 100 bytes, is 1.2 KB);
// sorted sets and sets of strings 64 of up to 64; sets of integers
// Redis's 512 (about 5 KB at most).
//
// Thread safety: every limit is an atomic, read relaxed by any command
// (a command sees one value or the other of a concurrent CONFIG SET).
#pragma once

#include <atomic>
#include <cstdint>

namespace teksdb::server {

struct CompactLimits {
  std::atomic<int64_t> hash_entries{64};
  std::atomic<int64_t> hash_value{128};
  std::atomic<int64_t> set_intset_entries{512};
  std::atomic<int64_t> set_entries{64};
  std::atomic<int64_t> set_value{64};
  std::atomic<int64_t> zset_entries{64};
  std::atomic<int64_t> zset_value{64};
  // list-max-listpack-size, Redis's quicklist "fill" (types/list_chunk.h):
  // a list lies in its meta record while it fits one chunk.
  std::atomic<int64_t> list_fill{-2};
};

}  // namespace teksdb::server
