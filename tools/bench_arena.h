// BenchArena: a bump Allocator over large heap blocks, freed at destruction,
// standing in for RocksDB's (non-exported) memtable Arena when
// tools/memtable_bench drives a MemTableRep on its own. Both reps under
// test allocate from it, so they pay the same allocation cost.
//
// Thread safety: Allocate/AllocateAligned take a mutex, so any thread may
// allocate; memory handed out is never moved or reused.
#pragma once

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

}  // namespace teksdb
