// What the TeksDB layer does at open and around reads, outside the public
// headers: the options DB::Open and column family creation get, the cap a
// read's snapshot puts on its sequence, and iterators that keep their reader
// registered. Used by TeksLayer (teks_layer.cc), TeksDB::Open and
// TeksTransactionDB::Open.
//
// Thread safety: stateless functions; any thread.
#pragma once

#include <memory>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "teksdb/reader_registry.h"
#include "teksdb/rocksdb_version.h"
#if TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS
#include "rocksdb/attribute_groups.h"
#endif
#if TEKSDB_ROCKSDB_HAS_MULTI_SCAN
#include "rocksdb/multi_scan.h"
#endif

namespace teksdb {

// A DB iterator that keeps its reader registered until it is destroyed.
ROCKSDB_NAMESPACE::Iterator* NewRegisteredIterator(ROCKSDB_NAMESPACE::Iterator* base,
                                                   ReaderRegistry::Registration reader);
#if TEKSDB_ROCKSDB_HAS_COALESCING_ITERATORS
// The same for an attribute-group iterator.
std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator> NewRegisteredAttributeGroupIterator(
    std::unique_ptr<ROCKSDB_NAMESPACE::AttributeGroupIterator> base,
    ReaderRegistry::Registration reader);
#endif

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

// A registration for a read with `options`: pinned at its snapshot, where
// it reads and nowhere else, if it has one (a tailing iterator reads the
// newest whatever its options say).
inline ReaderRegistry::Registration RegisterRead(ReaderRegistry& registry,
                                                 const ROCKSDB_NAMESPACE::ReadOptions& options) {
  if (options.snapshot == nullptr || options.tailing) return registry.Register();
  const SequenceNumber seq = options.snapshot->GetSequenceNumber();
  ReaderRegistry::Registration reader = registry.Register(seq);
  reader.Pin(seq);
  return reader;
}

// Bounds the registration of an iterator made with `options`, now that it
// is made: without a snapshot it reads at the sequence published when it
// was made, so at most at the one published now (tailing ones excepted).
inline void BoundNewIterator(ReaderRegistry& registry,
                             const ROCKSDB_NAMESPACE::ReadOptions& options,
                             ReaderRegistry::Registration* reader) {
  if (options.snapshot == nullptr && !options.tailing) {
    reader->ReadsAtMost(registry.PublishedSequence());
  }
}

}  // namespace teksdb
