// Allocators standing in for RocksDB's (non-exported) memtable Arena when
// code drives a MemTableRep without a MemTable around it (the
// teksdb_rep_support target, with memtable_entry.h):
//   - BenchArena, for tools/memtable_bench: a bump allocator over large
//     blocks. Both reps under test allocate from it, so they pay the same
//     allocation cost.
//   - TestArena, for the rep-level tests: one heap block per allocation, so
//     AddressSanitizer catches a write past any of them; it counts the
//     bytes handed out.
//
// Thread safety: Allocate/AllocateAligned take a mutex, so any thread may
// allocate; memory handed out is never moved or reused before the arena is
// destroyed.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "rocksdb_internals.h"

namespace teksdb {

class BenchArena : public ROCKSDB_NAMESPACE::Allocator {
 public:
  static constexpr size_t kBlockSize = 4 << 20;

  char* Allocate(size_t bytes) override { return AllocateAligned(bytes); }

  char* AllocateAligned(size_t bytes, size_t /*huge_page_size*/ = 0,
                        ROCKSDB_NAMESPACE::Logger* /*logger*/ = nullptr) override {
    constexpr size_t kAlign = alignof(std::max_align_t);
    bytes = (bytes + kAlign - 1) & ~(kAlign - 1);
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes > kBlockSize / 4) {  // big requests get a block of their own
      blocks_.emplace_back(new char[bytes]);
      return blocks_.back().get();
    }
    if (bytes > remaining_) {
      blocks_.emplace_back(new char[kBlockSize]);
      next_ = blocks_.back().get();
      remaining_ = kBlockSize;
    }
    char* result = next_;
    next_ += bytes;
    remaining_ -= bytes;
    return result;
  }

  size_t BlockSize() const override { return kBlockSize; }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t remaining_ = 0;
};

class TestArena : public ROCKSDB_NAMESPACE::Allocator {
 public:
  // `block_size` is only reported (BlockSize()): TeksTable guesses the
  // write buffer size from it, as RocksDB sizes blocks from that.
  explicit TestArena(size_t block_size = 4096) : block_size_(block_size) {}
  char* Allocate(size_t bytes) override { return AllocateAligned(bytes); }
  char* AllocateAligned(size_t bytes, size_t /*huge_page_size*/ = 0,
                        ROCKSDB_NAMESPACE::Logger* /*logger*/ = nullptr) override {
    allocated_bytes_.fetch_add(bytes);
    std::lock_guard<std::mutex> lock(mu_);
    // new[] of char is aligned for any fundamental type.
    blocks_.emplace_back(new char[bytes == 0 ? 1 : bytes]);
    return blocks_.back().get();
  }
  size_t BlockSize() const override { return block_size_; }
  // Bytes handed out so far.
  size_t allocated_bytes() const { return allocated_bytes_.load(); }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::atomic<size_t> allocated_bytes_{0};
  const size_t block_size_;
};

}  // namespace teksdb
