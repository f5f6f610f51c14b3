// FunctionStore: the function libraries' code in the database, as server
// records (storage_format.h: "\xff" "function-library:" name -> code), so
// functions survive a restart as Redis's do in its RDB. The FUNCTION
// commands save the engine's libraries after every change; the server
// loads them back at start, and a replica again whenever its primary's
// batches change them.
//
// Thread safety: as the DB (one write per save).
#pragma once

#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "script_engine.h"

namespace teksdb::server::function_store {

// Replaces the stored libraries by `libraries`, in one write.
ROCKSDB_NAMESPACE::Status Save(ROCKSDB_NAMESPACE::DB* db,
                               const std::vector<ScriptEngine::LibraryInfo>& libraries);

// Loads every stored library into `engine`; on failure, the error names
// the library.
ROCKSDB_NAMESPACE::Status LoadAll(ROCKSDB_NAMESPACE::DB* db, ScriptEngine* engine);

// On a replica: whether a batch its primary shipped (RocksDB's bytes of a
// WriteBatch) writes or deletes a library's record; then ReloadAll puts
// the engine's libraries in step with the database's.
bool TouchesLibraries(const std::string& batch);
ROCKSDB_NAMESPACE::Status ReloadAll(ROCKSDB_NAMESPACE::DB* db, ScriptEngine* engine);

}  // namespace teksdb::server::function_store
