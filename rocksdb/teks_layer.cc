// The TeksDB layer's option preparation (declared in teks_layer.h): what
// DB::Open and column family creation get when the layer opens them.
#include "teksdb/teks_layer.h"

#include "teks_table_factory.h"
#include "teksdb/teks_table.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::DBOptions;
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

}  // namespace teksdb
