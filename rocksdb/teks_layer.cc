// The TeksDB layer: TeksLayer's methods, instantiated for its two bases
// (StackableDB for TeksDB, TransactionDB for TeksTransactionDB), and the
// option preparation they and the Open()s use (teks_layer_setup.h).
#include "teksdb/teks_layer.h"

#include <algorithm>
#include <string>
#include <utility>

#include "rocksdb/utilities/stackable_db.h"
#include "rocksdb/utilities/transaction_db.h"
#include "multiget_hint.h"
#include "teks_layer_setup.h"
#include "teks_table_factory.h"
#include "teksdb/teks_table.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::GetMergeOperandsOptions;
using ROCKSDB_NAMESPACE::Iterator;
using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::PinnableWideColumns;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Snapshot;
using ROCKSDB_NAMESPACE::Status;

ColumnFamilyOptions WithTeksTable(const ColumnFamilyOptions& options,
                                  const std::shared_ptr<ReaderRegistry>& registry) {
  ColumnFamilyOptions result = options;
  const TeksTableOptions* existing =
      options.memtable_factory != nullptr ? GetTeksTableOptions(*options.memtable_factory)
                                          : nullptr;
  result.memtable_factory =
      NewTeksTableFactoryWithDropPolicy(existing != nullptr ? *existing : TeksTableOptions(),
                                        registry);
  return result;
}

Status PrepareTeksOpen(const DBOptions& db_options,
                       const std::vector<ColumnFamilyDescriptor>& column_families,
                       const std::shared_ptr<ReaderRegistry>& registry,
                       DBOptions* prepared_db_options,
                       std::vector<ColumnFamilyDescriptor>* prepared_column_families) {
  if (db_options.unordered_write) {
    return Status::InvalidArgument(
        "TeksDB does not support unordered_write",
        "memtable inserts may then finish after their sequence is published");
  }
  if (db_options.two_write_queues) {
    return Status::InvalidArgument(
        "TeksDB does not support two_write_queues",
        "the last sequence may then run ahead of the last published one");
  }
  *prepared_db_options = db_options;
  prepared_db_options->flush_verify_memtable_count = false;
  prepared_column_families->clear();
  for (const ColumnFamilyDescriptor& cf : column_families) {
    prepared_column_families->emplace_back(cf.name, WithTeksTable(cf.options, registry));
  }
  return Status::OK();
}

Status PrepareTeksColumnFamily(ROCKSDB_NAMESPACE::DB* db, const ColumnFamilyOptions& options,
                               const std::shared_ptr<ReaderRegistry>& registry,
                               ColumnFamilyOptions* prepared) {
  *prepared = WithTeksTable(options, registry);
  return prepared->memtable_factory->ValidateOptions(db->GetDBOptions(), *prepared);
}

template <typename Base>
TeksLayer<Base>::TeksLayer(std::shared_ptr<ReaderRegistry> registry, ROCKSDB_NAMESPACE::DB* db)
    : Base(db), registry_(std::move(registry)) {
  registry_->AttachDB(db->GetRootDB());
}

template <typename Base>
TeksLayer<Base>::~TeksLayer() {
  registry_->AttachDB(nullptr);
}

template <typename Base>
Status TeksLayer<Base>::CreateColumnFamily(const ColumnFamilyOptions& options,
                                           const std::string& column_family_name,
                                           ColumnFamilyHandle** handle) {
  ColumnFamilyOptions prepared;
  Status s = PrepareTeksColumnFamily(this, options, registry_, &prepared);
  if (!s.ok()) return s;
  return Base::CreateColumnFamily(prepared, column_family_name, handle);
}

template <typename Base>
Status TeksLayer<Base>::CreateColumnFamilies(const ColumnFamilyOptions& options,
                                             const std::vector<std::string>& column_family_names,
                                             std::vector<ColumnFamilyHandle*>* handles) {
  ColumnFamilyOptions prepared;
  Status s = PrepareTeksColumnFamily(this, options, registry_, &prepared);
  if (!s.ok()) return s;
  return Base::CreateColumnFamilies(prepared, column_family_names, handles);
}

template <typename Base>
Status TeksLayer<Base>::CreateColumnFamilies(
    const std::vector<ColumnFamilyDescriptor>& column_families,
    std::vector<ColumnFamilyHandle*>* handles) {
  std::vector<ColumnFamilyDescriptor> cfs;
  for (const ColumnFamilyDescriptor& cf : column_families) {
    ColumnFamilyOptions prepared;
    Status s = PrepareTeksColumnFamily(this, cf.options, registry_, &prepared);
    if (!s.ok()) return s;
    cfs.emplace_back(cf.name, prepared);
  }
  return Base::CreateColumnFamilies(cfs, handles);
}

#if TEKSDB_ROCKSDB_READS_FUNNEL_INTO_TIMESTAMPED
template <typename Base>
Status TeksLayer<Base>::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                            const Slice& key, PinnableSlice* value, std::string* timestamp) {
  auto reader = RegisterRead(*registry_, options);
  return Base::Get(options, column_family, key, value, timestamp);
}
#else
template <typename Base>
Status TeksLayer<Base>::Get(const ReadOptions& options, ColumnFamilyHandle* column_family,
                            const Slice& key, PinnableSlice* value) {
  auto reader = RegisterRead(*registry_, options);
  return Base::Get(options, column_family, key, value);
}
#endif

template <typename Base>
Status TeksLayer<Base>::GetEntity(const ReadOptions& options, ColumnFamilyHandle* column_family,
                                  const Slice& key, PinnableWideColumns* columns) {
  auto reader = RegisterRead(*registry_, options);
  return Base::GetEntity(options, column_family, key, columns);
}

template <typename Base>
Status TeksLayer<Base>::GetMergeOperands(const ReadOptions& options,
                                         ColumnFamilyHandle* column_family, const Slice& key,
                                         PinnableSlice* slice,
                                         GetMergeOperandsOptions* get_merge_operands_options,
                                         int* number_of_operands) {
  auto reader = RegisterRead(*registry_, options);
  Status s = Base::GetMergeOperands(options, column_family, key, slice,
                                    get_merge_operands_options, number_of_operands);
  if (s.ok()) {
    // RocksDB may return large operand lists pinned in the memtable (and
    // the base value with them) rather than copied; once this reader is
    // gone, TeksTable may drop those versions and reuse their memory
    // (version_recycler.h), so the caller gets copies.
    const int returned = std::min(*number_of_operands,
                                  get_merge_operands_options->expected_max_number_of_operands);
    for (int i = 0; i < returned; ++i) {
      if (!slice[i].IsPinned()) continue;
      const std::string copy = slice[i].ToString();
      slice[i].Reset();
      slice[i].PinSelf(copy);
    }
  }
  return s;
}

#if TEKSDB_ROCKSDB_READS_FUNNEL_INTO_TIMESTAMPED
template <typename Base>
void TeksLayer<Base>::MultiGet(const ReadOptions& options, const size_t num_keys,
                               ColumnFamilyHandle** column_families, const Slice* keys,
                               PinnableSlice* values, std::string* timestamps, Status* statuses,
                               const bool sorted_input) {
  auto reader = RegisterRead(*registry_, options);
#if !TEKSDB_ROCKSDB_HAS_REP_MULTIGET
  MultiGetHint::Scope hint(keys, num_keys);
#endif
  Base::MultiGet(options, num_keys, column_families, keys, values, timestamps, statuses,
                 sorted_input);
}
#else
template <typename Base>
std::vector<Status> TeksLayer<Base>::MultiGet(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_family,
    const std::vector<Slice>& keys, std::vector<std::string>* values) {
  auto reader = RegisterRead(*registry_, options);
  MultiGetHint::Scope hint(keys.data(), keys.size());
  return Base::MultiGet(options, column_family, keys, values);
}

template <typename Base>
void TeksLayer<Base>::MultiGet(const ReadOptions& options, ColumnFamilyHandle* column_family,
                               const size_t num_keys, const Slice* keys, PinnableSlice* values,
                               Status* statuses, const bool sorted_input) {
  auto reader = RegisterRead(*registry_, options);
  MultiGetHint::Scope hint(keys, num_keys);
  Base::MultiGet(options, column_family, num_keys, keys, values, statuses, sorted_input);
}
#endif

#if TEKSDB_ROCKSDB_HAS_MULTIGET_ENTITY
template <typename Base>
void TeksLayer<Base>::MultiGetEntity(const ReadOptions& options,
                                     ColumnFamilyHandle* column_family, size_t num_keys,
                                     const Slice* keys, PinnableWideColumns* results,
                                     Status* statuses, bool sorted_input) {
  auto reader = RegisterRead(*registry_, options);
  Base::MultiGetEntity(options, column_family, num_keys, keys, results, statuses, sorted_input);
}

template <typename Base>
void TeksLayer<Base>::MultiGetEntity(const ReadOptions& options, size_t num_keys,
                                     ColumnFamilyHandle** column_families, const Slice* keys,
                                     PinnableWideColumns* results, Status* statuses,
                                     bool sorted_input) {
  auto reader = RegisterRead(*registry_, options);
  Base::MultiGetEntity(options, num_keys, column_families, keys, results, statuses,
                       sorted_input);
}
#endif

#if TEKSDB_ROCKSDB_HAS_ATTRIBUTE_GROUPS
template <typename Base>
void TeksLayer<Base>::MultiGetEntity(const ReadOptions& options, size_t num_keys,
                                     const Slice* keys,
                                     ROCKSDB_NAMESPACE::PinnableAttributeGroups* results) {
  auto reader = RegisterRead(*registry_, options);
  Base::MultiGetEntity(options, num_keys, keys, results);
}
#endif

template <typename Base>
bool TeksLayer<Base>::KeyMayExist(const ReadOptions& options, ColumnFamilyHandle* column_family,
                                  const Slice& key, std::string* value, bool* value_found) {
  auto reader = RegisterRead(*registry_, options);
  return Base::KeyMayExist(options, column_family, key, value, value_found);
}

template <typename Base>
Iterator* TeksLayer<Base>::NewIterator(const ReadOptions& options,
                                       ColumnFamilyHandle* column_family) {
  auto reader = RegisterRead(*registry_, options);
  Iterator* base = Base::NewIterator(options, column_family);
  BoundNewIterator(*registry_, options, &reader);
  return NewRegisteredIterator(base, std::move(reader));
}

template <typename Base>
Status TeksLayer<Base>::NewIterators(const ReadOptions& options,
                                     const std::vector<ColumnFamilyHandle*>& column_families,
                                     std::vector<Iterator*>* iterators) {
  std::vector<ReaderRegistry::Registration> readers;
  for (size_t i = 0; i < column_families.size(); ++i) {
    readers.push_back(RegisterRead(*registry_, options));
  }
  Status s = Base::NewIterators(options, column_families, iterators);
  if (!s.ok()) return s;
  for (size_t i = 0; i < iterators->size(); ++i) {
    BoundNewIterator(*registry_, options, &readers[i]);
    (*iterators)[i] = NewRegisteredIterator((*iterators)[i], std::move(readers[i]));
  }
  return s;
}

#if TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS
template <typename Base>
std::unique_ptr<Iterator> TeksLayer<Base>::NewCoalescingIterator(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_families) {
  auto reader = RegisterRead(*registry_, options);
  return std::unique_ptr<Iterator>(NewRegisteredIterator(
      Base::NewCoalescingIterator(options, column_families).release(), std::move(reader)));
}

template <typename Base>
std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator>
TeksLayer<Base>::NewAttributeGroupIterator(
    const ReadOptions& options, const std::vector<ColumnFamilyHandle*>& column_families) {
  auto reader = RegisterRead(*registry_, options);
  return NewRegisteredAttributeGroupIterator(
      Base::NewAttributeGroupIterator(options, column_families), std::move(reader));
}
#endif

#if TEKSDB_ROCKSDB_HAS_MULTI_SCAN
// As RocksDB's own DBImpl::NewMultiScan, over this layer: every DB iterator
// the scan opens comes from NewIterator above, registered.
template <typename Base>
std::unique_ptr<ROCKSDB_NAMESPACE::MultiScan> TeksLayer<Base>::NewMultiScan(
    const ReadOptions& options, ColumnFamilyHandle* column_family,
    const ROCKSDB_NAMESPACE::MultiScanArgs& scan_options) {
  return std::make_unique<ROCKSDB_NAMESPACE::MultiScan>(options, scan_options, this,
                                                        column_family);
}
#endif

template <typename Base>
const Snapshot* TeksLayer<Base>::GetSnapshot() {
  auto reader = registry_->Register();
  const Snapshot* snapshot = Base::GetSnapshot();
  if (snapshot == nullptr) return nullptr;
  reader.Pin(snapshot->GetSequenceNumber());
  std::lock_guard<std::mutex> lock(snapshots_mu_);
  snapshots_.emplace(snapshot, std::move(reader));
  return snapshot;
}

template <typename Base>
void TeksLayer<Base>::ReleaseSnapshot(const Snapshot* snapshot) {
  {
    std::lock_guard<std::mutex> lock(snapshots_mu_);
    snapshots_.erase(snapshot);
  }
  Base::ReleaseSnapshot(snapshot);
}

// The two layers there are; teks_db.h and teks_transaction_db.h declare
// these instantiations extern.
template class TeksLayer<ROCKSDB_NAMESPACE::StackableDB>;
template class TeksLayer<ROCKSDB_NAMESPACE::TransactionDB>;

}  // namespace teksdb
