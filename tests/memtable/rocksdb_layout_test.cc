// Checks TeksTable's private copies of RocksDB's LookupKey, Allocator and
// MemTable::KeyComparator layouts (memtable/rocksdb_internals.h) against the
// installed librocksdb: a LookupKey built by the library's own constructor
// decodes through our accessors, the Allocator a real DB hands a memtable
// answers our virtual calls from the right vtable slots, and the user
// comparator read from the KeyComparator a real DB hands a memtable is the
// column family's (so TeksTable's anchors are on for BytewiseComparator
// alone).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rocksdb/comparator.h"
#include "key_order.h"
#include "rocksdb/db.h"
#include "rocksdb_internals.h"
#include "teks_table_rep.h"
#include "teksdb/teks_table.h"
#include "teksdb/open_db.h"
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
    const EntryView view = EntryView::Decode(key.memtable_key().data());
    EXPECT_EQ(view.internal_key.data(), key.internal_key().data());
    EXPECT_EQ(view.sequence(), 4242u);
    // Seeks use the largest value type, so every entry at the sequence is
    // at or after the lookup key.
    EXPECT_EQ(view.type(), kEntryTypeForSeek);
  }
}

// Wraps TeksTable's factory, so that a test sees what RocksDB passes to
// CreateMemTableRep (Observe) and keeps the rep it made.
class TeksFactoryProbe : public ROCKSDB_NAMESPACE::MemTableRepFactory {
 public:
  bool IsInsertConcurrentlySupported() const override { return true; }
  bool CanHandleDuplicatedKey() const override { return true; }
  using MemTableRepFactory::CreateMemTableRep;
  ROCKSDB_NAMESPACE::MemTableRep* CreateMemTableRep(
      const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
      ROCKSDB_NAMESPACE::Allocator* allocator,
      const ROCKSDB_NAMESPACE::SliceTransform* transform,
      ROCKSDB_NAMESPACE::Logger* logger) final {
    Observe(cmp, allocator);
    ROCKSDB_NAMESPACE::MemTableRep* rep =
        inner_->CreateMemTableRep(cmp, allocator, transform, logger);
    last_rep = static_cast<TeksTableRep*>(rep);
    return rep;
  }

  std::atomic<TeksTableRep*> last_rep{nullptr};

 protected:
  virtual void Observe(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
                       ROCKSDB_NAMESPACE::Allocator* allocator) = 0;

 private:
  std::shared_ptr<MemTableRepFactory> inner_ = NewTeksTableFactory();
};

// Probes the Allocator RocksDB passes in.
class AllocatorProbe : public TeksFactoryProbe {
 public:
  const char* Name() const override { return "AllocatorProbe"; }

  std::atomic<size_t> block_size{0};
  std::atomic<bool> aligned_ok{false};
  std::atomic<bool> allocate_ok{false};

 private:
  void Observe(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& /*cmp*/,
               ROCKSDB_NAMESPACE::Allocator* allocator) override {
    block_size = allocator->BlockSize();
    char* aligned = allocator->AllocateAligned(24);
    char* unaligned = allocator->Allocate(3);
    aligned_ok = aligned != nullptr && reinterpret_cast<uintptr_t>(aligned) % 8 == 0;
    allocate_ok = unaligned != nullptr && unaligned != aligned;
    std::memset(aligned, 0xab, 24);  // ASan flags memory we do not own
    std::memset(unaligned, 0xcd, 3);
  }
};

TEST(RocksDBLayoutTest, TheMemTablesAllocatorAnswersFromTheRightVtableSlots) {
  test::TempDir dir("teks-layout");
  auto probe = std::make_shared<AllocatorProbe>();
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.arena_block_size = 64 << 10;
  options.memtable_factory = probe;
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ASSERT_TRUE(OpenDB(options, dir.path(), &db).ok());
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
  db.reset();
}

// Reads the user comparator out of the KeyComparator RocksDB passes in.
class ComparatorProbe : public TeksFactoryProbe {
 public:
  const char* Name() const override { return "ComparatorProbe"; }

  std::atomic<const ROCKSDB_NAMESPACE::Comparator*> user_comparator{nullptr};

 private:
  void Observe(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
               ROCKSDB_NAMESPACE::Allocator* /*allocator*/) override {
    user_comparator = ROCKSDB_NAMESPACE::UserComparatorOf(cmp);
  }
};

// Bytewise order under another name: TeksTable cannot know that it is.
class BytewiseLookalike : public ROCKSDB_NAMESPACE::Comparator {
 public:
  const char* Name() const override { return "test.BytewiseLookalike"; }
  int Compare(const ROCKSDB_NAMESPACE::Slice& a,
              const ROCKSDB_NAMESPACE::Slice& b) const override {
    return a.compare(b);
  }
  void FindShortestSeparator(std::string*, const ROCKSDB_NAMESPACE::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// The user comparators the comparator tests open DBs with: RocksDB's
// bytewise order, its reverse, and bytewise order under another name.
std::vector<const ROCKSDB_NAMESPACE::Comparator*> UserComparators() {
  static const BytewiseLookalike lookalike;
  return {ROCKSDB_NAMESPACE::BytewiseComparator(), ROCKSDB_NAMESPACE::ReverseBytewiseComparator(),
          &lookalike};
}

// Opens a new DB at `path` ordered by `user`, whose memtables `factory`
// makes.
ROCKSDB_NAMESPACE::Status OpenOrderedBy(
    const std::string& path, const ROCKSDB_NAMESPACE::Comparator* user,
    std::shared_ptr<ROCKSDB_NAMESPACE::MemTableRepFactory> factory,
    std::unique_ptr<ROCKSDB_NAMESPACE::DB>* db) {
  ROCKSDB_NAMESPACE::Options options;
  options.create_if_missing = true;
  options.comparator = user;
  options.memtable_factory = std::move(factory);
  return OpenDB(options, path, db);
}

// Whether TeksTable, as linked here, can recognise RocksDB's
// MemTable::KeyComparator (rocksdb_internals.cc): inside RocksDB's tree
// always (by its vtable); outside only where RocksDB exports type info
// (the build defines TEKSDB_KEY_COMPARATOR_RECOGNISED, cmake/rocksdb.cmake).
// Unrecognised, TeksTable orders through RocksDB's comparator: correct,
// without the bytewise fast paths.
constexpr bool kKeyComparatorRecognised = TEKSDB_KEY_COMPARATOR_RECOGNISED;

TEST(RocksDBLayoutTest, TheMemTablesKeyComparatorHoldsTheColumnFamilysComparator) {
  for (const ROCKSDB_NAMESPACE::Comparator* user : UserComparators()) {
    SCOPED_TRACE(user->Name());
    test::TempDir dir("teks-layout-cmp");
    auto probe = std::make_shared<ComparatorProbe>();
    std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
    ASSERT_TRUE(OpenOrderedBy(dir.path(), user, probe, &db).ok());
    EXPECT_EQ(probe->user_comparator.load(), kKeyComparatorRecognised ? user : nullptr);
    const bool bytewise =
        kKeyComparatorRecognised && user == ROCKSDB_NAMESPACE::BytewiseComparator();
    TeksTableRep* rep = probe->last_rep.load();
    ASSERT_NE(rep, nullptr);
    EXPECT_EQ(rep->ordered_index().anchors().enabled(), bytewise);
    // Enough keys for the first build, which only a bytewise memtable does;
    // its arrays count in the memtable's size (they are in its arena).
    for (int i = 0; i < 20000; ++i) {
      ASSERT_TRUE(db->Put({}, "key" + std::to_string(i), "v").ok());
    }
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
    it->Seek("key1");  // links every key
    ASSERT_TRUE(it->Valid());
    it.reset();
    EXPECT_EQ(rep->ordered_index().anchors().builds() > 0, bytewise);
    uint64_t memtable_bytes = 0;
    ASSERT_TRUE(db->GetIntProperty("rocksdb.cur-size-active-mem-table", &memtable_bytes));
    EXPECT_GE(memtable_bytes, rep->ordered_index().anchors().ArenaBytes());
    // Sealed, the memtable's arena takes no more arrays, however many
    // records are linked after (here: written after, which RocksDB never
    // does; the linker and flushes link late records).
    const uint64_t builds = rep->ordered_index().anchors().builds();
    rep->MarkReadOnly();
    for (int i = 20000; i < 100000; ++i) {
      ASSERT_TRUE(db->Put({}, "key" + std::to_string(i), "v").ok());
    }
    rep->WaitUntilLinked();
    EXPECT_EQ(rep->ordered_index().anchors().builds(), builds);
  }
}

// Compares entries with RocksDB's own KeyComparator and with KeyOrder built
// from it, and counts the pairs they order differently.
class KeyOrderProbe : public TeksFactoryProbe {
 public:
  const char* Name() const override { return "KeyOrderProbe"; }

  std::atomic<int> compared{0};
  std::atomic<int> disagreements{0};
  std::atomic<bool> inline_order{false};

 private:
  void Observe(const ROCKSDB_NAMESPACE::MemTableRep::KeyComparator& cmp,
               ROCKSDB_NAMESPACE::Allocator* /*allocator*/) override {
    const KeyOrder order(cmp);
    inline_order = order.bytewise();
    // Short keys over a small alphabet: equal keys, prefixes, bytes above
    // 0x7f; sequences and types that tie.
    std::mt19937 random(7);
    const char alphabet[] = {'\0', 'a', 'b', '\x7f', '\x80', '\xff'};
    auto random_entry = [&] {
      std::string key(random() % 4, '\0');
      for (char& c : key) c = alphabet[random() % sizeof(alphabet)];
      const uint8_t types[] = {kEntryDeletion, kEntryValue, kEntryMerge, kEntrySingleDeletion};
      return EncodeEntry(key, random() % 4, types[random() % 4], "v");
    };
    auto sign = [](int r) { return (r > 0) - (r < 0); };
    for (int i = 0; i < 20000; ++i) {
      const std::string a = random_entry();
      const std::string b = random_entry();
      const Slice b_internal_key = EntryView::Decode(b.data()).internal_key;
      disagreements += sign(order.Compare(a.data(), b.data())) != sign(cmp(a.data(), b.data()));
      disagreements +=
          sign(order.Compare(a.data(), b_internal_key)) != sign(cmp(a.data(), b_internal_key));
      compared += 2;
    }
  }
};

TEST(RocksDBLayoutTest, KeyOrderOrdersEntriesAsTheMemTablesKeyComparator) {
  for (const ROCKSDB_NAMESPACE::Comparator* user : UserComparators()) {
    SCOPED_TRACE(user->Name());
    test::TempDir dir("teks-layout-order");
    auto probe = std::make_shared<KeyOrderProbe>();
    std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
    ASSERT_TRUE(OpenOrderedBy(dir.path(), user, probe, &db).ok());
    EXPECT_EQ(probe->inline_order.load(),
              kKeyComparatorRecognised && user == ROCKSDB_NAMESPACE::BytewiseComparator());
    EXPECT_GT(probe->compared.load(), 0);
    EXPECT_EQ(probe->disagreements.load(), 0);
  }
}

TEST(RocksDBLayoutTest, AKeyComparatorNotFromRocksDBHasNoKnownUserComparator) {
  test::InternalKeyOrder order;  // bytewise, but only this test knows it
  EXPECT_EQ(ROCKSDB_NAMESPACE::UserComparatorOf(order), nullptr);
}

}  // namespace
}  // namespace teksdb
