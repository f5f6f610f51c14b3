// TeksDB: stock RocksDB with TeksTable memtables and the hooks that let
// TeksTable drop versions no reader can need (DESIGN.md §4).
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
//   - flush_verify_memtable_count is turned off: a flush writes fewer
//     entries than were added when versions were dropped.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/stackable_db.h"

namespace teksdb {

class ReaderRegistry;

class TeksDB : public ROCKSDB_NAMESPACE::StackableDB {
 public:
  static ROCKSDB_NAMESPACE::Status Open(const ROCKSDB_NAMESPACE::Options& options,
                                        const std::string& path,
                                        std::unique_ptr<TeksDB>* db);
  static ROCKSDB_NAMESPACE::Status Open(
      const ROCKSDB_NAMESPACE::DBOptions& db_options, const std::string& path,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor>& column_families,
      std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>* handles,
      std::unique_ptr<TeksDB>* db);

  ~TeksDB() override;

  // The options TeksDB opens a column family with: `options` with a
  // TeksTable factory attached to `registry`. Exposed for tests and tools.
  static ROCKSDB_NAMESPACE::ColumnFamilyOptions WithTeksTable(
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
      const std::shared_ptr<ReaderRegistry>& registry);

  using StackableDB::Get;
  ROCKSDB_NAMESPACE::Status Get(const ROCKSDB_NAMESPACE::ReadOptions& options,
                                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                                const ROCKSDB_NAMESPACE::Slice& key,
                                ROCKSDB_NAMESPACE::PinnableSlice* value) override;
  using StackableDB::GetEntity;
  ROCKSDB_NAMESPACE::Status GetEntity(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::Slice& key,
      ROCKSDB_NAMESPACE::PinnableWideColumns* columns) override;
  using StackableDB::GetMergeOperands;
  ROCKSDB_NAMESPACE::Status GetMergeOperands(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
      const ROCKSDB_NAMESPACE::Slice& key, ROCKSDB_NAMESPACE::PinnableSlice* slice,
      ROCKSDB_NAMESPACE::GetMergeOperandsOptions* get_merge_operands_options,
      int* number_of_operands) override;
  using StackableDB::MultiGet;
  std::vector<ROCKSDB_NAMESPACE::Status> MultiGet(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_family,
      const std::vector<ROCKSDB_NAMESPACE::Slice>& keys,
      std::vector<std::string>* values) override;
  void MultiGet(const ROCKSDB_NAMESPACE::ReadOptions& options,
                ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                const size_t num_keys, const ROCKSDB_NAMESPACE::Slice* keys,
                ROCKSDB_NAMESPACE::PinnableSlice* values,
                ROCKSDB_NAMESPACE::Status* statuses,
                const bool sorted_input = false) override;
  using StackableDB::KeyMayExist;
  bool KeyMayExist(const ROCKSDB_NAMESPACE::ReadOptions& options,
                   ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family,
                   const ROCKSDB_NAMESPACE::Slice& key, std::string* value,
                   bool* value_found = nullptr) override;
  using StackableDB::NewIterator;
  ROCKSDB_NAMESPACE::Iterator* NewIterator(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyHandle* column_family) override;
  ROCKSDB_NAMESPACE::Status NewIterators(
      const ROCKSDB_NAMESPACE::ReadOptions& options,
      const std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*>& column_families,
      std::vector<ROCKSDB_NAMESPACE::Iterator*>* iterators) override;
  const ROCKSDB_NAMESPACE::Snapshot* GetSnapshot() override;
  void ReleaseSnapshot(const ROCKSDB_NAMESPACE::Snapshot* snapshot) override;

  using StackableDB::CreateColumnFamily;
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

 private:
  struct SnapshotRegistrations;
  ROCKSDB_NAMESPACE::Status PrepareColumnFamily(
      const ROCKSDB_NAMESPACE::ColumnFamilyOptions& options,
      ROCKSDB_NAMESPACE::ColumnFamilyOptions* prepared);
  TeksDB(ROCKSDB_NAMESPACE::DB* db, std::shared_ptr<ReaderRegistry> registry);

  const std::shared_ptr<ReaderRegistry> registry_;
  std::unique_ptr<SnapshotRegistrations> snapshots_;
};

}  // namespace teksdb
