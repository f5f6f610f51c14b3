// TeksTableFactory: the MemTableRepFactory that creates TeksTableReps, its
// options (the paper's ablation switches), their validation, and its
// registration in RocksDB's ObjectRegistry as "teks".
//
// Thread safety: a factory is shared by every column family and memtable
// that uses it. Its options are fixed once configured; the write buffer
// size and the key count it sizes hashes from are atomics; its
// BackgroundLinker is thread-safe.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <string>
#include <unordered_map>

#include "background_linker.h"
#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/options.h"
#include "rocksdb/utilities/object_registry.h"
#include "rocksdb/utilities/options_type.h"
#include "teks_table_factory.h"
#include "teks_table_rep.h"
#include "teksdb/teks_table.h"

namespace teksdb {

using ROCKSDB_NAMESPACE::ColumnFamilyOptions;
using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::DBOptions;
using ROCKSDB_NAMESPACE::MemTableRep;
using ROCKSDB_NAMESPACE::MemTableRepFactory;
using ROCKSDB_NAMESPACE::OptionType;
using ROCKSDB_NAMESPACE::OptionTypeFlags;
using ROCKSDB_NAMESPACE::OptionTypeInfo;
using ROCKSDB_NAMESPACE::OptionVerificationType;
using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr const char* kOptionNames =
    "async, concurrent_hash, shortcut, inplace, max_wal_write_buffers, linker_nice";

// The first memtable's hash starts with a slot per this many bytes of write
// buffer, at most kMaxFirstHashSlots (512 KiB of slots): the hash grows
// (by half) with the keys that arrive, not with the buffer, so a few keys
// in a 32 GiB buffer cost no more than in a 64 MiB one, and the growths up
// to a large table rehash about twice as many entries in all as the last
// one does (the tables they replace serve new records: RetiredMemory).
// Later memtables start with room for as many keys as the last
// sealed one held (KeyCountHint), at kPresizedLoadPercent, at most
// kMaxPresizedHashSlots and never more than a slot per
// kMinWriteBufferBytesPerKey of buffer: at most an eighth of the buffer in
// 8-byte slots, so that the hash
// and the link queue's ring, sized like it, never fill a new memtable of a
// small buffer, or of one column family presized by another's (RocksDB
// flushes a memtable that is full when created, or aborts in builds with
// assertions, Debian's included).
constexpr size_t kWriteBufferBytesPerHashSlot = 2048;
constexpr size_t kPresizedLoadPercent = 85;
constexpr size_t kMinWriteBufferBytesPerKey = 64;
constexpr size_t kMinHashSlots = 1024;
constexpr size_t kMaxFirstHashSlots = size_t{64} << 10;
constexpr size_t kMaxPresizedHashSlots = size_t{4} << 20;

Status ParseBoolean(const ConfigOptions&, const std::string& name,
                    const std::string& value, void* addr) {
  bool* out = static_cast<bool*>(addr);
  if (value == "true" || value == "1") {
    *out = true;
  } else if (value == "false" || value == "0") {
    *out = false;
  } else {
    return Status::InvalidArgument("TeksTable option " + name,
                                   "'" + value + "' is not true or false");
  }
  return Status::OK();
}

// A uint32_t option taking the integers from `min` to `max`.
OptionTypeInfo IntegerOption(int offset, unsigned long min, unsigned long max) {
  return OptionTypeInfo(
      offset, OptionType::kUInt32T, OptionVerificationType::kNormal, OptionTypeFlags::kNone,
      [min, max](const ConfigOptions&, const std::string& name, const std::string& value,
                 void* addr) {
        size_t parsed = 0;
        unsigned long number = 0;
        try {
          number = std::stoul(value, &parsed);
        } catch (const std::exception&) {
          // `parsed` stays 0: refused below.
        }
        // (An empty value fails the digit check: value[0] is then '\0'.)
        if (!std::isdigit(static_cast<unsigned char>(value[0])) || parsed != value.size() ||
            number < min || number > max) {
          return Status::InvalidArgument("TeksTable option " + name,
                                         "'" + value + "' is not an integer from " +
                                             std::to_string(min) + " to " + std::to_string(max));
        }
        *static_cast<uint32_t*>(addr) = static_cast<uint32_t>(number);
        return Status::OK();
      });
}

OptionTypeInfo BooleanOption(int offset) {
  return OptionTypeInfo(offset, OptionType::kBoolean,
                        OptionVerificationType::kNormal, OptionTypeFlags::kNone,
                        ParseBoolean);
}

const std::unordered_map<std::string, OptionTypeInfo> kTeksTableOptionsInfo = {
    {"async", BooleanOption(offsetof(TeksTableOptions, async))},
    {"concurrent_hash", BooleanOption(offsetof(TeksTableOptions, concurrent_hash))},
    {"shortcut", BooleanOption(offsetof(TeksTableOptions, shortcut))},
    {"inplace", BooleanOption(offsetof(TeksTableOptions, inplace))},
    {"max_wal_write_buffers",
     IntegerOption(offsetof(TeksTableOptions, max_wal_write_buffers), 1, 1000000)},
    {"linker_nice", IntegerOption(offsetof(TeksTableOptions, linker_nice), 0, 19)},
};

class TeksTableFactory : public MemTableRepFactory {
 public:
  TeksTableFactory(const TeksTableOptions& options,
                   std::shared_ptr<VersionDropPolicy> drop_policy)
      : options_(options),
        drop_policy_(std::move(drop_policy)),
        linker_(std::make_shared<BackgroundLinker>()),
        key_count_hint_(std::make_shared<KeyCountHint>()) {
    RegisterOptions("TeksTableOptions", &options_, &kTeksTableOptionsInfo);
  }

  // For Customizable::CheckedCast, which needs no RTTI.
  static const char* kClassName() { return kTeksTableFactoryName; }
  const char* Name() const override { return kClassName(); }
  const char* NickName() const override { return kTeksTableNickName; }
  bool IsInsertConcurrentlySupported() const override { return true; }
  bool CanHandleDuplicatedKey() const override { return true; }
  const TeksTableOptions& options() const { return options_; }

  using MemTableRepFactory::CreateMemTableRep;
  MemTableRep* CreateMemTableRep(const MemTableRep::KeyComparator& cmp,
                                 ROCKSDB_NAMESPACE::Allocator* allocator,
                                 const ROCKSDB_NAMESPACE::SliceTransform*,
                                 ROCKSDB_NAMESPACE::Logger*) override {
    const size_t buffer = ExpectedWriteBufferSize(*allocator);
    size_t slots = std::min(buffer / kWriteBufferBytesPerHashSlot, kMaxFirstHashSlots);
    if (const size_t keys = key_count_hint_->Get(); keys > 0) {
      slots = std::min({keys * 100 / kPresizedLoadPercent, buffer / kMinWriteBufferBytesPerKey,
                        kMaxPresizedHashSlots});
    }
    slots = std::max(slots, kMinHashSlots);
    const size_t reuse_budget = (options_.max_wal_write_buffers - size_t{1}) * buffer;
    linker_->SetNice(static_cast<int>(options_.linker_nice));
    return new TeksTableRep(cmp, allocator, options_, slots, linker_, drop_policy_,
                            reuse_budget, key_count_hint_);
  }

  // Called by DB::Open for each column family using this factory.
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override {
    const ROCKSDB_NAMESPACE::Comparator* cmp = cf_opts.comparator;
    if (cmp != nullptr && cmp->timestamp_size() > 0) {
      return Status::InvalidArgument(
          "TeksTable does not support user-defined timestamps",
          std::string("comparator ") + cmp->Name() + " has timestamp size " +
              std::to_string(cmp->timestamp_size()));
    }
    if (cmp != nullptr && cmp->CanKeysWithDifferentByteContentsBeEqual()) {
      return Status::InvalidArgument(
          "TeksTable hashes user keys by their bytes",
          std::string("comparator ") + cmp->Name() +
              " says keys with different bytes can be equal "
              "(override CanKeysWithDifferentByteContentsBeEqual if not)");
    }
    if (drop_policy_ != nullptr && db_opts.flush_verify_memtable_count) {
      return Status::InvalidArgument(
          "TeksTable with a version drop policy needs flush_verify_memtable_count=false",
          "a flush reads fewer entries than were added once versions are dropped; "
          "open through teksdb::TeksDB or TeksTransactionDB, which set it");
    }
    size_t seen = smallest_write_buffer_size_.load(std::memory_order_relaxed);
    while (cf_opts.write_buffer_size < seen &&
           !smallest_write_buffer_size_.compare_exchange_weak(seen,
                                                              cf_opts.write_buffer_size)) {
    }
    return MemTableRepFactory::ValidateOptions(db_opts, cf_opts);
  }

 protected:
  // Unknown option names are an InvalidArgument naming them (RocksDB's
  // default is NotFound), unless the caller asked to ignore them.
  Status ConfigureOptions(
      const ConfigOptions& config_options,
      const std::unordered_map<std::string, std::string>& opts_map,
      std::unordered_map<std::string, std::string>* unused) override {
    std::unordered_map<std::string, std::string> remaining;
    Status s = MemTableRepFactory::ConfigureOptions(config_options, opts_map,
                                                    &remaining);
    if (s.ok() && !remaining.empty() && !config_options.ignore_unknown_options) {
      return Status::InvalidArgument(
          "unknown TeksTable option '" + remaining.begin()->first + "'",
          std::string("known options: ") + kOptionNames);
    }
    if (unused != nullptr) unused->insert(remaining.begin(), remaining.end());
    return s;
  }

 private:
  // The write buffer a new memtable will fill: the smallest one DB::Open
  // validated this factory for (RocksDB's 64 MiB default if none), and no
  // more than the arena block size implies. RocksDB sanitizes
  // arena_block_size to min(1 MiB, write_buffer_size / 8) unless set, which
  // also covers column families created after open (not validated).
  size_t ExpectedWriteBufferSize(const ROCKSDB_NAMESPACE::Allocator& allocator) const {
    size_t expected = smallest_write_buffer_size_.load(std::memory_order_relaxed);
    if (expected == kNoWriteBufferSeen) expected = size_t{64} << 20;
    const size_t block = allocator.BlockSize();
    if (block < (size_t{1} << 20)) expected = std::min(expected, block * 8);
    return expected;
  }

  static constexpr size_t kNoWriteBufferSeen = ~size_t{0};
  TeksTableOptions options_;
  const std::shared_ptr<VersionDropPolicy> drop_policy_;
  const std::shared_ptr<BackgroundLinker> linker_;
  const std::shared_ptr<KeyCountHint> key_count_hint_;
  mutable std::atomic<size_t> smallest_write_buffer_size_{kNoWriteBufferSeen};
};

// Registers on load, so that LD_PRELOAD into db_bench, or linking the shared
// library, is enough for option strings to find "teks".
[[maybe_unused]] const bool kRegisteredWithDefaultLibrary = [] {
  RegisterTeksTable(*ROCKSDB_NAMESPACE::ObjectLibrary::Default());
  return true;
}();

}  // namespace

bool TeksTableOptions::ForVariant(const std::string& id, TeksTableOptions* out) {
  // The paper's Fig. 4 variants, each adding one mechanism to the last.
  static const std::unordered_map<std::string, TeksTableOptions> kVariants = {
      {"teks-s", {false, false, false, false}},
      {"teks-a", {true, false, false, false}},
      {"teks-ac", {true, true, false, false}},
      {"teks-acsp", {true, true, true, false}},
      {"teks-acsp-in", {true, true, true, true}},
      {kTeksTableNickName, {true, true, true, true}},
      {kTeksTableFactoryName, {true, true, true, true}},
  };
  auto it = kVariants.find(id);
  if (it == kVariants.end()) return false;
  *out = it->second;
  return true;
}

std::shared_ptr<MemTableRepFactory> NewTeksTableFactory(const TeksTableOptions& options) {
  return std::make_shared<TeksTableFactory>(options, nullptr);
}

std::shared_ptr<MemTableRepFactory> NewTeksTableFactoryWithDropPolicy(
    const TeksTableOptions& options, std::shared_ptr<VersionDropPolicy> drop_policy) {
  return std::make_shared<TeksTableFactory>(options, std::move(drop_policy));
}

const TeksTableOptions* GetTeksTableOptions(const MemTableRepFactory& factory) {
  const auto* teks = factory.CheckedCast<TeksTableFactory>();
  return teks != nullptr ? &teks->options() : nullptr;
}

void RegisterTeksTable(ROCKSDB_NAMESPACE::ObjectLibrary& library) {
  // Matches "teks", "TeksTableFactory", and "teks-<variant>".
  ROCKSDB_NAMESPACE::ObjectLibrary::PatternEntry pattern(kTeksTableNickName, true);
  pattern.AnotherName(kTeksTableFactoryName);
  pattern.AddSeparator("-");
  library.AddFactory<MemTableRepFactory>(
      pattern, [](const std::string& id, std::unique_ptr<MemTableRepFactory>* guard,
                  std::string* errmsg) -> MemTableRepFactory* {
        TeksTableOptions options;
        if (!TeksTableOptions::ForVariant(id, &options)) {
          *errmsg = "unknown TeksTable variant '" + id +
                    "' (known: teks, teks-s, teks-a, teks-ac, teks-acsp, teks-acsp-in)";
          return nullptr;
        }
        guard->reset(new TeksTableFactory(options, nullptr));
        return guard->get();
      });
}

}  // namespace teksdb

// RocksDB's plugin registration function for TeksTable built into
// librocksdb (plugin/teks.mk names it; RocksDB's generated build_version.cc
// declares it extern "C" and calls it when it fills an ObjectLibrary).
// Defined by every build of memtable/: a program that links this library
// statically with a librocksdb.a that has the plugin then gets one TeksTable,
// since the linker needs no member of the archive for this symbol. Returns
// the number of factories registered.
extern "C" int teksdb_register_plugin(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                                      const std::string& /*arg*/) {
  teksdb::RegisterTeksTable(library);
  return 1;
}
