// StaleMemberFilter implementation: the liveness lookup and its one-entry
// memo.
#include "stale_member_filter.h"

#include <string>

#include "compact_members.h"
#include "storage_format.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;

class StaleMemberFilter : public ROCKSDB_NAMESPACE::CompactionFilter {
 public:
  // The snapshot is taken when the compaction starts, after every record it
  // reads was written; a version dead then stays dead (stale_member_filter.h).
  StaleMemberFilter(StaleMemberFilterFactory* factory, ROCKSDB_NAMESPACE::DB* db)
      : factory_(factory), db_(db), snapshot_(db) {}

  bool Filter(int /*level*/, const Slice& key, const Slice& /*value*/, std::string* /*new_value*/,
              bool* /*value_changed*/) const override {
    char tag;
    uint64_t version;
    if (!storage_format::ParseVersionedKey(key, &tag, &version)) return false;
    if (!judged_ || version != last_version_) {
      last_dead_ = Dead(version);
      last_version_ = version;
      judged_ = true;
    }
    if (last_dead_) factory_->dropped_.fetch_add(1, std::memory_order_relaxed);
    return last_dead_;
  }

  const char* Name() const override { return "teksdb.StaleMemberFilter"; }

 private:
  // True only when the records of `version` can never be read again.
  bool Dead(uint64_t version) const {
    ROCKSDB_NAMESPACE::ReadOptions read;
    read.snapshot = snapshot_.snapshot();
    std::string owner;
    ROCKSDB_NAMESPACE::Status s = db_->Get(read, storage_format::OwnerKey(version), &owner);
    if (s.IsNotFound()) return true;
    if (!s.ok()) return false;
    std::string bytes;
    s = db_->Get(read, storage_format::MetaKeyOfOwner(owner), &bytes);
    if (s.IsNotFound()) return true;
    storage_format::Meta meta;
    if (!s.ok() || !storage_format::DecodeMeta(bytes, &meta)) return false;
    // (A listpackex hash's due entries are its due version's.)
    return !storage_format::IsCollection(meta.type) ||
           (meta.version != version && compact_members::DueVersion(meta.payload) != version);
  }

  StaleMemberFilterFactory* const factory_;
  ROCKSDB_NAMESPACE::DB* const db_;
  // Mutable: ManagedSnapshot::snapshot() is not const in every release.
  mutable ROCKSDB_NAMESPACE::ManagedSnapshot snapshot_;
  mutable bool judged_ = false;
  mutable uint64_t last_version_ = 0;
  mutable bool last_dead_ = false;
};

std::unique_ptr<ROCKSDB_NAMESPACE::CompactionFilter> StaleMemberFilterFactory::CreateCompactionFilter(
    const ROCKSDB_NAMESPACE::CompactionFilter::Context& /*context*/) {
  ROCKSDB_NAMESPACE::DB* db = db_.load(std::memory_order_acquire);
  if (db == nullptr) return nullptr;  // not attached: nothing is filtered
  return std::make_unique<StaleMemberFilter>(this, db);
}

}  // namespace teksdb::server
