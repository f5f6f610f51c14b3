// CompactPutsMerge (compact_puts_merge.h): each operand's members put into
// the base's compact payload with compact_members::Put, in order.
#include "compact_puts_merge.h"

#include "compact_members.h"
#include "storage_format.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Slice;

namespace {

class CompactPutsMerge : public ROCKSDB_NAMESPACE::MergeOperator {
 public:
  const char* Name() const override { return "teksdb.CompactPutsMerge"; }

  bool FullMergeV2(const MergeOperationInput& in, MergeOperationOutput* out) const override {
    storage_format::Meta meta;
    if (in.existing_value == nullptr || !storage_format::DecodeMeta(*in.existing_value, &meta) ||
        !storage_format::IsCollection(meta.type) || meta.type == storage_format::kList ||
        meta.version != 0 || !compact_members::WellFormed(meta.payload) ||
        meta.payload[0] == compact_members::kListpackEx) {
      // (A listpackex is only ever put whole: Collection::Commit.)
      return false;
    }
    for (const Slice& operand : in.operand_list) {
      if (!compact_members::WellFormed(operand)) return false;
      compact_members::Reader puts(operand);
      Slice member, value;
      while (puts.Next(&member, &value)) compact_members::Put(&meta.payload, member, value);
    }
    out->new_value = storage_format::EncodeMeta(meta);
    return true;
  }
};

}  // namespace

std::shared_ptr<ROCKSDB_NAMESPACE::MergeOperator> NewCompactPutsMerge() {
  return std::make_shared<CompactPutsMerge>();
}

}  // namespace teksdb::server
