// StressDB's open paths, key and value spelling, and merge operator (see
// stress_db.h).
#include "stress_db.h"

#include <cstring>

#include "rocksdb/convenience.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"
#include "teksdb/teks_transaction_db.h"

namespace teks_stress {

using ROCKSDB_NAMESPACE::ColumnFamilyDescriptor;
using ROCKSDB_NAMESPACE::ColumnFamilyHandle;
using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

namespace {

// A merge operand replaces the value (stress_db.h).
class TeksStressPutMerge : public ROCKSDB_NAMESPACE::AssociativeMergeOperator {
 public:
  bool Merge(const Slice& /*key*/, const Slice* /*existing_value*/, const Slice& value,
             std::string* new_value, ROCKSDB_NAMESPACE::Logger* /*logger*/) const override {
    new_value->assign(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "TeksStressPutMerge"; }
};

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void PutFixed32(std::string* out, uint32_t v) {
  char buf[4];
  std::memcpy(buf, &v, 4);
  out->append(buf, 4);
}

uint32_t GetFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

bool CompressionByName(const std::string& name, ROCKSDB_NAMESPACE::CompressionType* type) {
  static const std::pair<const char*, ROCKSDB_NAMESPACE::CompressionType> kNames[] = {
      {"none", ROCKSDB_NAMESPACE::kNoCompression},
      {"snappy", ROCKSDB_NAMESPACE::kSnappyCompression},
      {"zlib", ROCKSDB_NAMESPACE::kZlibCompression},
      {"lz4", ROCKSDB_NAMESPACE::kLZ4Compression},
      {"zstd", ROCKSDB_NAMESPACE::kZSTD},
  };
  for (const auto& [n, t] : kNames) {
    if (name == n) {
      *type = t;
      return true;
    }
  }
  return false;
}

}  // namespace

bool ParseMode(const std::string& name, Mode* mode) {
  for (Mode m : {Mode::kPlain, Mode::kLayer, Mode::kWriteCommitted, Mode::kWritePrepared}) {
    if (name == ModeName(m)) {
      *mode = m;
      return true;
    }
  }
  return false;
}

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kPlain: return "plain";
    case Mode::kLayer: return "layer";
    case Mode::kWriteCommitted: return "write_committed";
    case Mode::kWritePrepared: return "write_prepared";
  }
  return "?";
}

std::string KeyString(uint32_t key) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((uint64_t{key} >> (56 - 8 * i)) & 0xff);
  s.append(key % 5, 'x');
  return s;
}

bool ParseKey(const Slice& key, uint32_t* number) {
  if (key.size() < 8) return false;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n = (n << 8) | static_cast<unsigned char>(key[i]);
  if (n > UINT32_MAX) return false;
  *number = static_cast<uint32_t>(n);
  return key == Slice(KeyString(*number));
}

std::string ValueString(uint32_t cf, uint32_t key, uint32_t value_base) {
  std::string v;
  PutFixed32(&v, cf);
  PutFixed32(&v, key);
  PutFixed32(&v, value_base);
  uint64_t h = Mix((uint64_t{cf} << 56) ^ (uint64_t{key} << 24) ^ value_base);
  const size_t filler = h % 49;
  for (size_t i = 0; i < filler; ++i) {
    // Half the filler repeats (compressible), half varies.
    v.push_back(i % 2 == 0 ? 'a' + static_cast<char>(h % 26)
                           : static_cast<char>(Mix(h + i) & 0xff));
  }
  return v;
}

bool ParseValue(const Slice& value, uint32_t cf, uint32_t key, uint32_t* value_base) {
  if (value.size() < 12) return false;
  if (GetFixed32(value.data()) != cf || GetFixed32(value.data() + 4) != key) return false;
  *value_base = GetFixed32(value.data() + 8);
  return value == Slice(ValueString(cf, key, *value_base));
}

Status StressDB::Open(const StressDBConfig& config, std::unique_ptr<StressDB>* out) {
  std::unique_ptr<StressDB> sdb(new StressDB());
  sdb->config_ = config;

  DBOptions db_options;
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.manual_wal_flush = config.manual_wal_flush;
  db_options.max_background_jobs = 2;
  if (IsTransactional(config.mode)) db_options.allow_2pc = true;

  ColumnFamilyOptions cf_options;
  cf_options.write_buffer_size = config.write_buffer_size;
  cf_options.max_write_buffer_number = config.max_write_buffer_number;
  cf_options.target_file_size_base = config.write_buffer_size;
  cf_options.max_bytes_for_level_base = 4 * config.write_buffer_size;
  cf_options.level0_file_num_compaction_trigger = 2;
  cf_options.merge_operator = std::make_shared<TeksStressPutMerge>();
  if (!CompressionByName(config.compression, &cf_options.compression)) {
    return Status::InvalidArgument("unknown --compression", config.compression);
  }
  ROCKSDB_NAMESPACE::ConfigOptions config_options;
  config_options.ignore_unsupported_options = false;
  Status s = ROCKSDB_NAMESPACE::MemTableRepFactory::CreateFromString(
      config_options, config.memtable, &cf_options.memtable_factory);
  if (!s.ok()) return Status::InvalidArgument("--memtable " + config.memtable, s.ToString());
  if (config.mode != Mode::kPlain && config.teks_layer &&
      teksdb::GetTeksTableOptions(*cf_options.memtable_factory) == nullptr) {
    return Status::InvalidArgument("--memtable " + config.memtable,
                                   "the TeksDB layer needs a TeksTable variant");
  }

  std::vector<ColumnFamilyDescriptor> families;
  for (uint32_t cf = 0; cf < config.column_families; ++cf) {
    families.emplace_back(cf == 0 ? ROCKSDB_NAMESPACE::kDefaultColumnFamilyName
                                  : "cf" + std::to_string(cf),
                          cf_options);
  }
  families.emplace_back("progress", cf_options);
  // Scratch families a killed run left behind (Worker's scratch family
  // operation): opened, then dropped once the DB is open.
  std::vector<std::string> existing;
  if (ROCKSDB_NAMESPACE::DB::ListColumnFamilies(db_options, config.path, &existing).ok()) {
    for (const std::string& name : existing) {
      if (name.rfind(kScratchPrefix, 0) == 0) families.emplace_back(name, cf_options);
    }
  }
  const size_t stress_families = config.column_families + 1;

  switch (config.mode) {
    case Mode::kPlain: {
      std::unique_ptr<ROCKSDB_NAMESPACE::DB> plain;
      s = teksdb::OpenDB(db_options, config.path, families, &sdb->handles_, &plain);
      sdb->db_ = std::move(plain);
      break;
    }
    case Mode::kLayer: {
      std::unique_ptr<teksdb::TeksDB> teks;
      s = teksdb::TeksDB::Open(db_options, config.path, families, &sdb->handles_, &teks);
      sdb->db_ = std::move(teks);
      break;
    }
    case Mode::kWriteCommitted:
    case Mode::kWritePrepared: {
      ROCKSDB_NAMESPACE::TransactionDBOptions txn_options;
      txn_options.write_policy = config.mode == Mode::kWritePrepared
                                     ? ROCKSDB_NAMESPACE::WRITE_PREPARED
                                     : ROCKSDB_NAMESPACE::WRITE_COMMITTED;
      // WritePrepared leaves merge operands in place at rollback unless told
      // otherwise (a MyRocks hack, transaction_db.h).
      txn_options.rollback_merge_operands = true;
      if (!config.teks_layer) {
        ROCKSDB_NAMESPACE::Options options(db_options, cf_options);
        ROCKSDB_NAMESPACE::TransactionDB* raw = nullptr;
        s = ROCKSDB_NAMESPACE::TransactionDB::Open(options, txn_options, config.path, families,
                                                   &sdb->handles_, &raw);
        sdb->txn_db_ = raw;
        sdb->db_.reset(raw);
        break;
      }
      std::unique_ptr<teksdb::TeksTransactionDB> teks;
      s = teksdb::TeksTransactionDB::Open(db_options, txn_options, config.path, families,
                                          &sdb->handles_, &teks);
      sdb->txn_db_ = teks.get();
      sdb->db_ = std::move(teks);
      break;
    }
  }
  if (!s.ok()) return s;
  while (sdb->handles_.size() > stress_families) {
    ColumnFamilyHandle* scratch = sdb->handles_.back();
    sdb->handles_.pop_back();
    s = sdb->db_->DropColumnFamily(scratch);
    if (s.ok()) s = sdb->db_->DestroyColumnFamilyHandle(scratch);
    if (!s.ok()) return s;
  }
  *out = std::move(sdb);
  return Status::OK();
}

Status StressDB::Close() {
  if (db_ == nullptr) return Status::OK();
  Status s;
  for (ColumnFamilyHandle* h : handles_) {
    Status d = db_->DestroyColumnFamilyHandle(h);
    if (s.ok()) s = d;
  }
  handles_.clear();
  if (config_.manual_wal_flush) {
    Status f = db_->FlushWAL(/*sync=*/false);
    if (s.ok()) s = f;
  }
  // A WritePrepared TransactionDB may still hold snapshots of its own
  // (DB::Close then refuses): its destructor releases them and closes.
  if (txn_db_ == nullptr) {
    Status c = db_->Close();
    if (s.ok() && !c.IsNotSupported()) s = c;
  }
  db_.reset();
  txn_db_ = nullptr;
  return s;
}

StressDB::~StressDB() { Close(); }

}  // namespace teks_stress
