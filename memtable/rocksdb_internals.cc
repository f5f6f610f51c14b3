// The out-of-line parts of rocksdb_internals.h: recognising RocksDB's own
// MemTable::KeyComparator without relying on RTTI, which RocksDB's release
// builds leave out (-fno-rtti).
#include "rocksdb_internals.h"

#include <cstring>

#if TEKSDB_IN_ROCKSDB_TREE
#include "db/dbformat.h"
#include "db/memtable.h"
#else
#include <typeinfo>
#endif

namespace ROCKSDB_NAMESPACE {

namespace {

// The first word of a polymorphic object: its vtable pointer (Itanium ABI).
const void* VtableOf(const void* object) {
  const void* vtable;
  std::memcpy(&vtable, object, sizeof(vtable));
  return vtable;
}

}  // namespace

#if TEKSDB_IN_ROCKSDB_TREE

// Inside RocksDB the class is known: `cmp` is one exactly when it has the
// vtable of one (the class is final).
const Comparator* UserComparatorOf(const MemTableRep::KeyComparator& cmp) {
  static const MemTable::KeyComparator probe{InternalKeyComparator(BytewiseComparator())};
  if (VtableOf(&cmp) != VtableOf(&probe)) return nullptr;
  return static_cast<const MemTable::KeyComparator&>(cmp).comparator.user_comparator();
}

#else

// Outside, by the name of its dynamic type, read from the type_info pointer
// the vtable holds just before its address point. A library built without
// RTTI stores null there (and typeid would crash), so that answers nullptr.
const Comparator* UserComparatorOf(const MemTableRep::KeyComparator& cmp) {
  const std::type_info* type;
  std::memcpy(&type, static_cast<const char*>(VtableOf(&cmp)) - sizeof(type), sizeof(type));
  if (type == nullptr || std::strcmp(type->name(), kMemTableKeyComparatorTypeName) != 0) {
    return nullptr;
  }
  const Comparator* user;
  std::memcpy(&user,
              reinterpret_cast<const char*>(&cmp) +
                  offsetof(MemTableKeyComparatorLayout, user_comparator),
              sizeof(user));
  return user;
}

#endif

}  // namespace ROCKSDB_NAMESPACE
