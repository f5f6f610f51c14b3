// TeksTable built into librocksdb as a RocksDB plugin (teks.mk): memtable/'s
// sources compiled as one translation unit against RocksDB's own internal
// headers (TEKSDB_IN_ROCKSDB_TREE, include/teksdb/rocksdb_version.h). Among them
// is teksdb_register_plugin (teks_table_factory.cc), the registration
// function RocksDB's ObjectRegistry calls for the plugin, so that "teks"
// (and its variants) names a memtable factory in option strings, OPTIONS
// files and RocksDB's own tools (db_bench --memtablerep, db_stress
// --options_file) with no LD_PRELOAD.
//
// Thread safety: as memtable/'s; the registration runs when RocksDB
// populates an ObjectLibrary.
#define TEKSDB_IN_ROCKSDB_TREE 1

#include "../memtable/anchor_directory.cc"
#include "../memtable/background_linker.cc"
#include "../memtable/cuckoo_index.cc"
#include "../memtable/link_queue.cc"
#include "../memtable/ordered_index.cc"
#include "../memtable/rocksdb_internals.cc"
#include "../memtable/teks_table_factory.cc"
#include "../memtable/teks_table_iterator.cc"
#include "../memtable/teks_table_rep.cc"
#include "../memtable/version_recycler.cc"
