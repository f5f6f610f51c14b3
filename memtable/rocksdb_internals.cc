// The out-of-line parts of rocksdb_internals.h.
#include "rocksdb_internals.h"

#include <cstring>
#include <typeinfo>

namespace ROCKSDB_NAMESPACE {

const Comparator* UserComparatorOf(const MemTableRep::KeyComparator& cmp) {
  if (std::strcmp(typeid(cmp).name(), kMemTableKeyComparatorTypeName) != 0) return nullptr;
  const Comparator* user;
  std::memcpy(&user,
              reinterpret_cast<const char*>(&cmp) +
                  offsetof(MemTableKeyComparatorLayout, user_comparator),
              sizeof(user));
  return user;
}

}  // namespace ROCKSDB_NAMESPACE
