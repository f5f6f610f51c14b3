// StagedWrites implementation: staging into the batch and the key map, the
// reads through them, and the index built for the first iterator.
#include "staged_writes.h"

#include <vector>

namespace teksdb::server {

using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;

// Replays writes into batch_ (noting each key's last write) and, while
// indexed, into the index.
class StagedWrites::Stager : public WriteBatch::Handler {
 public:
  Stager(StagedWrites* staged, std::vector<std::string> merged_values)
      : staged_(staged), merged_values_(std::move(merged_values)) {}

  Status PutCF(uint32_t cf, const Slice& key, const Slice& value) override {
    if (cf != 0) return Refuse("a write of column family " + std::to_string(cf));
    Status s = staged_->batch_.Put(key, value);
    if (s.ok() && staged_->indexed_) s = staged_->index_.Put(key, value);
    if (!s.ok()) return s;
    const std::string& rep = staged_->batch_.Data();
    const size_t offset = rep.size() - value.size();
    if (rep.compare(offset, value.size(), value.data(), value.size()) != 0) {
      return Status::Corruption("a staged Put record does not end with its value");
    }
    staged_->latest_[key.ToString()] = Latest{false, offset, value.size(), nullptr};
    return s;
  }
  Status DeleteCF(uint32_t cf, const Slice& key) override {
    if (cf != 0) return Refuse("a delete of column family " + std::to_string(cf));
    Status s = staged_->batch_.Delete(key);
    if (s.ok() && staged_->indexed_) s = staged_->index_.Delete(key);
    if (s.ok()) staged_->latest_[key.ToString()] = Latest{true, 0, 0, nullptr};
    return s;
  }
  Status SingleDeleteCF(uint32_t, const Slice&) override { return Refuse("a SingleDelete"); }
  Status DeleteRangeCF(uint32_t, const Slice&, const Slice&) override {
    return Refuse("a DeleteRange");
  }
  Status MergeCF(uint32_t cf, const Slice& key, const Slice& operand) override {
    if (cf != 0 || next_merged_ >= merged_values_.size()) return Refuse("a Merge");
    Status s = staged_->batch_.Merge(key, operand);
    staged_->merged_.push_back(std::move(merged_values_[next_merged_++]));
    if (s.ok() && staged_->indexed_) s = staged_->index_.Put(key, staged_->merged_.back());
    if (s.ok()) staged_->latest_[key.ToString()] = Latest{false, 0, 0, &staged_->merged_.back()};
    return s;
  }

 private:
  static Status Refuse(const std::string& what) {
    return Status::NotSupported(
        "a write group stages Puts, Deletes and Merges with their values only, not " + what);
  }
  StagedWrites* const staged_;
  std::vector<std::string> merged_values_;
  size_t next_merged_ = 0;
};

StagedWrites::StagedWrites()
    : index_(ROCKSDB_NAMESPACE::BytewiseComparator(), 0, /*overwrite_key=*/true) {}

Status StagedWrites::Add(const WriteBatch& writes, std::vector<std::string> merged_values) {
  Stager stager(this, std::move(merged_values));
  return writes.Iterate(&stager);
}

bool StagedWrites::FindStaged(const Slice& key, bool* deleted, Slice* value) const {
  const auto it = latest_.find(key.ToString());
  if (it == latest_.end()) return false;
  *deleted = it->second.deleted;
  if (*deleted) return true;
  *value = it->second.merged != nullptr
               ? Slice(*it->second.merged)
               : Slice(batch_.Data().data() + it->second.value_offset, it->second.value_size);
  return true;
}

Status StagedWrites::Get(ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ReadOptions& read,
                         const Slice& key, PinnableSlice* value) const {
  bool deleted;
  Slice staged;
  if (!FindStaged(key, &deleted, &staged)) {
    return db->Get(read, db->DefaultColumnFamily(), key, value);
  }
  if (deleted) return Status::NotFound();
  value->PinSelf(staged);
  return Status::OK();
}

void StagedWrites::MultiGet(ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ReadOptions& read,
                            size_t n, const Slice* keys, PinnableSlice* values,
                            Status* statuses) const {
  std::vector<size_t> unstaged;  // indexes of the keys the database answers
  for (size_t i = 0; i < n; ++i) {
    bool deleted;
    Slice staged;
    if (!FindStaged(keys[i], &deleted, &staged)) {
      unstaged.push_back(i);
    } else if (deleted) {
      statuses[i] = Status::NotFound();
    } else {
      values[i].PinSelf(staged);
      statuses[i] = Status::OK();
    }
  }
  if (unstaged.size() == n) {
    db->MultiGet(read, db->DefaultColumnFamily(), n, keys, values, statuses);
    return;
  }
  if (unstaged.empty()) return;
  const size_t m = unstaged.size();
  std::vector<Slice> asked;
  asked.reserve(m);
  for (size_t i : unstaged) asked.push_back(keys[i]);
  std::vector<PinnableSlice> found(m);
  std::vector<Status> found_statuses(m);
  db->MultiGet(read, db->DefaultColumnFamily(), m, asked.data(), found.data(),
               found_statuses.data());
  for (size_t j = 0; j < m; ++j) {
    values[unstaged[j]] = std::move(found[j]);
    statuses[unstaged[j]] = std::move(found_statuses[j]);
  }
}

std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> StagedWrites::NewIterator(
    ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ReadOptions& read) {
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> base(db->NewIterator(read));
  if (empty()) return base;
  if (!indexed_) {
    // The writes staged so far, in order; later Adds index theirs too.
    indexed_ = true;
    index_.Clear();
    struct IndexAll : WriteBatch::Handler {
      IndexAll(ROCKSDB_NAMESPACE::WriteBatchWithIndex* index, const std::deque<std::string>* merged)
          : index(index), merged(merged) {}
      Status PutCF(uint32_t, const Slice& key, const Slice& value) override {
        return index->Put(key, value);
      }
      Status DeleteCF(uint32_t, const Slice& key) override { return index->Delete(key); }
      Status MergeCF(uint32_t, const Slice& key, const Slice&) override {
        return index->Put(key, (*merged)[next++]);
      }
      ROCKSDB_NAMESPACE::WriteBatchWithIndex* index;
      const std::deque<std::string>* merged;
      size_t next = 0;
    } index_all(&index_, &merged_);
    const Status s = batch_.Iterate(&index_all);
    if (!s.ok()) {
      indexed_ = false;
      return std::unique_ptr<ROCKSDB_NAMESPACE::Iterator>(
          ROCKSDB_NAMESPACE::NewErrorIterator(s));
    }
  }
  return std::unique_ptr<ROCKSDB_NAMESPACE::Iterator>(
      index_.NewIteratorWithBase(db->DefaultColumnFamily(), base.release(), &read));
}

void StagedWrites::Clear() {
  batch_.Clear();
  merged_.clear();
  latest_.clear();
  if (indexed_) index_.Clear();
  indexed_ = false;
}

}  // namespace teksdb::server
