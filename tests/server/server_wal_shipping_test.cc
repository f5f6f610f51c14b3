// Tests of WAL shipping (server/replication: wal_reader.h, wal_applier.h)
// between two real databases, each under the TeksDB layer with TeksTable
// (as teksdb-server runs) and with the stock skip list: a replica made from
// a checkpoint of the primary, fed the primary's batches, holds exactly the
// primary's records at exactly the primary's sequence, across random
// writes (puts small and large, deletes, range deletes, several per batch),
// flushes and a replica restart, and while the reader tails a WAL being
// written and switched; a sequence the WAL no longer holds, or
// one inside a batch, is refused (Incomplete), never skipped; a batch out
// of order writes nothing.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/utilities/checkpoint.h"
#include "rocksdb/write_batch.h"
#include "teksdb/teks_db.h"
#include "teksdb/teks_table.h"
#include "test_support.h"
#include "wal_applier.h"
#include "wal_reader.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Options;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteBatch;
using test::ReplayHint;
using test::SeedFor;
using test::TempDir;
using test::VariantTestName;

class WalShippingTest : public ::testing::TestWithParam<std::string> {
 protected:
  // `keep_wal`: archived WAL files are kept (as a primary keeps them for
  // its replicas) rather than deleted after a flush.
  Options MakeOptions(bool keep_wal) const {
    Options options;
    options.create_if_missing = true;
    if (GetParam() == "teks") options.memtable_factory = teksdb::NewTeksTableFactory();
    if (keep_wal) {
      options.WAL_ttl_seconds = 3600;
      options.WAL_size_limit_MB = 1024;
    }
    return options;
  }
  Status Open(const std::string& path, bool keep_wal, std::unique_ptr<DB>* db) const {
    std::unique_ptr<TeksDB> teks;
    const Status s = TeksDB::Open(MakeOptions(keep_wal), path, &teks);
    *db = std::move(teks);
    return s;
  }

  // A random batch of 1-8 writes over a small key space.
  void WriteRandomBatch(DB* db) {
    WriteBatch batch;
    const int n = 1 + static_cast<int>(rng_() % 8);
    for (int i = 0; i < n; ++i) {
      const std::string key = "k" + std::to_string(rng_() % 200);
      switch (rng_() % 10) {
        case 0: ASSERT_TRUE(batch.Delete(key).ok()); break;
        case 1: ASSERT_TRUE(batch.Put(key, std::string(4096 + rng_() % 4096, 'x')).ok()); break;
        case 2: {
          const std::string end = "k" + std::to_string(rng_() % 200);
          if (key < end) {
            ASSERT_TRUE(batch.DeleteRange(key, end).ok());
          }
          break;
        }
        default: ASSERT_TRUE(batch.Put(key, "v" + std::to_string(rng_())).ok());
      }
    }
    ASSERT_TRUE(db->Write({}, &batch).ok());
  }

  static std::map<std::string, std::string> Records(DB* db) {
    std::map<std::string, std::string> records;
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(db->NewIterator({}));
    for (it->SeekToFirst(); it->Valid(); it->Next()) records[it->key().ToString()] = it->value().ToString();
    EXPECT_TRUE(it->status().ok());
    return records;
  }

  // Ships everything the primary's WAL holds past the replica's sequence.
  static void Ship(WalReader* reader, WalApplier* applier) {
    for (;;) {
      std::vector<ShippedBatch> batches;
      const Status s = reader->Read(64 * 1024, &batches);
      ASSERT_TRUE(s.ok()) << s.ToString();
      if (batches.empty()) return;
      for (const ShippedBatch& batch : batches) {
        const Status applied = applier->Apply(batch);
        ASSERT_TRUE(applied.ok()) << applied.ToString();
      }
    }
  }

  std::mt19937_64 rng_{SeedFor(20261127)};
  TempDir dir_{"wal-shipping"};
};

TEST_P(WalShippingTest, ReplicaFromACheckpointKeepsThePrimarysRecordsAndSequence) {
  SCOPED_TRACE(ReplayHint(SeedFor(20261127)));
  std::unique_ptr<DB> primary;
  ASSERT_TRUE(Open(dir_.path() + "/primary", true, &primary).ok());
  for (int i = 0; i < 300; ++i) WriteRandomBatch(primary.get());
  // The replica starts from a checkpoint taken while the primary writes on.
  ROCKSDB_NAMESPACE::Checkpoint* raw = nullptr;
  ASSERT_TRUE(ROCKSDB_NAMESPACE::Checkpoint::Create(primary.get(), &raw).ok());
  std::unique_ptr<ROCKSDB_NAMESPACE::Checkpoint> checkpoint(raw);
  uint64_t checkpoint_sequence = 0;
  ASSERT_TRUE(checkpoint->CreateCheckpoint(dir_.path() + "/replica", 0, &checkpoint_sequence).ok());
  for (int i = 0; i < 300; ++i) WriteRandomBatch(primary.get());
  ASSERT_TRUE(primary->Flush({}).ok());  // the WAL files go to the archive, kept
  for (int i = 0; i < 300; ++i) WriteRandomBatch(primary.get());

  std::unique_ptr<DB> replica;
  ASSERT_TRUE(Open(dir_.path() + "/replica", false, &replica).ok());
  ASSERT_EQ(replica->GetLatestSequenceNumber(), checkpoint_sequence);
  WalReader reader(primary.get(), checkpoint_sequence + 1);
  {
    WalApplier applier(replica.get(), false);
    Ship(&reader, &applier);
    EXPECT_EQ(applier.applied(), primary->GetLatestSequenceNumber());
    EXPECT_EQ(Records(replica.get()), Records(primary.get()));
  }
  // Caught up: nothing to read until the primary writes again.
  std::vector<ShippedBatch> none;
  ASSERT_TRUE(reader.Read(1 << 20, &none).ok());
  EXPECT_TRUE(none.empty());

  // The replica restarts and resumes from its own sequence.
  for (int i = 0; i < 100; ++i) WriteRandomBatch(primary.get());
  ASSERT_TRUE(replica->Close().ok());
  replica.reset();
  ASSERT_TRUE(Open(dir_.path() + "/replica", false, &replica).ok());
  WalReader resumed(primary.get(), replica->GetLatestSequenceNumber() + 1);
  WalApplier applier(replica.get(), true);
  Ship(&resumed, &applier);
  EXPECT_EQ(replica->GetLatestSequenceNumber(), primary->GetLatestSequenceNumber());
  EXPECT_EQ(Records(replica.get()), Records(primary.get()));
}

// The reader tails the WAL while a writer appends to it and switches it
// (flushes): batch by batch, none skipped or shipped twice.
TEST_P(WalShippingTest, TailsTheWalWhileItIsWrittenAndSwitched) {
  SCOPED_TRACE(ReplayHint(SeedFor(20261127)));
  std::unique_ptr<DB> primary, replica;
  ASSERT_TRUE(Open(dir_.path() + "/primary", true, &primary).ok());
  ASSERT_TRUE(Open(dir_.path() + "/replica", false, &replica).ok());
  WalReader reader(primary.get(), 1);
  WalApplier applier(replica.get(), false);
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 1 + round % 5; ++i) WriteRandomBatch(primary.get());
    if (round % 10 == 9) {
      ASSERT_TRUE(primary->Flush({}).ok());  // a new WAL file
    }
    std::vector<ShippedBatch> batches;
    const Status s = reader.Read(1 + round * 64, &batches);  // small reads, then larger
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (const ShippedBatch& batch : batches) ASSERT_TRUE(applier.Apply(batch).ok());
  }
  Ship(&reader, &applier);
  EXPECT_EQ(applier.applied(), primary->GetLatestSequenceNumber());
  EXPECT_EQ(Records(replica.get()), Records(primary.get()));
}

TEST_P(WalShippingTest, ASequenceTheWalNoLongerHoldsIsRefused) {
  std::unique_ptr<DB> primary;
  ASSERT_TRUE(Open(dir_.path() + "/primary", false, &primary).ok());
  for (int i = 0; i < 50; ++i) WriteRandomBatch(primary.get());
  const Status flushed = primary->Flush({});
  ASSERT_TRUE(flushed.ok()) << flushed.ToString();  // no archive: the WAL files go
  for (int i = 0; i < 50; ++i) WriteRandomBatch(primary.get());
  WalReader reader(primary.get(), 1);
  std::vector<ShippedBatch> batches;
  const Status s = reader.Read(1 << 20, &batches);
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(reader.next(), 1u);
}

TEST_P(WalShippingTest, ASequenceInsideABatchIsRefused) {
  std::unique_ptr<DB> primary;
  ASSERT_TRUE(Open(dir_.path() + "/primary", true, &primary).ok());
  WriteBatch batch;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(batch.Put("k" + std::to_string(i), "v").ok());
  ASSERT_TRUE(primary->Write({}, &batch).ok());  // sequences 1-4
  WalReader reader(primary.get(), 3);
  std::vector<ShippedBatch> batches;
  EXPECT_TRUE(reader.Read(1 << 20, &batches).IsIncomplete());
  EXPECT_TRUE(batches.empty());
}

TEST_P(WalShippingTest, ABatchOutOfOrderWritesNothing) {
  std::unique_ptr<DB> primary, replica;
  ASSERT_TRUE(Open(dir_.path() + "/primary", true, &primary).ok());
  ASSERT_TRUE(Open(dir_.path() + "/replica", false, &replica).ok());
  for (int i = 0; i < 20; ++i) WriteRandomBatch(primary.get());
  WalReader reader(primary.get(), 1);
  std::vector<ShippedBatch> batches;
  ASSERT_TRUE(reader.Read(1 << 20, &batches).ok());
  ASSERT_GE(batches.size(), 3u);
  WalApplier applier(replica.get(), false);
  ASSERT_TRUE(applier.Apply(batches[0]).ok());
  EXPECT_TRUE(applier.Apply(batches[2]).IsIncomplete());  // batches[1] skipped
  EXPECT_TRUE(applier.Apply(batches[0]).IsIncomplete());  // repeated
  EXPECT_EQ(applier.applied(), batches[1].sequence - 1);
  ShippedBatch truncated{batches[1].sequence, batches[1].data.substr(0, 5)};
  EXPECT_TRUE(applier.Apply(truncated).IsCorruption());
  EXPECT_EQ(applier.applied(), batches[1].sequence - 1);
  for (size_t i = 1; i < batches.size(); ++i) ASSERT_TRUE(applier.Apply(batches[i]).ok());
  EXPECT_EQ(Records(replica.get()), Records(primary.get()));
}

INSTANTIATE_TEST_SUITE_P(Memtables, WalShippingTest, ::testing::Values("teks", "skiplist"),
                         VariantTestName);

}  // namespace
}  // namespace teksdb::server
