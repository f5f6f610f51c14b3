// Tests of RetiredMemory: retired blocks are handed out only once no reader
// that entered before the retirement is left, front to back, aligned and
// without overlap; a rep whose hash outgrew its tables builds records in
// them and still finds every key.
#include "retired_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "teks_table_rep.h"
#include "test_support.h"

namespace teksdb {
namespace {

// Takes until the block is handed out (each try may move the epoch on);
// nullptr if it never is within `tries`.
char* TakeWithin(RetiredMemory* memory, size_t bytes, int tries) {
  for (int i = 0; i < tries; ++i) {
    if (char* m = memory->Take(bytes)) return m;
  }
  return nullptr;
}

class RetiredMemoryTest : public ::testing::Test {
 protected:
  ReaderEpochs epochs;
  RetiredMemory memory{&epochs};
};

TEST_F(RetiredMemoryTest, NothingRetiredGivesNothing) {
  EXPECT_EQ(memory.Take(64), nullptr);
  EXPECT_EQ(memory.reused_bytes(), 0u);
}

TEST_F(RetiredMemoryTest, WaitsForReadersThatEnteredBeforeTheRetirement) {
  alignas(8) static char block[4096];
  const ReaderEpochs::Ticket reader = epochs.Enter();
  memory.Retire(block, sizeof(block));
  EXPECT_EQ(TakeWithin(&memory, 64, 10000), nullptr) << "a reader may still scan it";
  epochs.Leave(reader);
  char* first = TakeWithin(&memory, 64, 10000);
  ASSERT_EQ(first, block);
  EXPECT_EQ(memory.reused_bytes(), 64u);
}

TEST_F(RetiredMemoryTest, HandsOutEachByteOnceAlignedFrontToBack) {
  alignas(8) static char first_block[1000], second_block[1000];
  memory.Retire(first_block, sizeof(first_block));
  memory.Retire(second_block, sizeof(second_block));
  std::vector<char*> taken;
  size_t bytes = 0;
  // 45 bytes, rounded up to 48: 20 fit a block, the rest of it (40) is left.
  for (char* m = TakeWithin(&memory, 45, 1000); m != nullptr; m = TakeWithin(&memory, 45, 1000)) {
    taken.push_back(m);
    bytes += 48;
  }
  ASSERT_EQ(taken.size(), 40u);
  for (size_t i = 0; i < taken.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(taken[i]) % 8, 0u);
    char* block = i < 20 ? first_block : second_block;
    EXPECT_EQ(taken[i], block + 48 * (i % 20)) << i;
  }
  EXPECT_EQ(memory.reused_bytes(), bytes);
  EXPECT_EQ(memory.Take(8), nullptr) << "everything handed out";
}

// An allocation larger than what a block has left goes to the arena (Take
// gives nothing) and leaves the blocks to the small ones that follow.
TEST_F(RetiredMemoryTest, ALargeAllocationLeavesTheBlocksToSmallOnes) {
  alignas(8) static char first_block[4096], second_block[512];
  memory.Retire(first_block, sizeof(first_block));
  memory.Retire(second_block, sizeof(second_block));
  ASSERT_EQ(TakeWithin(&memory, 48, 1000), first_block);
  EXPECT_EQ(memory.Take(4096), nullptr) << "larger than the block's rest";
  EXPECT_EQ(memory.Take(48), first_block + 48) << "the block was kept";
  EXPECT_EQ(memory.Take(4000 - 48), first_block + 96);
  // 48 bytes are left: a 100-byte allocation drops them for the next block.
  EXPECT_EQ(memory.Take(100), second_block);
  EXPECT_EQ(memory.Take(1000), nullptr) << "larger than any block: nothing dropped";
  EXPECT_EQ(memory.Take(8), second_block + 104);
}

// A memtable whose hash started small and grew (the first memtable of a
// factory, or one holding more keys than the last) builds records in the
// tables it replaced, and every key stays readable.
TEST_F(RetiredMemoryTest, ARepBuildsRecordsInItsReplacedHashTables) {
  test::RepHarness h;
  auto& rep = static_cast<TeksTableRep&>(h.rep());
  const size_t first_capacity = rep.HashCapacity();
  constexpr int kKeys = 200000;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_TRUE(h.Add("key" + std::to_string(i), i + 1, kEntryValue, "v" + std::to_string(i)));
  }
  ASSERT_GT(rep.HashCapacity(), 2 * first_capacity) << "the hash was replaced twice or more";
  // At least the first table's slots (8 bytes each) went to records.
  EXPECT_GE(rep.ReusedHashBytes(), first_capacity * 8);
  for (int i = 0; i < kKeys; ++i) {
    const std::vector<std::string> values = h.GetEntries("key" + std::to_string(i), kKeys, 1);
    ASSERT_EQ(values, std::vector<std::string>{"v" + std::to_string(i)}) << i;
  }
}

}  // namespace
}  // namespace teksdb
