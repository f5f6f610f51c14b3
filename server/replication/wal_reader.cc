// WalReader (wal_reader.h).
#include "wal_reader.h"

#include <utility>

#include "rocksdb/write_batch.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

Status WalReader::Read(size_t max_bytes, std::vector<ShippedBatch>* batches) {
  size_t bytes = 0;
  while (bytes < max_bytes) {
    if (db_->GetLatestSequenceNumber() < next_) return Status::OK();  // caught up
    if (it_ != nullptr && at_end_) {
      // Tailing: the iterator reads on in its last WAL file. (A new file
      // since it was made leaves it invalid: it is made again below.)
      at_end_ = false;
      it_->Next();
      if (!it_->Valid()) it_.reset();
    }
    if (it_ == nullptr) {
      Status s = db_->GetUpdatesSince(next_, &it_);
      if (!s.ok()) {
        it_.reset();
        // RocksDB's NotFound: no WAL file holds the sequence any more.
        return s.IsNotFound() ? Status::Incomplete("the WAL no longer holds sequence " +
                                                   std::to_string(next_) + ": " + s.ToString())
                              : s;
      }
    }
    if (!it_->Valid()) {
      Status s = it_->status();
      if (s.ok()) {
        at_end_ = true;  // at the end of what is written: Next() reads on later
        return Status::OK();
      }
      it_.reset();
      if (!s.IsTryAgain()) return s;
      return Status::OK();  // a new WAL file: made again next time
    }
    ROCKSDB_NAMESPACE::BatchResult result = it_->GetBatch();
    const uint64_t count = result.writeBatchPtr->Count();
    if (result.sequence != next_) {
      it_.reset();
      const bool gap = result.sequence > next_;
      return Status::Incomplete(
          gap ? "the WAL no longer holds sequence " + std::to_string(next_) + " (it goes on at " +
                    std::to_string(result.sequence) + ")"
              : "sequence " + std::to_string(next_) + " falls inside the batch at " +
                    std::to_string(result.sequence) + ": another history");
    }
    if (count > 0) {
      bytes += result.writeBatchPtr->GetDataSize();
      batches->push_back(ShippedBatch{result.sequence, result.writeBatchPtr->Data()});
      next_ += count;
    }
    it_->Next();
  }
  return Status::OK();
}

}  // namespace teksdb::server
