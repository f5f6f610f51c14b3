// RegisteredIterator (and, from RocksDB 9.2, RegisteredAttributeGroupIterator):
// a DB iterator that holds its reader's ReaderRegistry registration until it
// is destroyed (see teks_layer.h), forwarding every virtual of the RocksDB
// built against (include/teksdb/rocksdb_version.h).
// Thread safety: as RocksDB's Iterator: one thread at a time.
#include <memory>

#include "teks_layer_setup.h"

namespace teksdb {
namespace {

// What every registered iterator forwards, over RocksDB's Iterator or
// AttributeGroupIterator (`Base`): positioning, key, status, refreshes.
template <typename Base>
class RegisteredPositioning : public Base {
 public:
  RegisteredPositioning(std::unique_ptr<Base> base, ReaderRegistry::Registration reader)
      : reader_(std::move(reader)), base_(std::move(base)) {}

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
  ROCKSDB_NAMESPACE::Status status() const override { return base_->status(); }
  // The refreshed iterator reads at a newer sequence: the old floor, lower,
  // stays safe, but not the bound (unbounded first).
  ROCKSDB_NAMESPACE::Status Refresh() override {
    reader_.Unbound();
    return base_->Refresh();
  }
#if TEKSDB_ROCKSDB_HAS_ITERATOR_REFRESH_TO_SNAPSHOT
  // A snapshot taken through the layer is registered itself for as long as
  // it lives, so reading at it is safe whatever this reader's floor.
  ROCKSDB_NAMESPACE::Status Refresh(const ROCKSDB_NAMESPACE::Snapshot* snapshot) override {
    reader_.Unbound();
    return base_->Refresh(snapshot);
  }
#endif
#if TEKSDB_ROCKSDB_HAS_PREPARE_VALUE
  bool PrepareValue() override { return base_->PrepareValue(); }
#endif

 protected:
  // Declared first, so released after the iterator is destroyed.
  ReaderRegistry::Registration reader_;
  std::unique_ptr<Base> base_;
};

class RegisteredIterator : public RegisteredPositioning<ROCKSDB_NAMESPACE::Iterator> {
 public:
  using RegisteredPositioning::RegisteredPositioning;

  ROCKSDB_NAMESPACE::Slice value() const override { return base_->value(); }
  const ROCKSDB_NAMESPACE::WideColumns& columns() const override {
    return base_->columns();
  }
#if TEKSDB_ROCKSDB_HAS_MULTI_SCAN
  void Prepare(const ROCKSDB_NAMESPACE::MultiScanArgs& scan_options) override {
    base_->Prepare(scan_options);
  }
#endif
  ROCKSDB_NAMESPACE::Status GetProperty(std::string prop_name, std::string* prop) override {
    return base_->GetProperty(std::move(prop_name), prop);
  }
  ROCKSDB_NAMESPACE::Slice timestamp() const override { return base_->timestamp(); }
};

#if TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS
class RegisteredAttributeGroupIterator
    : public RegisteredPositioning<ROCKSDB_NAMESPACE::AttributeGroupIterator> {
 public:
  using RegisteredPositioning::RegisteredPositioning;

  const ROCKSDB_NAMESPACE::IteratorAttributeGroups& attribute_groups() const override {
    return base_->attribute_groups();
  }
};
#endif

}  // namespace

#if TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS
std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator> NewRegisteredAttributeGroupIterator(
    std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator> base,
    ReaderRegistry::Registration reader) {
  return std::make_unique<RegisteredAttributeGroupIterator>(std::move(base), std::move(reader));
}
#endif

ROCKSDB_NAMESPACE::Iterator* NewRegisteredIterator(ROCKSDB_NAMESPACE::Iterator* base,
                                                   ReaderRegistry::Registration reader) {
  return new RegisteredIterator(std::unique_ptr<ROCKSDB_NAMESPACE::Iterator>(base),
                                std::move(reader));
}

}  // namespace teksdb
