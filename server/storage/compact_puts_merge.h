// CompactPutsMerge: the RocksDB merge operator that writes member puts
// into a compact collection's meta record (storage_format.h, version 0;
// compact_members.h), so that a write that only sets members of a compact
// hash, set or sorted set (HSET, HMSET, SADD, ZADD, ...) puts a small
// operand instead of rewriting the whole record: an operand is a compact
// payload of the members put (in member order, values as the collection
// keeps them), applied in order over the record below it.
//
// Only worth it when the operand is much smaller than the record: every
// read until the fold pays for the merge (decoding the record, applying
// the operands, encoding it again). The writer puts the whole record
// instead when the puts are more than a kRecordPerOperand-th of it.
//
// The writer still reads the record first (under the key's lock): it must
// answer WRONGTYPE, count what it added, and convert a collection that
// crosses a limit, which needs the member count. The merge spares the
// rewrite, not the read. RocksDB applies operands at every read until it
// folds them into a record: at the write that finds kMaxSuccessiveMerges of
// them already in the memtable, at flushes and at compactions.
//
// A base that is not a compact collection, or a damaged operand, fails the
// merge (RocksDB's Corruption), never a guess: a writer writes operands only
// over a compact collection it has just read under the key's lock.
//
// Thread safety: stateless.
#pragma once

#include <cstddef>
#include <memory>

#include "rocksdb/merge_operator.h"

namespace teksdb::server {

// How many operands a key's record may have in the memtable before a write
// folds them (RocksDB's max_successive_merges). docs/BENCHMARKS.md §9.1:
// YCSB A (half its operations HMSETs of one field) costs 4-10% less server
// CPU per operation at 8 than with whole-record puts; with no bound, reads
// of hot records merged ever longer lists and B and C cost 2.3x.
constexpr size_t kMaxSuccessiveMerges = 8;

// docs/BENCHMARKS.md §9.1: a merge of 5 fields into a record of about that
// size (bench_server.sh's hset) cost HSET 22% and HGETALL 71% more server
// CPU than whole-record puts; YCSB's one field of eleven, 4-10% less on A.
constexpr size_t kRecordPerOperand = 4;

std::shared_ptr<ROCKSDB_NAMESPACE::MergeOperator> NewCompactPutsMerge();

}  // namespace teksdb::server
