// TeksDB implementation: option preparation at open, and the read paths,
// each wrapped in a ReaderRegistry registration taken before RocksDB picks
// the read's sequence.
#include "teksdb/teks_db.h"

#include <mutex>
#include <unordered_map>

#include "reader_registry.h"
#include "teksdb/teks_table.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Status;

namespace {

Status CheckDBOptions(const DBOptions& options) {
  if (options.unordered_write) {
    return Status::InvalidArgument(
        "TeksDB does not support unordered_write",
        "memtable inserts may then finish after their sequence is published");
  }
  if (options.two_write_queues) {
    return Status::InvalidArgument(
        "TeksDB does not support two_write_queues",
        "the last sequence may then run ahead of the last published one");
  }
  return Status::OK();
}

ROCKSDB_NAMESPACE::SequenceNumber SnapshotCap(const ReadOptions& options) {
  return options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                     : kMaxSequenceNumber;
}

// A DB iterator that keeps its reader registered until it is destroyed.
class RegisteredIterator : public ROCKSDB_NAMESPACE::Iterator {
 public:
  RegisteredIterator(ROCKSDB_NAMESPACE::Iterator* base,
                     ReaderRegistry::Registration registration)
      : base_(base), registration_(std::move(registration)) {}

  bool Valid() const override { return base_->Valid(); }
  void SeekToFirst() override { base_->SeekToFirst(); }
  void SeekToLast() override { base_->SeekToLast(); }
  void Seek(const ROCKSDB_NAMESPACE::Slice& target) override { base_->Seek(target); }
  void SeekForPrev(const ROCKSDB_NAMESPACE::Slice& target) override {
    base_->SeekForPrev(target);
  }
  void Next() override { base_->Next(); }
  void Prev() override { base_->Prev(); }
  ROCKSDB_NAMESPACE::Slice key() const override { return base_->key(); }
  ROCKSDB_NAMESPACE::Slice value() const override { return base_->value(); }
  const ROCKSDB_NAMESPACE::WideColumns& columns() const override {
    return base_->columns();
  }
  Status status() const override { return base_->status(); }
  // The refreshed iterator reads at a newer sequence: the old floor, lower,
  // stays safe.
  Status Refresh() override { return base_->Refresh(); }
  Status GetProperty(std::string prop_name, std::string* prop) override {
    return base_->GetProperty(std::move(prop_name), prop);
  }
  ROCKSDB_NAMESPACE::Slice timestamp() const override { return base_->timestamp(); }

 private:
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> base_;
  ReaderRegistry::Registration registration_;
};

}  // namespace

struct TeksDB::SnapshotRegistrations {
  std::mutex mu;
  std::unordered_map<const ROCKSDB_NAMESPACE::Snapshot*, ReaderRegistry::Registration>
      by_snapshot;
};

ColumnFamilyOptions TeksDB::WithTeksTable(const ColumnFamilyOptions& options,
                                          const std::shared_ptr<ReaderRegistry>& registry) {
  ColumnFamilyOptions result = options;
  const TeksTableOptions* existing =
      options.memtable_factory != nullptr ? GetTeksTableOptions(*options.memtable_factory)
                                          : nullptr;
  result.memtable_factory =
      NewTeksTableFactory(existing != nullptr ? *existing : TeksTableOptions(), registry);
  return result;
}

Status TeksDB::Open(const ROCKSDB_NAMESPACE::Options& options, const std::string& path,
                    std::unique_ptr<TeksDB>* db) {
  std::vector<ColumnFamilyDescriptor> cfs = {
      ColumnFamilyDescriptor(ROCKSDB_NAMESPACE::kDefaultColumnFamilyName,
                             ColumnFamilyOptions(options))};
  std::vector<ColumnFamilyHandle*> handles;
  Status s = Open(DBOptions(options), path, cfs, &handles, db);
  if (s.ok()) {
    // The default column family's handle is owned by the DB itself.
    delete handles[0];
  }
  return s;
}

Status TeksDB::Open(const DBOptions& db_options, const std::string& path,
                    const std::vector<ColumnFamilyDescriptor>& column_families,
                    std::vector<ColumnFamilyHandle*>* handles,
                    std::unique_ptr<TeksDB>* db) {
  Status s = CheckDBOptions(db_options);
  if (!s.ok()) return s;
  auto registry = std::make_shared<ReaderRegistry>();
  DBOptions options = db_options;
  options.flush_verify_memtable_count = false;
  std::vector<ColumnFamilyDescriptor> cfs;
  for (const ColumnFamilyDescriptor& cf : column_families) {
    cfs.emplace_back(cf.name, WithTeksTable(cf.options, registry));
  }
  ROCKSDB_NAMESPACE::DB* base = nullptr;
  s = ROCKSDB_NAMESPACE::DB::Open(options, path, cfs, handles, &base);
  if (!s.ok()) return s;
  db->reset(new TeksDB(base, std::move(registry)));
  return s;
}

TeksDB::TeksDB(ROCKSDB_NAMESPACE::DB* db, std::shared_ptr<ReaderRegistry> registry)
    : StackableDB(db), registry_(std::move(registry)), snapshots_(new SnapshotRegistrations) {
  registry_->AttachDB(db);
}

TeksDB::~TeksDB() { registry_->AttachDB(nullptr); }

Status TeksDB::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                   const ROCKSDB_NAMESPACE::Slice& key,
                   ROCKSDB_NAMESPACE::PinnableSlice* value) {
  auto reader = registry_->Register(SnapshotCap(options));
  return StackableDB::Get(options, column_family, key, value);
}

Status TeksDB::GetEntity(const ReadOptions& options, ColumnFamilyHandle* column_family,
                         const ROCKSDB_NAMESPACE::Slice& key,
                         ROCKSDB_NAMESPACE::PinnableWideColumns* columns) {
  auto reader = registry_->Register(SnapshotCap(options));
  return StackableDB::GetEntity(options, column_family, key, columns);
}

Status TeksDB::GetMergeOperands(
    const ReadOptions& options, ColumnFamilyHandle* column_family,
    const ROCKSDB_NAMESPACE::Slice& key, ROCKSDB_NAMESPACE::PinnableSlice* slice,
    ROCKSDB_NAMESPACE::GetMergeOperandsOptions* get_merge_operands_options,
    int* number_of_operands) {
  auto reader = registry_->Register(SnapshotCap(options));
  return StackableDB::GetMergeOperands(options, column_family, key, slice,
                                       get_merge_operands_options, number_of_operands);
}

std::vector<Status> TeksDB::MultiGet(const ReadOptions& options,
                                     const std::vector<ColumnFamilyHandle*>& column_family,
                                     const std::vector<ROCKSDB_NAMESPACE::Slice>& keys,
                                     std::vector<std::string>* values) {
  auto reader = registry_->Register(SnapshotCap(options));
  return StackableDB::MultiGet(options, column_family, keys, values);
}

void TeksDB::MultiGet(const ReadOptions& options, ColumnFamilyHandle* column_family,
                      const size_t num_keys, const ROCKSDB_NAMESPACE::Slice* keys,
                      ROCKSDB_NAMESPACE::PinnableSlice* values, Status* statuses,
                      const bool sorted_input) {
  auto reader = registry_->Register(SnapshotCap(options));
  StackableDB::MultiGet(options, column_family, num_keys, keys, values, statuses,
                        sorted_input);
}

bool TeksDB::KeyMayExist(const ReadOptions& options, ColumnFamilyHandle* column_family,
                         const ROCKSDB_NAMESPACE::Slice& key, std::string* value,
                         bool* value_found) {
  auto reader = registry_->Register(SnapshotCap(options));
  return StackableDB::KeyMayExist(options, column_family, key, value, value_found);
}

ROCKSDB_NAMESPACE::Iterator* TeksDB::NewIterator(const ReadOptions& options,
                                                 ColumnFamilyHandle* column_family) {
  auto reader = registry_->Register(SnapshotCap(options));
  return new RegisteredIterator(StackableDB::NewIterator(options, column_family),
                                std::move(reader));
}

Status TeksDB::NewIterators(const ReadOptions& options,
                            const std::vector<ColumnFamilyHandle*>& column_families,
                            std::vector<ROCKSDB_NAMESPACE::Iterator*>* iterators) {
  std::vector<ReaderRegistry::Registration> readers;
  for (size_t i = 0; i < column_families.size(); ++i) {
    readers.push_back(registry_->Register(SnapshotCap(options)));
  }
  Status s = StackableDB::NewIterators(options, column_families, iterators);
  if (!s.ok()) return s;
  for (size_t i = 0; i < iterators->size(); ++i) {
    (*iterators)[i] = new RegisteredIterator((*iterators)[i], std::move(readers[i]));
  }
  return s;
}

const ROCKSDB_NAMESPACE::Snapshot* TeksDB::GetSnapshot() {
  auto reader = registry_->Register();
  const ROCKSDB_NAMESPACE::Snapshot* snapshot = StackableDB::GetSnapshot();
  if (snapshot == nullptr) return nullptr;
  reader.RaiseFloor(snapshot->GetSequenceNumber());
  std::lock_guard<std::mutex> lock(snapshots_->mu);
  snapshots_->by_snapshot.emplace(snapshot, std::move(reader));
  return snapshot;
}

void TeksDB::ReleaseSnapshot(const ROCKSDB_NAMESPACE::Snapshot* snapshot) {
  {
    std::lock_guard<std::mutex> lock(snapshots_->mu);
    snapshots_->by_snapshot.erase(snapshot);
  }
  StackableDB::ReleaseSnapshot(snapshot);
}

// RocksDB validates the memtable factory at DB::Open but not when a column
// family is created later: do it here, so the same configurations are
// refused either way.
Status TeksDB::PrepareColumnFamily(const ColumnFamilyOptions& options,
                                   ColumnFamilyOptions* prepared) {
  *prepared = WithTeksTable(options, registry_);
  return prepared->memtable_factory->ValidateOptions(GetDBOptions(), *prepared);
}

Status TeksDB::CreateColumnFamily(const ColumnFamilyOptions& options,
                                  const std::string& column_family_name,
                                  ColumnFamilyHandle** handle) {
  ColumnFamilyOptions prepared;
  Status s = PrepareColumnFamily(options, &prepared);
  if (!s.ok()) return s;
  return StackableDB::CreateColumnFamily(prepared, column_family_name, handle);
}

Status TeksDB::CreateColumnFamilies(const ColumnFamilyOptions& options,
                                    const std::vector<std::string>& column_family_names,
                                    std::vector<ColumnFamilyHandle*>* handles) {
  ColumnFamilyOptions prepared;
  Status s = PrepareColumnFamily(options, &prepared);
  if (!s.ok()) return s;
  return StackableDB::CreateColumnFamilies(prepared, column_family_names, handles);
}

Status TeksDB::CreateColumnFamilies(const std::vector<ColumnFamilyDescriptor>& column_families,
                                    std::vector<ColumnFamilyHandle*>* handles) {
  std::vector<ColumnFamilyDescriptor> cfs;
  for (const ColumnFamilyDescriptor& cf : column_families) {
    ColumnFamilyOptions prepared;
    Status s = PrepareColumnFamily(cf.options, &prepared);
    if (!s.ok()) return s;
    cfs.emplace_back(cf.name, prepared);
  }
  return StackableDB::CreateColumnFamilies(cfs, handles);
}

}  // namespace teksdb
