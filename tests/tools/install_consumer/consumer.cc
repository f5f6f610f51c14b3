// Opens a DB with TeksTable picked by option string (so the installed
// library's registration must have run) and checks it really is TeksTable.
#include <cstdio>
#include <memory>
#include <string>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "teksdb/teks_table.h"
#include "teksdb/open_db.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  ROCKSDB_NAMESPACE::ConfigOptions config;
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
      config, options, "memtable_factory=teks", &options);
  if (!s.ok() || teksdb::GetTeksTableOptions(*options.memtable_factory) == nullptr) {
    std::fprintf(stderr, "teks not found: %s\n", s.ToString().c_str());
    return 1;
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  s = teksdb::OpenDB(options, argv[1], &db);
  std::string value;
  if (s.ok()) s = db->Put({}, "k", "v");
  if (s.ok()) s = db->Get({}, "k", &value);
  db.reset();
  if (!s.ok() || value != "v") {
    std::fprintf(stderr, "round trip failed: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("consumer: %s ok\n", options.memtable_factory->Name());
  return 0;
}
