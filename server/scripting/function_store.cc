// The function libraries' records (function_store.h).
#include "function_store.h"

#include <memory>

#include "rocksdb/write_batch.h"

#include "storage_format.h"

namespace teksdb::server::function_store {
namespace {

using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

// Calls visit(name, code) for every stored library.
template <typename Visit>
Status ForEachStored(ROCKSDB_NAMESPACE::DB* db, Visit visit) {
  const std::string prefix = storage_format::FunctionLibraryPrefix();
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    Slice name = it->key();
    name.remove_prefix(prefix.size());
    if (!visit(name.ToString(), it->value().ToString())) break;
  }
  return it->status();
}

}  // namespace

Status Save(ROCKSDB_NAMESPACE::DB* db, const std::vector<ScriptEngine::LibraryInfo>& libraries) {
  ROCKSDB_NAMESPACE::WriteBatch batch;
  Status s = ForEachStored(db, [&](const std::string& name, const std::string&) {
    batch.Delete(storage_format::FunctionLibraryKey(name));
    return true;
  });
  if (!s.ok()) return s;
  for (const ScriptEngine::LibraryInfo& library : libraries) {
    batch.Put(storage_format::FunctionLibraryKey(library.name), library.code);
  }
  return db->Write(ROCKSDB_NAMESPACE::WriteOptions(), &batch);
}

Status LoadAll(ROCKSDB_NAMESPACE::DB* db, ScriptEngine* engine) {
  Status failed;
  Status s = ForEachStored(db, [&](const std::string& name, const std::string& code) {
    std::string loaded, error;
    if (!engine->LoadLibrary(code, /*replace=*/false, &loaded, &error)) {
      failed = Status::Corruption("function library '" + name + "' does not load: " + error);
      return false;
    }
    return true;
  });
  return s.ok() ? failed : s;
}

}  // namespace teksdb::server::function_store

namespace teksdb::server::function_store {
namespace {

// Finds whether a batch touches a key under the libraries' prefix.
class LibraryKeys : public ROCKSDB_NAMESPACE::WriteBatch::Handler {
 public:
  bool touched = false;
  Status PutCF(uint32_t, const Slice& key, const Slice&) override { return Note(key); }
  Status DeleteCF(uint32_t, const Slice& key) override { return Note(key); }
  Status SingleDeleteCF(uint32_t, const Slice& key) override { return Note(key); }
  Status DeleteRangeCF(uint32_t, const Slice& begin, const Slice& end) override {
    touched |= begin.compare(Slice(prefix_)) <= 0 ? end.compare(Slice(prefix_)) > 0 : begin.starts_with(prefix_);
    return Status::OK();
  }
  Status MergeCF(uint32_t, const Slice& key, const Slice&) override { return Note(key); }
  void LogData(const Slice&) override {}

 private:
  Status Note(const Slice& key) {
    touched |= key.starts_with(prefix_);
    return Status::OK();
  }
  const std::string prefix_ = storage_format::FunctionLibraryPrefix();
};

}  // namespace

bool TouchesLibraries(const std::string& batch) {
  ROCKSDB_NAMESPACE::WriteBatch read(batch);
  LibraryKeys keys;
  return read.Iterate(&keys).ok() && keys.touched;
}

Status ReloadAll(ROCKSDB_NAMESPACE::DB* db, ScriptEngine* engine) {
  const auto changing = engine->LockLibraryChanges();
  engine->FlushLibraries();
  return LoadAll(db, engine);
}

}  // namespace teksdb::server::function_store
