// WalApplier (wal_applier.h).
#include "wal_applier.h"

#include <string>

#include "rocksdb/write_batch.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

Status WalApplier::Apply(const ShippedBatch& shipped) {
  const uint64_t latest = db_->GetLatestSequenceNumber();
  if (shipped.sequence != latest + 1) {
    return Status::Incomplete("a batch at sequence " + std::to_string(shipped.sequence) +
                              " where the replica is at " + std::to_string(latest));
  }
  // WriteBatch's header: 8 bytes of sequence, 4 of count.
  if (shipped.data.size() < 12) return Status::Corruption("a shipped batch of " +
                                                          std::to_string(shipped.data.size()) +
                                                          " bytes");
  ROCKSDB_NAMESPACE::WriteBatch batch(shipped.data);
  ROCKSDB_NAMESPACE::WriteOptions options;
  options.sync = sync_;
  Status s = db_->Write(options, &batch);
  if (!s.ok()) return s;
  const uint64_t now = db_->GetLatestSequenceNumber();
  if (now != latest + batch.Count()) {
    return Status::Corruption("the batch at " + std::to_string(shipped.sequence) + " moved the " +
                              "replica from " + std::to_string(latest) + " to " +
                              std::to_string(now) + ", not by its " +
                              std::to_string(batch.Count()) + " records");
  }
  return Status::OK();
}

}  // namespace teksdb::server
