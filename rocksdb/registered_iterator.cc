// RegisteredIterator: a DB iterator that holds its reader's ReaderRegistry
// registration until it is destroyed (see teks_layer.h).
// Thread safety: as RocksDB's Iterator: one thread at a time.
#include <memory>

#include "teks_layer_setup.h"

namespace teksdb {
namespace {

class RegisteredIterator : public ROCKSDB_NAMESPACE::Iterator {
 public:
  RegisteredIterator(ROCKSDB_NAMESPACE::Iterator* base, ReaderRegistry::Registration reader)
      : reader_(std::move(reader)), base_(base) {}

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
  ROCKSDB_NAMESPACE::Status status() const override { return base_->status(); }
  // The refreshed iterator reads at a newer sequence: the old floor, lower,
  // stays safe.
  ROCKSDB_NAMESPACE::Status Refresh() override { return base_->Refresh(); }
  ROCKSDB_NAMESPACE::Status GetProperty(std::string prop_name, std::string* prop) override {
    return base_->GetProperty(std::move(prop_name), prop);
  }
  ROCKSDB_NAMESPACE::Slice timestamp() const override { return base_->timestamp(); }

 private:
  // Declared first, so released after the iterator is destroyed.
  ReaderRegistry::Registration reader_;
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> base_;
};

}  // namespace

ROCKSDB_NAMESPACE::Iterator* NewRegisteredIterator(ROCKSDB_NAMESPACE::Iterator* base,
                                                   ReaderRegistry::Registration reader) {
  return new RegisteredIterator(base, std::move(reader));
}

}  // namespace teksdb
