// TeksDB::Open: a DB opened with the layer's options, wrapped in TeksLayer.
#include "teksdb/teks_db.h"

#include "teks_layer_setup.h"
#include "teksdb/open_db.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Status;

Status TeksDB::Open(const ROCKSDB_NAMESPACE::Options& options, const std::string& path,
                    std::unique_ptr<TeksDB>* db) {
  std::vector<ColumnFamilyDescriptor> cfs = {
      ColumnFamilyDescriptor(ROCKSDB_NAMESPACE::kDefaultColumnFamilyName,
                             ROCKSDB_NAMESPACE::ColumnFamilyOptions(options))};
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
                    std::vector<ColumnFamilyHandle*>* handles, std::unique_ptr<TeksDB>* db) {
  auto registry = std::make_shared<ReaderRegistry>();
  DBOptions options;
  std::vector<ColumnFamilyDescriptor> cfs;
  Status s = PrepareTeksOpen(db_options, column_families, registry, &options, &cfs);
  if (!s.ok()) return s;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> base;
  s = OpenDB(options, path, cfs, handles, &base);
  if (!s.ok()) return s;
  db->reset(new TeksDB(std::move(registry), base.release()));
  return s;
}

}  // namespace teksdb
