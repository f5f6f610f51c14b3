// EntryChecks: what RocksDB's paranoid memtable reads (paranoid_memory_checks,
// 9.6 and later; memtable_verify_per_key_checksum_on_seek, 10.7 and later)
// ask of a rep, whatever the RocksDB release calls them with
// (rocksdb_version.h): that every entry a read visits passes RocksDB's
// per-entry check (its key_validation_callback: the entry's protection
// bytes), and that entries come in order. A failed check is a Corruption,
// which stops the read; RocksDB then reports it instead of an answer.
//
// TeksTable's reads go through the hash, not down a sorted list, so "in
// order" means what a read can see: a key's versions newest first with
// strictly falling sequences, a seek landing at or after its target, and
// each Next/Prev moving strictly forward/backward in internal-key order.
//
// Thread safety: a value type; the callback it points to is RocksDB's, which
// any reader may call.
#pragma once

#include <functional>
#include <string>

#include "rocksdb/slice.h"
#include "rocksdb/status.h"
#include "rocksdb_internals.h"

namespace teksdb {

struct EntryChecks {
  using Validator = std::function<ROCKSDB_NAMESPACE::Status(const char*, bool)>;

  bool allow_data_in_errors = false;
  bool check_order = false;
  // RocksDB's per-entry check; null or empty for none.
  const Validator* validate_entry = nullptr;

  bool any() const { return check_order || (validate_entry != nullptr && *validate_entry); }

  // RocksDB's per-entry check of `entry` (OK when there is none).
  ROCKSDB_NAMESPACE::Status Validate(const char* entry) const {
    if (validate_entry == nullptr || !*validate_entry) return ROCKSDB_NAMESPACE::Status::OK();
    return (*validate_entry)(entry, allow_data_in_errors);
  }

  // The Corruption for entries out of order: `what`, with the two internal
  // keys in hex only if the user allows data in errors.
  ROCKSDB_NAMESPACE::Status OutOfOrder(const std::string& what, const char* first,
                                       const char* second) const {
    std::string message = "TeksTable: " + what;
    if (allow_data_in_errors) {
      message += ": " + EntryView::Decode(first).internal_key.ToString(true) + " then " +
                 EntryView::Decode(second).internal_key.ToString(true);
    }
    return ROCKSDB_NAMESPACE::Status::Corruption(message);
  }
};

}  // namespace teksdb
