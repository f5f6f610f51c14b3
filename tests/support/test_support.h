// Test support: what rep-level tests need to drive a MemTableRep without a
// RocksDB MemTable around it (with the teksdb_rep_support target: arenas and
// entry encoding, shared with tools/memtable_bench), and small helpers
// shared by the DB-level tests.
//
// Thread safety: TestArena and InternalKeyOrder may be used from many
// threads at once; RepHarness inserts from any thread (like MemTable::Add).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cuckoo_index.h"
#include "key_record.h"
#include "memtable_entry.h"
#include "ordered_index.h"
#include "rep_arenas.h"
#include "rocksdb/comparator.h"
#include "rocksdb/iterator.h"
#include "rocksdb/listener.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/status.h"
#include "rocksdb_internals.h"
#include "teksdb/teks_table.h"

namespace teksdb {
namespace test {

// The rep-level tests' allocator (tools/rep_arenas.h).
using teksdb::TestArena;

// Entry encoding and internal-key order, shared with tools/memtable_bench.
using teksdb::DecodedEntry;
using teksdb::DecodeEntry;
using teksdb::EncodeEntry;
using teksdb::InternalKey;
using teksdb::InternalKeyOrder;

// A KeyRecord of a random height, allocated in `arena`, whose entry is
// (user_key, seq, kEntryValue, value).
KeyRecord* MakeRecord(TestArena* arena, const Slice& user_key, SequenceNumber seq,
                      const Slice& value = Slice());

// A rep of `factory` once the factory was told (ValidateOptions) that the
// column family's write buffer is `write_buffer_size` bytes, which sizes a
// first memtable's hash; over `arena`, ordered by `order`.
std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> NewRepForWriteBuffer(
    ROCKSDB_NAMESPACE::MemTableRepFactory* factory, size_t write_buffer_size,
    const InternalKeyOrder& order, TestArena* arena);

// A copy of `first`, a record's first version, as a version of its own in
// `arena` (what VersionChain::Insert asks for to link a version below it).
Version* CopyFirstVersion(TestArena* arena, const Version* first);
// VersionChain::Insert's copier for a chain whose first version has a link
// of its own (never asked for a copy).
inline constexpr auto kNoFirstCopy = [](const Version*) -> Version* { return nullptr; };
// VersionChain::Insert's copier for a record's chain in `arena`.
inline auto CopiesIn(TestArena* arena) {
  return [arena](const Version* first) { return CopyFirstVersion(arena, first); };
}

// A key whose bytewise order is that of `i`: "key" and 12 digits.
std::string OrderedKey(uint64_t i);

// Checks the skip list's shape: every level holds, in strictly increasing
// key order, exactly the records of `records` tall enough for it.
// REQUIRES: no insert is running.
void ExpectEveryLevelSortedAndComplete(const OrderedIndex& index,
                                       const std::vector<const KeyRecord*>& records);

// Owns Versions whose entries are real memtable entries for the user key
// "k", each pointer-aligned with room for a jump link before it, as in a
// record allocation, and given one. Make() may run on many threads at once.
class VersionPool {
 public:
  Version* Make(SequenceNumber seq, uint8_t type = kEntryValue);

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<uint64_t[]>> memory_;
};

// A CuckooIndex with the skip list it overflows into, used the way the rep
// uses them with async=false: a record that wins its key is linked into
// the skip list before it turns LIVE.
class HashIndexHarness {
 public:
  explicit HashIndexHarness(size_t initial_slots, bool serialize_inserts = false)
      : skip_list(order_), index(initial_slots, serialize_inserts, &skip_list) {}
  // The key's LIVE record after inserting a candidate built with `seq`.
  KeyRecord* Insert(const std::string& key, SequenceNumber seq = 1);
  KeyRecord* Find(const std::string& key) const {
    return index.FindLive(InternalKey(key, 1, kEntryValue), index.Hash(key));
  }
  // Records that won their key through the hash (not the overflow).
  uint64_t won() const { return won_.load(); }

 private:
  static void LinkWon(void* harness, KeyRecord* record);
  InternalKeyOrder order_;
  TestArena arena_;
  std::atomic<uint64_t> won_{0};

 public:
  OrderedIndex skip_list;
  CuckooIndex index;
};

// While alive, every CuckooIndex hashes every key to one value.
class ScopedForcedHash {
 public:
  explicit ScopedForcedHash(uint64_t hash = 0x5eed5eed5eed5eedULL) {
    CuckooIndex::ForceHashForTesting(true, hash);
  }
  ~ScopedForcedHash() { CuckooIndex::ForceHashForTesting(false); }
};

// "key@seq", padded with '.' to 48 bytes: a value that names its version,
// the same length for every version, so that every update of keys of one
// length needs the same allocation (the reuse tests).
std::string VersionValue(const std::string& key, SequenceNumber seq);

// A drop policy whose answer the test sets (any thread); it must keep the
// contract: every sequence <= the answer is already inserted.
class SettablePolicy : public VersionDropPolicy {
 public:
  explicit SettablePolicy(SequenceNumber s) : s_(s) {}
  SequenceNumber OldestReadableSequence() override { return s_.load(); }
  void Set(SequenceNumber s) { s_.store(s); }

  // Stripes: no reader reads in [lo, hi) if hi is at most the published
  // sequence (0, "maybe" for every question, until SetPublished) and no
  // pinned sequence lies in [lo, hi).
  bool MayReadBetween(SequenceNumber lo, SequenceNumber hi) override;
  void SetPublished(SequenceNumber published) { published_.store(published); }
  void Pin(SequenceNumber seq);
  void Unpin(SequenceNumber seq);

 private:
  std::atomic<SequenceNumber> s_;
  std::atomic<SequenceNumber> published_{0};
  std::mutex pinned_mu_;
  std::multiset<SequenceNumber> pinned_;
};

// A TeksTableRep over a TestArena, fed the way MemTable::Add feeds a rep.
class RepHarness {
 public:
  explicit RepHarness(const TeksTableOptions& options = TeksTableOptions(),
                      std::shared_ptr<VersionDropPolicy> policy = nullptr);
  ~RepHarness();
  // Allocates, encodes and inserts one entry; returns InsertKey's result.
  bool Add(const Slice& user_key, SequenceNumber seq, uint8_t type, const Slice& value);
  // What MemTable::Get would collect: entries from the first version visible
  // at `seq` while `want_more(entry)` says so.
  std::vector<std::string> GetEntries(const Slice& user_key, SequenceNumber seq,
                                      size_t max_entries = ~size_t{0});
  ROCKSDB_NAMESPACE::MemTableRep& rep() { return *rep_; }
  const TestArena& arena() const { return arena_; }

 private:
  TestArena arena_;
  InternalKeyOrder order_;
  std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> factory_;
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> rep_;
};

// Base of tests run once per paper variant id ("teks-s", ... ).
class VariantTest : public ::testing::TestWithParam<std::string> {
 protected:
  TeksTableOptions Options() const;
};
// A gtest parameter name for a variant id ("teks-s" -> "teks_s").
std::string VariantTestName(const ::testing::TestParamInfo<std::string>& info);

// A bytewise comparator with an 8-byte user-defined timestamp.
class TimestampedComparator : public ROCKSDB_NAMESPACE::Comparator {
 public:
  TimestampedComparator() : Comparator(8) {}
  const char* Name() const override { return "test.TimestampedComparator"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    return a.compare(b);
  }
  int CompareTimestamp(const ROCKSDB_NAMESPACE::Slice& a,
                       const ROCKSDB_NAMESPACE::Slice& b) const override {
    return a.compare(b);
  }
  int CompareWithoutTimestamp(const ROCKSDB_NAMESPACE::Slice& a, bool,
                              const ROCKSDB_NAMESPACE::Slice& b, bool) const override {
    return a.compare(b);
  }
  void FindShortestSeparator(std::string*, const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
  bool CanKeysWithDifferentByteContentsBeEqual() const override { return false; }
};

// A merge operator that joins operands with ',' (existing value first).
class AppendOperator : public ROCKSDB_NAMESPACE::AssociativeMergeOperator {
 public:
  bool Merge(const ROCKSDB_NAMESPACE::Slice& key, const ROCKSDB_NAMESPACE::Slice* existing_value,
             const ROCKSDB_NAMESPACE::Slice& value, std::string* new_value,
             ROCKSDB_NAMESPACE::Logger* logger) const override;
  const char* Name() const override { return "TeksTestAppend"; }
};

// Counts the flushes RocksDB starts by itself because a write buffer filled.
class AutomaticFlushCounter : public ROCKSDB_NAMESPACE::EventListener {
 public:
  void OnFlushCompleted(ROCKSDB_NAMESPACE::DB* /*db*/, const ROCKSDB_NAMESPACE::FlushJobInfo& info) override {
    if (info.flush_reason == ROCKSDB_NAMESPACE::FlushReason::kWriteBufferFull) count_++;
  }
  uint64_t count() const { return count_.load(); }

 private:
  std::atomic<uint64_t> count_{0};
};

// Moves both iterators of a comparison one step the same way: Next if
// `forward`, else Prev.
inline void StepBoth(ROCKSDB_NAMESPACE::Iterator* want, ROCKSDB_NAMESPACE::Iterator* got,
                     bool forward) {
  if (forward) {
    want->Next();
    got->Next();
  } else {
    want->Prev();
    got->Prev();
  }
}

// Asserts that a rocksdb::Status expression is OK, printing it if not.
#define ASSERT_OK(expr)                                                         \
  do {                                                                          \
    const ::ROCKSDB_NAMESPACE::Status assert_ok_status = (expr);                \
    ASSERT_TRUE(assert_ok_status.ok()) << #expr << ": " << assert_ok_status.ToString(); \
  } while (0)

// TEKSDB_TEST_SEED: a number replays a run; "random" draws a fresh seed;
// unset, `default_seed`.
uint64_t SeedFor(uint64_t default_seed);
// What a test traces about its seed, so that a failure says how to replay it.
std::string ReplayHint(uint64_t seed);
// TEKSDB_TEST_SCALE: multiplies operation counts (default 1).
int Scale();

// A fresh directory under the system temp dir, removed at destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace test
}  // namespace teksdb
