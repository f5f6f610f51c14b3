// Read-your-own-writes for ordered reads, per paper variant, through a real
// DB with unordered_write (which RocksDB documents as keeping it).
//
// Two writers put the same fresh keys at about the same time, so one of them
// creates a key's record and the other updates it; right after its Put each
// writer seeks to the key with a new iterator and must land on it, as Get
// does. (An updater used to find a new record in the hash before its creator
// had queued it for the skip list, and its iterator skipped the key.)
//
// Bounded by operation counts, never by time; meant for ThreadSanitizer too.
#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rocksdb/db.h"
#include "teksdb/teks_table.h"
#include "teksdb/open_db.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteOptions;

constexpr int kWriters = 2;
constexpr int kKeys = 6000;

class ConcurrentReadYourWritesTest : public test::VariantTest {};

TEST_P(ConcurrentReadYourWritesTest, AnIteratorCreatedAfterAPutSeesItsKey) {
  test::TempDir dir("teksdb-ryw");
  ROCKSDB_NAMESPACE::Options db_options;
  db_options.create_if_missing = true;
  db_options.unordered_write = true;
  db_options.memtable_factory = NewTeksTableFactory(Options());
  std::unique_ptr<DB> db;
  ASSERT_TRUE(OpenDB(db_options, dir.path(), &db).ok());

  std::mutex mu;
  std::vector<std::string> errors;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      WriteOptions write_options;
      write_options.disableWAL = true;
      for (int i = 0; i < kKeys; ++i) {
        const std::string key = "k" + std::to_string(i);
        if (!db->Put(write_options, key, std::to_string(w)).ok()) {
          std::lock_guard<std::mutex> lock(mu);
          errors.push_back("Put failed on " + key);
          return;
        }
        std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator(ReadOptions()));
        it->Seek(key);
        if (!it->Valid() || it->key() != key) {
          std::lock_guard<std::mutex> lock(mu);
          errors.push_back("writer " + std::to_string(w) + " put " + key +
                           " and its next Seek landed on " +
                           (it->Valid() ? it->key().ToString() : std::string("nothing")));
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_TRUE(errors.empty()) << errors.size() << " misses, first: " << errors.front();
}

INSTANTIATE_TEST_SUITE_P(PaperVariants, ConcurrentReadYourWritesTest,
                         ::testing::Values("teks-s", "teks-a", "teks-ac", "teks-acsp",
                                           "teks-acsp-in"),
                         test::VariantTestName);

}  // namespace
}  // namespace teksdb
