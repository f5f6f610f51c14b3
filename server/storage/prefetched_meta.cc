// PrefetchedMeta implementation: buffers kept across runs; a find looks
// first just past the last key it found (a run's GETs ask in order), then
// around (a run is a pipeline's GETs, a few dozen at most).
#include "prefetched_meta.h"

#include "storage_format.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;

void PrefetchedMeta::Prepare(uint8_t slot, const std::vector<Slice>& keys) {
  Clear();
  size_ = keys.size();
  next_ = 0;
  if (keys_.size() < size_) {
    keys_.resize(size_);
    records_.resize(size_);
    record_slices_.resize(size_);
    values_.resize(size_);
    statuses_.resize(size_);
  }
  for (size_t i = 0; i < size_; ++i) {
    keys_[i].assign(keys[i].data(), keys[i].size());
    storage_format::AssignMetaKey(slot, keys[i], &records_[i]);
    record_slices_[i] = records_[i];
    statuses_[i] = ROCKSDB_NAMESPACE::Status::Aborted();
  }
}

bool PrefetchedMeta::Find(const std::string& key, bool* found, Slice* bytes) const {
  for (size_t step = 0; step < size_; ++step) {
    const size_t i = (next_ + step) % size_;
    if (keys_[i] != key) continue;
    next_ = i + 1;
    if (statuses_[i].ok()) {
      *found = true;
      *bytes = values_[i];
      return true;
    }
    if (statuses_[i].IsNotFound()) {
      *found = false;
      return true;
    }
    return false;
  }
  return false;
}

void PrefetchedMeta::Clear() {
  if (size_ == 0) return;  // writes nothing: see the thread safety note
  for (size_t i = 0; i < size_; ++i) values_[i].Reset();
  size_ = 0;
}

}  // namespace teksdb::server
