// Test support implementation (see test_support.h).
#include "test_support.h"

#include "ordered_index.h"
#include "rocksdb/options.h"
#include "teks_table_factory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

namespace teksdb {
namespace test {

KeyRecord* MakeRecord(TestArena* arena, const Slice& user_key, SequenceNumber seq,
                      const Slice& value) {
  const std::string entry = EncodeEntry(user_key, seq, kEntryValue, value);
  const int height = RandomRecordHeight();
  KeyRecord* record = KeyRecord::Create(
      arena->AllocateAligned(KeyRecord::AllocationSize(height, entry.size())), height);
  std::memcpy(record->first_version()->mutable_entry(), entry.data(), entry.size());
  return record;
}

std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep> NewRepForWriteBuffer(
    ROCKSDB_NAMESPACE::MemTableRepFactory* factory, size_t write_buffer_size,
    const InternalKeyOrder& order, TestArena* arena) {
  ROCKSDB_NAMESPACE::ColumnFamilyOptions options;
  options.write_buffer_size = write_buffer_size;
  EXPECT_TRUE(factory->ValidateOptions(ROCKSDB_NAMESPACE::DBOptions(), options).ok());
  return std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep>(
      factory->CreateMemTableRep(order, arena, nullptr, nullptr));
}

Version* CopyFirstVersion(TestArena* arena, const Version* first) {
  const size_t len = EncodedEntryLength(first->entry());
  Version* v =
      Version::CreateWithJumpLink(arena->AllocateAligned(Version::AllocationSize(len)), len);
  std::memcpy(v->mutable_entry(), first->entry(), len);
  return v;
}

std::string OrderedKey(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

void ExpectEveryLevelSortedAndComplete(const OrderedIndex& index,
                                       const std::vector<const KeyRecord*>& records) {
  std::vector<size_t> taller_than(KeyRecord::kMaxHeight, 0);
  for (const KeyRecord* r : records) {
    for (int level = 0; level < r->height(); ++level) ++taller_than[level];
  }
  for (int level = 0; level < KeyRecord::kMaxHeight; ++level) {
    // The level's first record is the first one tall enough on level 0.
    const KeyRecord* first = index.First();
    while (first != nullptr && first->height() <= level) first = first->Next(0);
    size_t count = 0;
    const KeyRecord* previous = nullptr;
    for (const KeyRecord* r = first; r != nullptr; r = r->Next(level)) {
      if (previous != nullptr) {
        ASSERT_LT(previous->user_key().compare(r->user_key()), 0) << "level " << level;
      }
      previous = r;
      ++count;
    }
    EXPECT_EQ(count, taller_than[level]) << "level " << level;
  }
}

bool AppendOperator::Merge(const Slice& /*key*/, const Slice* existing_value,
                           const Slice& value, std::string* new_value,
                           ROCKSDB_NAMESPACE::Logger* /*logger*/) const {
  new_value->clear();
  if (existing_value != nullptr) {
    new_value->assign(existing_value->data(), existing_value->size());
    new_value->push_back(',');
  }
  new_value->append(value.data(), value.size());
  return true;
}

std::string VersionValue(const std::string& key, SequenceNumber seq) {
  std::string value = key + "@" + std::to_string(seq);
  value.resize(48, '.');
  return value;
}

uint64_t SeedFor(uint64_t default_seed) {
  const char* env = std::getenv("TEKSDB_TEST_SEED");
  if (env == nullptr || *env == '\0') return default_seed;
  if (std::string(env) == "random") return std::random_device{}();
  return std::strtoull(env, nullptr, 0);
}

std::string ReplayHint(uint64_t seed) {
  return "seed " + std::to_string(seed) + " (TEKSDB_TEST_SEED=" + std::to_string(seed) +
         " replays it)";
}

int Scale() {
  const char* env = std::getenv("TEKSDB_TEST_SCALE");
  const int scale = env != nullptr ? std::atoi(env) : 1;
  return scale > 0 ? scale : 1;
}

Version* VersionPool::Make(SequenceNumber seq, uint8_t type) {
  const std::string entry = EncodeEntry("k", seq, type, Slice());
  auto memory = std::make_unique<uint64_t[]>(Version::AllocationSize(entry.size()) / 8);
  Version* v = Version::CreateWithJumpLink(reinterpret_cast<char*>(memory.get()), entry.size());
  std::memcpy(v->mutable_entry(), entry.data(), entry.size());
  std::lock_guard<std::mutex> lock(mu_);
  memory_.push_back(std::move(memory));
  return v;
}

bool SettablePolicy::MayReadBetween(SequenceNumber lo, SequenceNumber hi) {
  if (hi > published_.load()) return true;
  std::lock_guard<std::mutex> lock(pinned_mu_);
  auto it = pinned_.lower_bound(lo);
  return it != pinned_.end() && *it < hi;
}

void SettablePolicy::Pin(SequenceNumber seq) {
  std::lock_guard<std::mutex> lock(pinned_mu_);
  pinned_.insert(seq);
}

void SettablePolicy::Unpin(SequenceNumber seq) {
  std::lock_guard<std::mutex> lock(pinned_mu_);
  pinned_.erase(pinned_.find(seq));
}

KeyRecord* HashIndexHarness::Insert(const std::string& key, SequenceNumber seq) {
  KeyRecord* candidate = MakeRecord(&arena_, key, seq);
  return index.FindOrInsert(index.Hash(key), candidate, &LinkWon, this);
}

void HashIndexHarness::LinkWon(void* harness, KeyRecord* record) {
  auto* self = static_cast<HashIndexHarness*>(harness);
  EXPECT_EQ(record->state(), KeyRecord::kPending) << "a won record is linked before it is LIVE";
  self->skip_list.Insert(record);
  self->won_.fetch_add(1);
}

RepHarness::RepHarness(const TeksTableOptions& options,
                       std::shared_ptr<VersionDropPolicy> policy)
    : factory_(NewTeksTableFactoryWithDropPolicy(options, std::move(policy))),
      rep_(factory_->CreateMemTableRep(order_, &arena_, nullptr, nullptr)) {}

RepHarness::~RepHarness() { rep_.reset(); }

bool RepHarness::Add(const Slice& user_key, SequenceNumber seq, uint8_t type,
                     const Slice& value) {
  const std::string encoded = EncodeEntry(user_key, seq, type, value);
  char* buf = nullptr;
  ROCKSDB_NAMESPACE::KeyHandle handle = rep_->Allocate(encoded.size(), &buf);
  std::memcpy(buf, encoded.data(), encoded.size());
  return rep_->InsertKeyConcurrently(handle);
}

std::vector<std::string> RepHarness::GetEntries(const Slice& user_key, SequenceNumber seq,
                                                size_t max_entries) {
  struct Collector {
    std::vector<std::string> entries;
    size_t max;
  } collector{{}, max_entries};
  ROCKSDB_NAMESPACE::LookupKey key(user_key, seq);
  rep_->Get(key, &collector, [](void* arg, const char* entry) {
    auto* c = static_cast<Collector*>(arg);
    c->entries.push_back(DecodeEntry(entry).value);
    return c->entries.size() < c->max;
  });
  return collector.entries;
}

TeksTableOptions VariantTest::Options() const {
  TeksTableOptions options;
  EXPECT_TRUE(TeksTableOptions::ForVariant(GetParam(), &options)) << GetParam();
  return options;
}

std::string VariantTestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) c = (c == '-') ? '_' : c;
  return name;
}

TempDir::TempDir(const std::string& prefix) {
  std::random_device rd;
  path_ = (std::filesystem::temp_directory_path() /
           (prefix + "-" + std::to_string(rd()) + std::to_string(rd())))
              .string();
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace test
}  // namespace teksdb
