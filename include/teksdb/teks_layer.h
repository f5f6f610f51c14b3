// TeksLayer<Base>: the TeksDB database layer over a RocksDB DB wrapper
// (Base is StackableDB or TransactionDB). It
//   - registers every read with the ReaderRegistry before RocksDB picks the
//     read's sequence, and holds the registration while the read can still
//     look at memtables: for the call, for an iterator's life, for a
//     snapshot until it is released;
//   - gives every column family created later a TeksTable memtable tied to
//     the registry, validated as DB::Open validates (RocksDB does not);
//   - attaches the registry to the DB for its life.
// TeksDB and TeksTransactionDB are this over their base, plus Open().
//
// Thread safety: as RocksDB's DB: every method may be called concurrently.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "teksdb/reader_registry.h"

namespace teksdb {

// A DB iterator that keeps its reader registered until it is destroyed.
ROCKSDB_NAMESPACE::Iterator* NewRegisteredIterator(ROCKSDB_NAMESPACE::Iterator* base,
                                                   ReaderRegistry::Registration reader);

// `options` with a TeksTable factory attached to `registry` (keeping the
// TeksTable options it had, if any). The factory drops versions, so it
// refuses at open a DB that does not have PrepareTeksOpen's options.
ROCKSDB_NAMESPACE::ColumnFamilyOptions WithTeksTable(
    const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
    const std::shared_ptr<ReaderRegistry>& registry);

// What DB::Open gets when the layer opens with these options: refused
// options rejected (unordered_write, two_write_queues), every column family
// on TeksTable tied to `registry`, and flush's entry-count check off.
ROCKSDB_NAMESPACE::Status PrepareTeksOpen(
    const ROCKSDB_NAMESPACE::DBOptions& db_options,
    const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
    const std::shared_ptr<ReaderRegistry>& registry,
    ROCKSDB_NAMESPACE::DBOptions* prepared_db_options,
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>* prepared_column_families);

// WithTeksTable, then the factory's validation against `db`'s options.
ROCKSDB_NAMESPACE::Status PrepareTeksColumnFamily(
    ROCKSDB_NAMESPACE::DB* db, const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
    const std::shared_ptr<ReaderRegistry>& registry,
    ROCKSDB_NAMESPACE::ColumnFamilyOptions* prepared);

// The sequence a read with `options` reads at, at most.
inline SequenceNumber SnapshotCap(const ROCKSDB_NAMESPACE::ReadOptions& options) {
  return options.snapshot != nullptr ? options.snapshot->GetSequenceNumber()
                                     : kMaxSequenceNumber;
}

template <typename Base>
class TeksLayer : public Base {
 public:
  // `db` was opened with PrepareTeksOpen's options.
  TeksLayer(std::shared_ptr<ReaderRegistry> registry, ROCKSDB_NAMESPACE::DB* db)
      : Base(db), registry_(std::move(registry)) {
    registry_->AttachDB(db->GetRootDB());
  }
  ~TeksLayer() override { registry_->AttachDB(nullptr); }

  using Base::CreateColumnFamily;
  ROCKSDB_NAMESPACE::Status CreateColumnFamily(
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
      const std::string& column_family_name,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle** handle) override {
    ROCKSDB_NAMESPACE::ColumnFamilyOptions prepared;
    ROCKSDB_NAMESPACE::Status s = PrepareTeksColumnFamily(this, options, registry_, &prepared);
    if (!s.ok()) return s;
    return Base::CreateColumnFamily(prepared, column_family_name, handle);
  }
  ROCKSDB_NAMESPACE::Status CreateColumnFamilies(
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
      const std::vector<std::string>& column_family_names,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles) override {
    ROCKSDB_NAMESPACE::ColumnFamilyOptions prepared;
    ROCKSDB_NAMESPACE::Status s = PrepareTeksColumnFamily(this, options, registry_, &prepared);
    if (!s.ok()) return s;
    return Base::CreateColumnFamilies(prepared, column_family_names, handles);
  }
  ROCKSDB_NAMESPACE::Status CreateColumnFamilies(
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles) override {
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
    for (const ROCKSDB_NAMESPACE::ColumnFamilyDescriptor& cf : column_families) {
      ROCKSDB_NAMESPACE::ColumnFamilyOptions prepared;
      ROCKSDB_NAMESPACE::Status s =
          PrepareTeksColumnFamily(this, cf.options, registry_, &prepared);
      if (!s.ok()) return s;
      cfs.emplace_back(cf.name, prepared);
    }
    return Base::CreateColumnFamilies(cfs, handles);
  }

  using Base::Get;
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* value) override {
    auto reader = registry_->Register(SnapshotCap(options));
    return Base::Get(options, column_family, key, value);
  }

  using Base::GetEntity;
  ROCKSDB_NAMESPACE::Status GetEntity(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::Slice& key,
      ROCKSDB_NAMESPACE::PinnableWideColumns* columns) override {
    auto reader = registry_->Register(SnapshotCap(options));
    return Base::GetEntity(options, column_family, key, columns);
  }

  using Base::GetMergeOperands;
  ROCKSDB_NAMESPACE::Status GetMergeOperands(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::Slice& key, ROCKSDB_NAMESPACE::PinnableSlice* slice,
      ROCKSDB_NAMESPACE::GetMergeOperandsOptions* get_merge_operands_options,
      int* number_of_operands) override {
    auto reader = registry_->Register(SnapshotCap(options));
    return Base::GetMergeOperands(options, column_family, key, slice,
                                  get_merge_operands_options, number_of_operands);
  }

  using Base::MultiGet;
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGet(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_family,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys,
      std::vector<std::string>* values) override {
    auto reader = registry_->Register(SnapshotCap(options));
    return Base::MultiGet(options, column_family, keys, values);
  }
  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& options,
                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                const size_t num_keys, const ROCKSDB_NAMESPACE::Slice* keys,
                ROCKSDB_NAMESPACE::PinnableSlice* values,
                ROCKSDB_NAMESPACE::Status* statuses,
                const bool sorted_input = false) override {
    auto reader = registry_->Register(SnapshotCap(options));
    Base::MultiGet(options, column_family, num_keys, keys, values, statuses, sorted_input);
  }

  using Base::KeyMayExist;
  bool KeyMayExist(const ROCKSDB_NAMESPACE::ReadOptions& options,
                   ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                   const ROCKSDB_NAMESPACE::Slice& key, std::string* value,
                   bool* value_found = nullptr) override {
    auto reader = registry_->Register(SnapshotCap(options));
    return Base::KeyMayExist(options, column_family, key, value, value_found);
  }

  using Base::NewIterator;
  ROCKSDB_NAMESPACE::Iterator* NewIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family) override {
    auto reader = registry_->Register(SnapshotCap(options));
    return NewRegisteredIterator(Base::NewIterator(options, column_family),
                                 std::move(reader));
  }
  ROCKSDB_NAMESPACE::Status NewIterators(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families,
      std::vector<ROCKSDB_NAMESPACE::Iterator*>* iterators) override {
    std::vector<ReaderRegistry::Registration> readers;
    for (size_t i = 0; i < column_families.size(); ++i) {
      readers.push_back(registry_->Register(SnapshotCap(options)));
    }
    ROCKSDB_NAMESPACE::Status s = Base::NewIterators(options, column_families, iterators);
    if (!s.ok()) return s;
    for (size_t i = 0; i < iterators->size(); ++i) {
      (*iterators)[i] = NewRegisteredIterator((*iterators)[i], std::move(readers[i]));
    }
    return s;
  }

  const ROCKSDB_NAMESPACE::Snapshot* GetSnapshot() override {
    auto reader = registry_->Register();
    const ROCKSDB_NAMESPACE::Snapshot* snapshot = Base::GetSnapshot();
    if (snapshot == nullptr) return nullptr;
    reader.RaiseFloor(snapshot->GetSequenceNumber());
    std::lock_guard<std::mutex> lock(snapshots_mu_);
    snapshots_.emplace(snapshot, std::move(reader));
    return snapshot;
  }
  void ReleaseSnapshot(const ROCKSDB_NAMESPACE::Snapshot* snapshot) override {
    {
      std::lock_guard<std::mutex> lock(snapshots_mu_);
      snapshots_.erase(snapshot);
    }
    Base::ReleaseSnapshot(snapshot);
  }

 protected:
  const std::shared_ptr<ReaderRegistry> registry_;

 private:
  std::mutex snapshots_mu_;
  std::unordered_map<const ROCKSDB_NAMESPACE::Snapshot*, ReaderRegistry::Registration>
      snapshots_;
};

}  // namespace teksdb
