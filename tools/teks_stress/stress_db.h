// StressDB: the database teks_stress drives, opened one of four ways
// (--mode): RocksDB with TeksTable as a plain factory, the TeksDB layer, or
// TeksTransactionDB with WriteCommitted or WritePrepared transactions. Also
// what every mode shares: how keys and values are spelled, and the merge
// operator.
//
// Keys: key number k of a column family is its 8 bytes big-endian followed
// by k % 5 bytes of 'x' (so lengths vary but order is numeric). Values are
// made from (column family, key, value base): the three numbers, then
// filler derived from them, 12 to 60 bytes in all, so any value read can be
// checked to be one written for that key, and its value base recovered.
// Merge uses TeksStressPutMerge, under which a merge operand replaces the
// value (RocksDB db_stress's "put" operator does the same): the oracle
// treats Merge like Put, while the memtable still sees merge entries, which
// it must never drop a version behind.
//
// Column families: the data families "default", "cf1", ... and "progress",
// which holds each thread's last op number (expected_state.h); and now and
// then a short-lived scratch family (its name starts with kScratchPrefix),
// dropped at the next Open if a kill left it.
//
// Thread safety: as RocksDB's DB; Open and the destructor single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/utilities/transaction_db.h"

namespace teks_stress {

constexpr const char* kScratchPrefix = "scratch-";

enum class Mode { kPlain, kLayer, kWriteCommitted, kWritePrepared };

bool ParseMode(const std::string& name, Mode* mode);
const char* ModeName(Mode mode);
inline bool IsTransactional(Mode mode) {
  return mode == Mode::kWriteCommitted || mode == Mode::kWritePrepared;
}

struct StressDBConfig {
  std::string path;
  Mode mode = Mode::kLayer;
  std::string memtable = "teks";  // a factory name or option string
  uint32_t column_families = 3;   // data families
  uint64_t write_buffer_size = 1 << 20;
  int max_write_buffer_number = 3;
  std::string compression = "lz4";
  bool disable_wal = false;
  bool manual_wal_flush = false;
  // Transactional modes only: false opens RocksDB's own TransactionDB with
  // `memtable` as a plain factory, a control for telling a TeksDB bug from
  // a teks_stress one.
  bool teks_layer = true;
};

std::string KeyString(uint32_t key);
// The key number, or false if `key` is not one KeyString makes.
bool ParseKey(const ROCKSDB_NAMESPACE::Slice& key, uint32_t* number);
std::string ValueString(uint32_t cf, uint32_t key, uint32_t value_base);
// The value base, or false if `value` is not one ValueString makes for
// (cf, key).
bool ParseValue(const ROCKSDB_NAMESPACE::Slice& value, uint32_t cf, uint32_t key,
                uint32_t* value_base);

class StressDB {
 public:
  static ROCKSDB_NAMESPACE::Status Open(const StressDBConfig& config,
                                        std::unique_ptr<StressDB>* db);
  ~StressDB();

  // What every read and write goes through (the layer's object, if any).
  ROCKSDB_NAMESPACE::DB* db() const { return db_.get(); }
  // Non-null in the transactional modes.
  ROCKSDB_NAMESPACE::TransactionDB* txn_db() const { return txn_db_; }
  ROCKSDB_NAMESPACE::ColumnFamilyHandle* data(uint32_t cf) const { return handles_[cf]; }
  ROCKSDB_NAMESPACE::ColumnFamilyHandle* progress() const { return handles_.back(); }
  const StressDBConfig& config() const { return config_; }
  // Closes cleanly (flushes if the WAL is off); the destructor does too.
  ROCKSDB_NAMESPACE::Status Close();

 private:
  StressDB() = default;
  StressDBConfig config_;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
  ROCKSDB_NAMESPACE::TransactionDB* txn_db_ = nullptr;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyHandle*> handles_;
};

}  // namespace teks_stress
