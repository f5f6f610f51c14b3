// Checks TeksTable's private copies of RocksDB's LookupKey and Allocator
// layouts (memtable/rocksdb_internals.h) against the installed librocksdb:
// a LookupKey built by the library's own constructor decodes through our
// accessors, and the Allocator a real DB hands a memtable answers our
// virtual calls from the right vtable slots.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "rocksdb/db.h"
#include "rocksdb_internals.h"
#include "teksdb/teks_table.h"
#include "test_support.h"

namespace teksdb {
namespace {

TEST(RocksDBLayoutTest, LookupKeyFromTheLibraryDecodesThroughOurAccessors) {
  for (size_t len : {size_t{0}, size_t{5}, size_t{300}}) {  // inline and heap buffers
    const std::string user_key(len, 'x');
    ROCKSDB_NAMESPACE::LookupKey key(user_key, 4242);
    EXPECT_EQ(key.user_key().ToString(), user_key);
    ASSERT_EQ(key.internal_key().size(), len + 8);
    EXPECT_EQ(std::memcmp(key.internal_key().data(), user_key.data(), len), 0);
    const EntryView view = EntryView::Decode(key.memtable_key());
    EXPECT_EQ(view.internal_key.data(), key.internal_key().data());
    EXPECT_EQ(view.sequence(), 4242u);
    // Seeks use the largest value type, so every entry at the sequence is
    // at or after the lookup key.
    EXPECT_EQ(view.type(), kEntryWideColumnEntity);
  }
}

// Wraps TeksTable's factory to probe the Allocator RocksDB passes in.
class AllocatorProbe : public ROCKSDB_NAMESPACE::MemTableRepFactory {
 public:
  const char* Name() const override { return "AllocatorProbe"; }
  bool IsInsertConcurrentlySupported() const override { return true; }
  bool CanHandleDuplicatedKey() const override { return true; }
  using MemTableRepFactory::CreateMemTableRep;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
      ROCKSDB_NAMESPACE::Allocator* allocator,
      const ROCKSDB_NAMESPACE::SliceTransform* transform,
      ROCKSDB_NAMESPACE::Logger* logger) override {
    block_size = allocator->BlockSize();
    char* aligned = allocator->AllocateAligned(24);
    char* unaligned = allocator->Allocate(3);
    aligned_ok = aligned != nullptr && reinterpret_cast<uintptr_t>(aligned) % 8 == 0;
    allocate_ok = unaligned != nullptr && unaligned != aligned;
    std::memset(aligned, 0xab, 24);  // ASan flags memory we do not own
    std::memset(unaligned, 0xcd, 3);
    return inner->CreateMemTableRep(cmp, allocator, transform, logger);
  }

  std::shared_ptr<MemTableRepFactory> inner = NewTeksTableFactory();
  std::atomic<size_t> block_size{0};
  std::atomic<bool> aligned_ok{false};
  std::atomic<bool> allocate_ok{false};
};

TEST(RocksDBLayoutTest, TheMemTablesAllocatorAnswersFromTheRightVtableSlots) {
  test::TempDir dir("teks-layout");
  auto probe = std::make_shared<AllocatorProbe>();
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.arena_block_size = 64 << 10;
  options.memtable_factory = probe;
  ROCKSDB_NAMESPACE::DB* db = nullptr;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::DB::Open(options, dir.path(), &db).ok());
  EXPECT_EQ(probe->block_size.load(), size_t{64 << 10});
  EXPECT_TRUE(probe->aligned_ok.load());
  EXPECT_TRUE(probe->allocate_ok.load());
  // Entries allocated through the same Allocator read back intact, through
  // Get and through an iterator RocksDB places in its own Arena.
  ASSERT_TRUE(db->Put({}, "key", "value").ok());
  std::string value;
  ASSERT_TRUE(db->Get({}, "key", &value).ok());
  EXPECT_EQ(value, "value");
  std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), "key");
  it.reset();
  delete db;
}

}  // namespace
}  // namespace teksdb
