// VersionAllocator implementation: the ceiling's read and raise.
#include "version_allocator.h"

#include "storage_format.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

Status VersionAllocator::Next(uint64_t* version) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (next_ == 0) {
    std::string stored;
    const Status s =
        db_->Get(ROCKSDB_NAMESPACE::ReadOptions(), storage_format::VersionCeilingKey(), &stored);
    if (s.ok() && stored.size() == 8) {
      ceiling_ = storage_format::ReadU64(stored.data());
    } else if (s.ok()) {
      return Status::Corruption("the version ceiling record is " + std::to_string(stored.size()) +
                                " bytes, not 8");
    } else if (s.IsNotFound()) {
      ceiling_ = 1;
    } else {
      return s;
    }
    next_ = ceiling_;  // what a crash may have used of the last block is skipped
  }
  if (next_ == ceiling_) {
    if (ceiling_ > UINT64_MAX - kBlock) return Status::Aborted("collection versions exhausted");
    std::string raised;
    storage_format::AppendU64(&raised, ceiling_ + kBlock);
    ROCKSDB_NAMESPACE::WriteOptions durable;
    durable.sync = true;
    const Status s = db_->Put(durable, storage_format::VersionCeilingKey(), raised);
    if (!s.ok()) return s;
    ceiling_ += kBlock;
  }
  *version = next_++;
  return Status::OK();
}

}  // namespace teksdb::server
