// The TeksDB layer's way to a TeksTable factory that drops versions
// (implemented in teks_table_factory.cc). Not public: only the layer knows
// which versions no reader can need, and only it opens the DB with
// flush_verify_memtable_count=false, which dropping requires (a flush then
// reads fewer entries than were added). Applications get a factory that
// keeps every version from NewTeksTableFactory() (teksdb/teks_table.h).
//
// Thread safety: as NewTeksTableFactory.
//
// Design notes: docs/DESIGN.md §5 and §7.
#pragma once

#include <memory>

#include "rocksdb/memtablerep.h"
#include "teksdb/teks_table.h"

namespace teksdb {

// A TeksTable factory whose memtables drop what `drop_policy` proves no
// reader can need (if options.inplace). Its ValidateOptions refuses, with
// InvalidArgument, a DB whose flush_verify_memtable_count is true.
std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> NewTeksTableFactoryWithDropPolicy(
    const TeksTableOptions& options, std::shared_ptr<VersionDropPolicy> drop_policy);

}  // namespace teksdb
