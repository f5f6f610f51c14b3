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
// The methods are defined, and instantiated for those two bases only, in
// rocksdb/teks_layer.cc, with the helpers they use (rocksdb/teks_layer_setup.h).
//
// Thread safety: as RocksDB's DB: every method may be called concurrently.
//
// Design notes: docs/DESIGN.md §5.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "rocksdb/db.h"
#include "teksdb/reader_registry.h"
#include "teksdb/rocksdb_version.h"

namespace teksdb {

template <typename Base>
class TeksLayer : public Base {
 public:
  // `db` was opened with the options the layer prepares for DB::Open
  // (TeksDB::Open, TeksTransactionDB::Open).
  TeksLayer(std::shared_ptr<ReaderRegistry> registry, ROCKSDB_NAMESPACE::DB* db);
  ~TeksLayer() override;

  // Column families get a TeksTable tied to the registry, validated.
  using Base::CreateColumnFamily;
  ROCKSDB_NAMESPACE::Status CreateColumnFamily(
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
      const std::string& column_family_name,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle** handle) override;
  ROCKSDB_NAMESPACE::Status CreateColumnFamilies(
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
      const std::vector<std::string>& column_family_names,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles) override;
  ROCKSDB_NAMESPACE::Status CreateColumnFamilies(
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles) override;

  // Reads, registered for the call (iterators: for their life). From
  // RocksDB 9.0 every Get and MultiGet overload funnels into the
  // timestamp-taking ones, the only ones left to override.
  using Base::Get;
#if TEKSDB_ROCKSDB_READS_FUNNEL_INTO_TIMESTAMPED
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* value,
                                std::string* timestamp) override;
#else
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* value) override;
#endif
  using Base::GetEntity;
  ROCKSDB_NAMESPACE::Status GetEntity(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                      const ROCKSDB_NAMESPACE::Slice& key,
                                      ROCKSDB_NAMESPACE::PinnableWideColumns* columns) override;
  using Base::GetMergeOperands;
  ROCKSDB_NAMESPACE::Status GetMergeOperands(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::Slice& key, ROCKSDB_NAMESPACE::PinnableSlice* slice,
      ROCKSDB_NAMESPACE::GetMergeOperandsOptions* get_merge_operands_options,
      int* number_of_operands) override;
  using Base::MultiGet;
#if TEKSDB_ROCKSDB_READS_FUNNEL_INTO_TIMESTAMPED
  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& options, const size_t num_keys,
                ROCKSDB_NAMESPACE::ColumnFamilyHandle** column_families,
                const ROCKSDB_NAMESPACE::Slice* keys, ROCKSDB_NAMESPACE::PinnableSlice* values,
                std::string* timestamps, ROCKSDB_NAMESPACE::Status* statuses,
                const bool sorted_input = false) override;
#else
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGet(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_family,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys,
      std::vector<std::string>* values) override;
  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& options,
                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family, const size_t num_keys,
                const ROCKSDB_NAMESPACE::Slice* keys, ROCKSDB_NAMESPACE::PinnableSlice* values,
                ROCKSDB_NAMESPACE::Status* statuses, const bool sorted_input = false) override;
#endif
#if TEKSDB_ROCKSDB_HAS_MULTIGET_ENTITY
  using Base::MultiGetEntity;
  void MultiGetEntity(const ROCKSDB_NAMESPACE::ReadOptions& options,
                      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family, size_t num_keys,
                      const ROCKSDB_NAMESPACE::Slice* keys,
                      ROCKSDB_NAMESPACE::PinnableWideColumns* results,
                      ROCKSDB_NAMESPACE::Status* statuses, bool sorted_input) override;
  void MultiGetEntity(const ROCKSDB_NAMESPACE::ReadOptions& options, size_t num_keys,
                      ROCKSDB_NAMESPACE::ColumnFamilyHandle** column_families,
                      const ROCKSDB_NAMESPACE::Slice* keys,
                      ROCKSDB_NAMESPACE::PinnableWideColumns* results,
                      ROCKSDB_NAMESPACE::Status* statuses, bool sorted_input) override;
#endif
#if TEKSDB_ROCKSDB_HAS_ATTRIBUTE_GROUPS
  void MultiGetEntity(const ROCKSDB_NAMESPACE::ReadOptions& options, size_t num_keys,
                      const ROCKSDB_NAMESPACE::Slice* keys,
                      ROCKSDB_NAMESPACE::PinnableAttributeGroups* results) override;
#endif
  using Base::KeyMayExist;
  bool KeyMayExist(const ROCKSDB_NAMESPACE::ReadOptions& options,
                   ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                   const ROCKSDB_NAMESPACE::Slice& key, std::string* value,
                   bool* value_found = nullptr) override;
  using Base::NewIterator;
  ROCKSDB_NAMESPACE::Iterator* NewIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family) override;
  ROCKSDB_NAMESPACE::Status NewIterators(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families,
      std::vector<ROCKSDB_NAMESPACE::Iterator*>* iterators) override;
#if TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS
  // A coalescing iterator is registered for its life; attribute-group
  // iterators are refused (NotSupported): the layer has no wrapper that
  // could hold their registration.
  using Base::NewCoalescingIterator;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> NewCoalescingIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families) override;
  using Base::NewAttributeGroupIterator;
  std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator> NewAttributeGroupIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families) override;
#endif
#if TEKSDB_ROCKSDB_HAS_MULTI_SCAN
  // Refused (NotSupported), for the same reason.
  using Base::NewMultiScan;
  std::unique_ptr<ROCKSDB_NAMESPACE::MultiScan> NewMultiScan(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::MultiScanArgs& scan_options) override;
#endif

  // Snapshots, registered until released.
  const ROCKSDB_NAMESPACE::Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const ROCKSDB_NAMESPACE::Snapshot* snapshot) override;

  // Out of a background error (a full disk, ...), as the base DB comes out
  // of it: StackableDB forwards Resume only from RocksDB 8 on.
  ROCKSDB_NAMESPACE::Status Resume() override { return this->GetBaseDB()->Resume(); }

 protected:
  const std::shared_ptr<ReaderRegistry> registry_;

 private:
  std::mutex snapshots_mu_;
  std::unordered_map<const ROCKSDB_NAMESPACE::Snapshot*, ReaderRegistry::Registration>
      snapshots_;
};

}  // namespace teksdb
