// Tests of TeksTable's factory as RocksDB users reach it: the ObjectRegistry
// names and variants, option strings, OPTIONS-file round trips, and the
// errors for bad input (InvalidArgument naming the culprit) and unsupported
// configurations (refused at DB::Open with a message).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/options_util.h"
#include "teks_layer_setup.h"
#include "teks_table_factory.h"
#include "teksdb/teks_table.h"
#include "teksdb/open_db.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::ConfigOptions;
using ROCKSDB_NAMESPACE::MemTableRepFactory;
using ROCKSDB_NAMESPACE::Status;

Status Create(const std::string& id, std::shared_ptr<MemTableRepFactory>* factory) {
  ConfigOptions config;
  config.ignore_unknown_options = false;
  config.ignore_unsupported_options = false;
  return MemTableRepFactory::CreateFromString(config, id, factory);
}

TEST(FactoryOptionsTest, RegistryFindsTeksByNickNameAndClassName) {
  for (const char* id : {"teks", "TeksTableFactory"}) {
    std::shared_ptr<MemTableRepFactory> factory;
    ASSERT_TRUE(Create(id, &factory).ok()) << id;
    EXPECT_STREQ(factory->Name(), kTeksTableFactoryName);
    EXPECT_TRUE(factory->IsInstanceOf("teks"));
    EXPECT_TRUE(factory->IsInsertConcurrentlySupported());
    EXPECT_TRUE(factory->CanHandleDuplicatedKey());
    const TeksTableOptions* options = GetTeksTableOptions(*factory);
    ASSERT_NE(options, nullptr);
    EXPECT_TRUE(options->async && options->concurrent_hash && options->shortcut &&
                options->inplace);
  }
}

TEST(FactoryOptionsTest, PaperVariantsSetTheAblationSwitches) {
  struct Expect {
    const char* id;
    bool async, concurrent_hash, shortcut, inplace;
  };
  for (const Expect& e : {Expect{"teks-s", false, false, false, false},
                          Expect{"teks-a", true, false, false, false},
                          Expect{"teks-ac", true, true, false, false},
                          Expect{"teks-acsp", true, true, true, false},
                          Expect{"teks-acsp-in", true, true, true, true}}) {
    std::shared_ptr<MemTableRepFactory> factory;
    ASSERT_TRUE(Create(e.id, &factory).ok()) << e.id;
    const TeksTableOptions* o = GetTeksTableOptions(*factory);
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(o->async, e.async) << e.id;
    EXPECT_EQ(o->concurrent_hash, e.concurrent_hash) << e.id;
    EXPECT_EQ(o->shortcut, e.shortcut) << e.id;
    EXPECT_EQ(o->inplace, e.inplace) << e.id;
  }
}

TEST(FactoryOptionsTest, OptionsByName) {
  std::shared_ptr<MemTableRepFactory> factory;
  ASSERT_TRUE(Create("id=teks;async=false;shortcut=0", &factory).ok());
  const TeksTableOptions* o = GetTeksTableOptions(*factory);
  ASSERT_NE(o, nullptr);
  EXPECT_FALSE(o->async);
  EXPECT_FALSE(o->shortcut);
  EXPECT_TRUE(o->concurrent_hash);
}

TEST(FactoryOptionsTest, MalformedValueIsInvalidArgumentNamingIt) {
  std::shared_ptr<MemTableRepFactory> factory;
  const Status s = Create("id=teks;async=maybe", &factory);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("async"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("maybe"), std::string::npos) << s.ToString();
}

TEST(FactoryOptionsTest, UnknownOptionIsInvalidArgumentNamingIt) {
  std::shared_ptr<MemTableRepFactory> factory;
  const Status s = Create("id=teks;shortcuts=true", &factory);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("shortcuts"), std::string::npos) << s.ToString();
}

TEST(FactoryOptionsTest, UnknownVariantIsRefusedNamingIt) {
  std::shared_ptr<MemTableRepFactory> factory;
  const Status s = Create("teks-turbo", &factory);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("teks-turbo"), std::string::npos) << s.ToString();
}

TEST(FactoryOptionsTest, ColumnFamilyOptionStringsPickItUp) {
  ConfigOptions config;
  ROCKSDB_NAMESPACE::ColumnFamilyOptions cf;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
                  config, cf, "memtable_factory={id=teks;inplace=false}", &cf)
                  .ok());
  ASSERT_NE(cf.memtable_factory, nullptr);
  const TeksTableOptions* o = GetTeksTableOptions(*cf.memtable_factory);
  ASSERT_NE(o, nullptr);
  EXPECT_FALSE(o->inplace);
}

TEST(FactoryOptionsTest, OptionsFileRoundTripKeepsFactoryAndOptions) {
  test::TempDir dir("teks-options");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  TeksTableOptions teks;
  teks.async = false;
  teks.shortcut = false;
  teks.max_wal_write_buffers = 7;
  options.memtable_factory = NewTeksTableFactory(teks);
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, dir.path(), &db).ok());
  ASSERT_TRUE(db->Put({}, "k", "v").ok());
  db.reset();

  ConfigOptions config;
  config.ignore_unsupported_options = false;
  ROCKSDB_NAMESPACE::DBOptions db_options;
  std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> cfs;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::LoadLatestOptions(config, dir.path(), &db_options, &cfs).ok());
  ASSERT_EQ(cfs.size(), 1u);
  ASSERT_NE(cfs[0].options.memtable_factory, nullptr);
  EXPECT_STREQ(cfs[0].options.memtable_factory->Name(), kTeksTableFactoryName);
  const TeksTableOptions* o = GetTeksTableOptions(*cfs[0].options.memtable_factory);
  ASSERT_NE(o, nullptr);
  EXPECT_FALSE(o->async);
  EXPECT_FALSE(o->shortcut);
  EXPECT_TRUE(o->concurrent_hash);
  EXPECT_EQ(o->max_wal_write_buffers, 7u);
}

// Each of `values` for TeksTable's `option` is InvalidArgument naming it.
void ExpectEachRefused(const std::string& option, const std::vector<std::string>& values) {
  for (const std::string& bad : values) {
    ConfigOptions config;
    ROCKSDB_NAMESPACE::ColumnFamilyOptions refused;
    const Status s = ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
        config, refused, "memtable_factory={id=teks;" + option + "=" + bad + "}", &refused);
    EXPECT_TRUE(s.IsInvalidArgument()) << option << "='" << bad << "': " << s.ToString();
    EXPECT_NE(s.ToString().find(option), std::string::npos) << s.ToString();
  }
}

TEST(FactoryOptionsTest, MaxWalWriteBuffersTakesAPositiveIntegerOnly) {
  ConfigOptions config;
  ROCKSDB_NAMESPACE::ColumnFamilyOptions cf;
  ASSERT_OK(ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
      config, cf, "memtable_factory={id=teks;max_wal_write_buffers=12}", &cf));
  EXPECT_EQ(GetTeksTableOptions(*cf.memtable_factory)->max_wal_write_buffers, 12u);
  EXPECT_EQ(TeksTableOptions().max_wal_write_buffers, 4u);
  ExpectEachRefused("max_wal_write_buffers", {"0", "-1", "two", "3x", "", "99999999999"});
}

TEST(FactoryOptionsTest, LinkerNiceTakesZeroToNineteenOnly) {
  ConfigOptions config;
  ROCKSDB_NAMESPACE::ColumnFamilyOptions cf;
  ASSERT_OK(ROCKSDB_NAMESPACE::GetColumnFamilyOptionsFromString(
      config, cf, "memtable_factory={id=teks;linker_nice=19}", &cf));
  EXPECT_EQ(GetTeksTableOptions(*cf.memtable_factory)->linker_nice, 19u);
  EXPECT_EQ(TeksTableOptions().linker_nice, 0u);
  ExpectEachRefused("linker_nice", {"20", "-1", "low", ""});
}

// The nice values of this process's threads, from /proc.
std::vector<int> ThreadNiceValues() {
  std::vector<int> values;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream stat(task.path() / "stat");
    std::string line;
    std::getline(stat, line);
    // Fields after the command's closing parenthesis: state is field 3,
    // nice field 19.
    std::istringstream rest(line.substr(line.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 19 && rest >> field; ++i) {
      if (i == 19) values.push_back(std::stoi(field));
    }
  }
  return values;
}

TEST(FactoryOptionsTest, TheLinkerRunsAtItsNiceValue) {
  test::TempDir dir("teks-nice");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  TeksTableOptions teks;
  teks.linker_nice = 7;
  options.memtable_factory = NewTeksTableFactory(teks);
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_OK(OpenDB(options, dir.path(), &db));
  ASSERT_OK(db->Put({}, "key", "value"));
  bool found = false;
  for (int i = 0; i < 500 && !found; ++i) {
    const std::vector<int> nice = ThreadNiceValues();
    found = std::count(nice.begin(), nice.end(), 7) == 1;
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(found) << "no thread of this process runs at nice 7";
}

// A comparator that does not promise byte-equal keys compare equal only.
class CaseInsensitiveComparator : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "test.CaseInsensitive"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    return strncasecmp(a.data(), b.data(), std::min(a.size(), b.size())) != 0
               ? strncasecmp(a.data(), b.data(), std::min(a.size(), b.size()))
               : static_cast<int>(a.size()) - static_cast<int>(b.size());
  }
  void FindShortestSeparator(std::string*, const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

Status OpenWith(const ROCKSDB_NAMESPACE::Comparator* cmp) {
  test::TempDir dir("teks-refuse");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.comparator = cmp;
  options.memtable_factory = NewTeksTableFactory();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  return OpenDB(options, dir.path(), &db);
}

TEST(FactoryOptionsTest, UserDefinedTimestampsAreRefusedAtOpen) {
  test::TimestampedComparator cmp;
  const Status s = OpenWith(&cmp);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("timestamp"), std::string::npos) << s.ToString();
}

TEST(FactoryOptionsTest, ComparatorsWithByteDifferentEqualKeysAreRefusedAtOpen) {
  CaseInsensitiveComparator cmp;
  const Status s = OpenWith(&cmp);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("test.CaseInsensitive"), std::string::npos) << s.ToString();
}

TEST(FactoryOptionsTest, ReverseBytewiseComparatorWorks) {
  test::TempDir dir("teks-reverse");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.comparator = ROCKSDB_NAMESPACE::ReverseBytewiseComparator();
  options.memtable_factory = NewTeksTableFactory();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, dir.path(), &db).ok());
  for (const char* k : {"b", "a", "c"}) ASSERT_TRUE(db->Put({}, k, k).ok());
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
  std::string order;
  for (it->SeekToFirst(); it->Valid(); it->Next()) order += it->key().ToString();
  EXPECT_EQ(order, "cba");
  it.reset();
  db.reset();
}

// Drops only the TeksDB layer can prove safe, and flush's count of entries
// would then not match what was added: a factory with a drop policy
// refuses a DB that checks that count, naming the option.
class DropEverythingPolicy : public VersionDropPolicy {
 public:
  ROCKSDB_NAMESPACE::SequenceNumber OldestReadableSequence() override {
    return kMaxSequenceNumber;
  }
};

TEST(FactoryOptionsTest, ADropPolicyOutsideTheLayerIsRefusedAtOpen) {
  test::TempDir dir("teks-policy");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.memtable_factory =
      NewTeksTableFactoryWithDropPolicy(TeksTableOptions(),
                                        std::make_shared<DropEverythingPolicy>());
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  const Status s = OpenDB(options, dir.path(), &db);
  if (s.ok()) {
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(db->Put({}, "hot", std::to_string(i)).ok());
    const Status flushed = db->Flush({});
    FAIL() << "opened; flush: " << flushed.ToString();
  }
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("flush_verify_memtable_count"), std::string::npos)
      << s.ToString();
}

// The layer's helper for column families gives a factory tied to a
// registry; outside the layer, the DB refuses it the same way.
TEST(FactoryOptionsTest, TheLayersColumnFamilyOptionsAreRefusedByAPlainDB) {
  test::TempDir dir("teks-policy-layer");
  ROCKSDB_NAMESPACE::Options options(
      ROCKSDB_NAMESPACE::DBOptions(),
      WithTeksTable(ROCKSDB_NAMESPACE::ColumnFamilyOptions(),
                    std::make_shared<ReaderRegistry>()));
  options.create_if_missing = true;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> raw;
  const Status s = OpenDB(options, dir.path(), &raw);
  raw.reset();
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("flush_verify_memtable_count"), std::string::npos)
      << s.ToString();
}

// The hash is sized from the write buffer, and counted in the memtable's
// memory: a hash sized for a bigger buffer than the real one would make
// every new memtable look full (RocksDB asserts against that).
TEST(FactoryOptionsTest, SmallWriteBuffersFlushNormally) {
  test::TempDir dir("teks-small");
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 10;
  // Every flush stays a file of its own (a compaction could merge them
  // while the writes run, leaving one file after many flushes).
  options.disable_auto_compactions = true;
  options.memtable_factory = NewTeksTableFactory();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, dir.path(), &db).ok());
  ROCKSDB_NAMESPACE::ColumnFamilyHandle* created = nullptr;
  ROCKSDB_NAMESPACE::ColumnFamilyOptions cf_options(options);
  cf_options.write_buffer_size = 64 << 10;  // the smallest RocksDB takes
  ASSERT_TRUE(db->CreateColumnFamily(cf_options, "small", &created).ok());
  const std::string value(100, 'v');
  for (int i = 0; i < 20000; ++i) {
    const std::string key = "key" + std::to_string(i);
    ASSERT_TRUE(db->Put({}, key, value).ok());
    ASSERT_TRUE(db->Put({}, created, key, value).ok());
  }
  std::string got;
  ASSERT_TRUE(db->Get({}, created, "key12345", &got).ok());
  EXPECT_EQ(got, value);
  uint64_t memtable_bytes = 0;
  ASSERT_TRUE(db->GetIntProperty("rocksdb.cur-size-active-mem-table", &memtable_bytes));
  // RocksDB switches memtables once one crosses its buffer size, so the
  // active one may overshoot by an arena block, never by a whole buffer.
  EXPECT_LT(memtable_bytes, uint64_t{2} * (256 << 10));
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(created, &meta);
  // The small column family flushed repeatedly, each memtable filled
  // first: ~2.4 MB written through a 64 KiB buffer is ~40 flushes. A
  // memtable full when created (the hash and link queue presized beyond
  // the buffer) would flush at every write, or abort where RocksDB was
  // built with assertions.
  EXPECT_GT(meta.file_count, 10u);
  EXPECT_LT(meta.file_count, 100u);
  ASSERT_TRUE(db->DestroyColumnFamilyHandle(created).ok());
  db.reset();
}

}  // namespace
}  // namespace teksdb
