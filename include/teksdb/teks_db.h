// TeksDB: stock RocksDB with TeksTable memtables and the hooks that let
// TeksTable drop versions no reader can need (docs/DESIGN.md §5).
//
//   std::unique_ptr<teksdb::TeksDB> db;
//   rocksdb::Status s = teksdb::TeksDB::Open(options, "/path", &db);
//
// Every column family gets a TeksTable memtable (keeping the TeksTable
// options it already had, if any) whose drop policy is this DB's reader
// registry. Reads through this object (Get, MultiGet, iterators,
// snapshots, merge operands) register before they take their sequence, so
// a version is dropped only when every live reader reads at or above a
// newer, non-merge version of its key. Everything else is stock RocksDB.
//
// Rules for callers:
//   - Read through this object, not GetBaseDB(): readers that bypass it are
//     not registered. Snapshots passed in ReadOptions must come from
//     TeksDB::GetSnapshot().
//   - Options it refuses (InvalidArgument): unordered_write and
//     two_write_queues, under which the last published sequence does not
//     bound what is in the memtable.
//   - For transactions, open a TeksTransactionDB (teks_transaction_db.h):
//     wrapping a TeksDB in a TransactionDB would let transaction reads
//     bypass the registry.
//   - flush_verify_memtable_count is turned off: a flush writes fewer
//     entries than were added when versions were dropped.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/stackable_db.h"
#include "teksdb/teks_layer.h"

namespace teksdb {

// Defined in rocksdb/teks_layer.cc.
extern template class TeksLayer<ROCKSDB_NAMESPACE::StackableDB>;

class TeksDB : public TeksLayer<ROCKSDB_NAMESPACE::StackableDB> {
 public:
  static ROCKSDB_NAMESPACE::Status Open(const ROCKSDB_NAMESPACE::Options& options,
                                        const std::string& path,
                                        std::unique_ptr<TeksDB>* db);
  static ROCKSDB_NAMESPACE::Status Open(
      const ROCKSDB_NAMESPACE::DBOptions& db_options, const std::string& path,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
      std::unique_ptr<TeksDB>* db);

 private:
  using TeksLayer::TeksLayer;
};

}  // namespace teksdb
