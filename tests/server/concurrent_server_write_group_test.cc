// Tests of teksdb-server's WriteGroup (write_group.h) through Keyspace's
// group views, on a real RocksDB (a thread of their own waits on a key lock,
// so also under ThreadSanitizer): writes staged in a group are read back
// through its view and by nobody else until the group flushes, in one
// write; a group that needs a key another group holds flushes what it
// staged before it waits; a transaction that holds the whole keyspace
// (every gate) keeps every other writer, grouped or not, waiting until it
// flushes; a flush that fails rewrites the replies it
// vouched for, from the first command that staged a write on, and leaves
// the ones before alone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "keyspace.h"
#include "resp_reply.h"
#include "rocksdb/db.h"
#include "server_test_support.h"
#include "test_support.h"
#include "write_group.h"

namespace teksdb::server {
namespace {

class WriteGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(OpenPreparedDB(ROCKSDB_NAMESPACE::Options(), dir_.path(), &db_).ok());
    keyspace_ = std::make_unique<Keyspace>(db_.get(), false);
  }

  static void PutString(Keyspace& view, const std::string& key, const std::string& value) {
    auto locks = view.LockKeys({key});
    Keyspace::Batch batch;
    batch.Put(key, Keyspace::Value{Keyspace::kString, 0, value});
    ASSERT_TRUE(view.Commit(&batch).ok());
  }

  static std::string ReadString(const Keyspace& view, const std::string& key) {
    std::optional<Keyspace::Value> value;
    EXPECT_TRUE(view.Read(key, &value).ok());
    return value ? value->payload : "(none)";
  }

  test::TempDir dir_{"teksdb-write-group"};
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db_;
  std::unique_ptr<Keyspace> keyspace_;
};

TEST_F(WriteGroupTest, StagedWritesAreReadThroughTheGroupOnlyUntilItFlushes) {
  std::string out;
  WriteGroup group(&out);
  Keyspace view = keyspace_->InGroup(&group);
  PutString(view, "a", "1");
  PutString(view, "b", "2");
  EXPECT_EQ(ReadString(view, "a"), "1");
  EXPECT_EQ(ReadString(*keyspace_, "a"), "(none)");
  const uint64_t sequence = db_->GetLatestSequenceNumber();
  ASSERT_TRUE(view.FlushGroup().ok());
  EXPECT_EQ(ReadString(*keyspace_, "a"), "1");
  EXPECT_EQ(ReadString(*keyspace_, "b"), "2");
  EXPECT_EQ(db_->GetLatestSequenceNumber(), sequence + 2);  // one write of both
  // The group let go of its stripes: the server's own view locks them.
  auto locks = keyspace_->LockKeys({"a", "b"});
  EXPECT_FALSE(locks.stripes.empty());
  EXPECT_TRUE(locks.gate.owns_lock());
}

TEST_F(WriteGroupTest, AGroupFlushesWhatItStagedBeforeWaitingForAKeyAnotherHolds) {
  std::string out_a, out_b;
  WriteGroup a(&out_a), b(&out_b);
  Keyspace view_a = keyspace_->InGroup(&a), view_b = keyspace_->InGroup(&b);
  PutString(view_a, "contended", "from a");
  std::atomic<bool> b_done{false};
  std::thread other([&] {
    PutString(view_b, "b-only", "staged by b");
    PutString(view_b, "contended", "from b");  // flushes b-only, then waits for a
    b_done = true;
    ASSERT_TRUE(view_b.FlushGroup().ok());
  });
  for (int i = 0; i < 500 && ReadString(*keyspace_, "b-only") == "(none)"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(ReadString(*keyspace_, "b-only"), "staged by b");
  EXPECT_FALSE(b_done.load());
  ASSERT_TRUE(view_a.FlushGroup().ok());
  other.join();
  EXPECT_EQ(ReadString(*keyspace_, "contended"), "from b");
}

TEST_F(WriteGroupTest, AWholeKeyspaceTransactionKeepsEveryOtherWriterOut) {
  std::string out_a, out_b;
  WriteGroup a(&out_a), b(&out_b);
  Keyspace view_a = keyspace_->InGroup(&a), view_b = keyspace_->InGroup(&b);
  view_a.BeginTransaction({}, /*whole_keyspace=*/true);
  PutString(view_a, "x", "in the transaction");  // needs no lock of its own
  std::atomic<bool> b_wrote{false}, sweeper_wrote{false};
  std::thread writer([&] {
    PutString(view_b, "y", "from b");
    b_wrote = true;
    ASSERT_TRUE(view_b.FlushGroup().ok());
  });
  std::thread sweeper([&] {  // a writer without a group (the server's view)
    auto locks = keyspace_->LockKeys({"z"});
    sweeper_wrote = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(b_wrote.load());
  EXPECT_FALSE(sweeper_wrote.load());
  view_a.EndTransaction();
  ASSERT_TRUE(view_a.FlushGroup().ok());  // lets go of every gate
  writer.join();
  sweeper.join();
  EXPECT_EQ(ReadString(*keyspace_, "x"), "in the transaction");
  EXPECT_EQ(ReadString(*keyspace_, "y"), "from b");
}

TEST_F(WriteGroupTest, AFailedFlushRewritesTheRepliesItVouchedFor) {
  ASSERT_TRUE(db_->Close().ok());
  db_.reset();
  keyspace_.reset();
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> read_only;
  ASSERT_TRUE(teksdb::OpenDBReadOnly({}, dir_.path(), &read_only).ok());
  Keyspace keyspace(read_only.get(), false);
  std::string out;
  WriteGroup group(&out);
  Keyspace view = keyspace.InGroup(&group);
  group.BeginCommand();
  reply::Bulk(&out, "a read before any write");
  group.EndCommand();
  group.BeginCommand();
  PutString(view, "k", "v");
  reply::Ok(&out);
  group.EndCommand();
  group.BeginCommand();
  reply::Bulk(&out, ReadString(view, "k"));  // saw the staged write
  group.EndCommand();
  EXPECT_FALSE(view.FlushGroup().ok());
  const std::string before = "$23\r\na read before any write\r\n";
  ASSERT_EQ(out.substr(0, before.size()), before);
  const std::string rest = out.substr(before.size());
  const size_t first_end = rest.find("\r\n") + 2;
  EXPECT_EQ(rest.substr(0, 13), "-ERR storage:");
  EXPECT_EQ(rest.substr(first_end, 13), "-ERR storage:");
  EXPECT_EQ(rest.find("\r\n", first_end) + 2, rest.size());  // two replies, nothing else
}

}  // namespace
}  // namespace teksdb::server
