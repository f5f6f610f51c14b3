// TeksTableRep's batched and checked reads, on every RocksDB release
// (they are what MemTableRep::MultiGet, GetAndValidate and the iterators'
// *AndValidate steps forward to where RocksDB has them, rocksdb_version.h):
//   - MultiGetChecked visits, for every key of a batch, exactly what Get
//     visits (random keys, present and absent, many versions, any reader
//     sequence, callbacks that stop early), in batches of any size;
//   - a failed entry check stops Get and MultiGet with its status;
//   - SeekChecked and StepChecked move exactly as Seek, Next and Prev, and
//     a failed check leaves the iterator invalid;
//   - a seek given only the memtable key (as RocksDB's default MultiGet
//     does) lands where the internal key would.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "teks_table_iterator.h"
#include "teks_table_rep.h"
#include "test_support.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::LookupKey;
using ROCKSDB_NAMESPACE::Status;
using test::RepHarness;

// What one lookup's callback saw: the entries' bytes, up to a limit (as
// RocksDB's SaveValue stops at a value, or goes on through merge operands).
struct Visits {
  std::vector<std::string> entries;
  size_t limit = ~size_t{0};
};

bool Record(void* arg, const char* entry) {
  auto* v = static_cast<Visits*>(arg);
  v->entries.push_back(EntryView::Decode(entry).internal_key.ToString());
  return v->entries.size() < v->limit;
}

std::string Key(uint32_t i) { return "key" + std::to_string(i); }

class RepCheckedReadsTest : public test::VariantTest {
 protected:
  // kKeys keys, each with 1-6 versions (some merge operands) at sequences
  // up to about kKeys * 4; even keys only, so odd ones are absent.
  void Fill(RepHarness* h) {
    std::mt19937_64 rng(test::SeedFor(20261125));
    SequenceNumber seq = 1;
    for (uint32_t round = 0; round < 6; ++round) {
      for (uint32_t k = 0; k < kKeys; k += 2) {
        if (round > 0 && rng() % 3 == 0) continue;
        const uint8_t type = rng() % 4 == 0 ? kEntryMerge : kEntryValue;
        ASSERT_TRUE(h->Add(Key(k), seq, type, "v" + std::to_string(seq)));
        ++seq;
      }
    }
    last_seq_ = seq;
  }

  TeksTableRep& Rep(RepHarness* h) { return static_cast<TeksTableRep&>(h->rep()); }

  static constexpr uint32_t kKeys = 2000;
  SequenceNumber last_seq_ = 0;
};

TEST_P(RepCheckedReadsTest, MultiGetVisitsWhatGetVisits) {
  RepHarness h(Options());
  Fill(&h);
  std::mt19937_64 rng(test::SeedFor(7));
  SCOPED_TRACE(test::ReplayHint(7));
  for (size_t batch : {1, 7, 32, 33, 100}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::unique_ptr<LookupKey>> lookups;
      std::vector<Visits> want(batch), got(batch);
      std::vector<const char*> keys;
      std::vector<void*> args;
      for (size_t i = 0; i < batch; ++i) {
        const SequenceNumber at = 1 + rng() % (last_seq_ + 2);
        lookups.push_back(std::make_unique<LookupKey>(Key(rng() % (kKeys + 10)), at));
        const size_t limit = 1 + rng() % 4;
        want[i].limit = got[i].limit = limit;
        Rep(&h).Get(*lookups.back(), &want[i], Record);
        keys.push_back(lookups.back()->memtable_key().data());
        args.push_back(&got[i]);
      }
      ASSERT_TRUE(Rep(&h).MultiGetChecked(batch, keys.data(), args.data(), Record, EntryChecks())
                      .ok());
      for (size_t i = 0; i < batch; ++i) {
        EXPECT_EQ(got[i].entries, want[i].entries) << "batch " << batch << " key " << i;
      }
    }
  }
}

TEST_P(RepCheckedReadsTest, OrderCheckPassesOnAHealthyMemtable) {
  RepHarness h(Options());
  Fill(&h);
  EntryChecks checks;
  checks.check_order = true;
  for (uint32_t k = 0; k < kKeys; k += 3) {
    LookupKey lookup(Key(k), last_seq_);
    Visits all;
    ASSERT_TRUE(Rep(&h).GetChecked(lookup, &all, Record, checks).ok());
    Visits plain;
    Rep(&h).Get(lookup, &plain, Record);
    EXPECT_EQ(all.entries, plain.entries);
  }
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(Rep(&h).GetIterator(nullptr));
  auto* checked = static_cast<TeksTableIterator*>(it.get());
  LookupKey first(Key(0), last_seq_);
  ASSERT_TRUE(checked->SeekChecked(first.internal_key(), checks).ok());
  size_t steps = 0;
  while (checked->Valid()) {
    ASSERT_TRUE(checked->StepChecked(/*forward=*/true, checks).ok());
    ++steps;
  }
  checked->SeekToLast();
  size_t back = 0;
  while (checked->Valid()) {
    ASSERT_TRUE(checked->StepChecked(/*forward=*/false, checks).ok());
    ++back;
  }
  EXPECT_EQ(steps, back) << "forward and backward walks cover the same entries";
  EXPECT_GT(steps, size_t{kKeys / 2});
}

TEST_P(RepCheckedReadsTest, AFailedEntryCheckStopsTheRead) {
  RepHarness h(Options());
  Fill(&h);
  const std::string bad_key = Key(42);
  EntryChecks::Validator reject_42 = [&](const char* entry, bool) {
    return EntryView::Decode(entry).user_key() == bad_key
               ? Status::Corruption("checksum mismatch")
               : Status::OK();
  };
  EntryChecks checks;
  checks.validate_entry = &reject_42;

  LookupKey lookup(bad_key, last_seq_);
  Visits seen;
  Status s = Rep(&h).GetChecked(lookup, &seen, Record, checks);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(seen.entries.empty()) << "the callback never sees a bad entry";

  LookupKey fine(Key(40), last_seq_);
  std::vector<const char*> keys = {fine.memtable_key().data(), lookup.memtable_key().data()};
  std::vector<Visits> out(2);
  std::vector<void*> args = {&out[0], &out[1]};
  s = Rep(&h).MultiGetChecked(2, keys.data(), args.data(), Record, checks);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(out[0].entries.empty());
  EXPECT_TRUE(out[1].entries.empty());

  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> it(Rep(&h).GetIterator(nullptr));
  auto* checked = static_cast<TeksTableIterator*>(it.get());
  s = checked->SeekChecked(lookup.internal_key(), checks);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(checked->Valid());
  LookupKey before(Key(40), 0);
  ASSERT_TRUE(checked->SeekChecked(before.internal_key(), checks).ok());
  Status walk;
  while (checked->Valid() && walk.ok()) walk = checked->StepChecked(/*forward=*/true, checks);
  EXPECT_TRUE(walk.IsCorruption()) << "walking forward from key40 reaches key42";
  EXPECT_FALSE(checked->Valid());
}

TEST_P(RepCheckedReadsTest, ASeekGivenOnlyTheMemtableKeyLandsAsTheInternalKeyWould) {
  RepHarness h(Options());
  Fill(&h);
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> by_internal(
      Rep(&h).GetIterator(nullptr));
  std::unique_ptr<ROCKSDB_NAMESPACE::MemTableRep::Iterator> by_memtable(
      Rep(&h).GetIterator(nullptr));
  std::mt19937_64 rng(test::SeedFor(11));
  for (int i = 0; i < 500; ++i) {
    LookupKey target(Key(rng() % (kKeys + 10)), 1 + rng() % (last_seq_ + 2));
    by_internal->Seek(target.internal_key(), nullptr);
    by_memtable->Seek(Slice(), target.memtable_key().data());
    ASSERT_EQ(by_internal->Valid(), by_memtable->Valid());
    if (by_internal->Valid()) {
      EXPECT_EQ(by_internal->key(), by_memtable->key());
    }
    by_internal->SeekForPrev(target.internal_key(), nullptr);
    by_memtable->SeekForPrev(Slice(), target.memtable_key().data());
    ASSERT_EQ(by_internal->Valid(), by_memtable->Valid());
    if (by_internal->Valid()) {
      EXPECT_EQ(by_internal->key(), by_memtable->key());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, RepCheckedReadsTest,
                         ::testing::Values("teks", "teks-s", "teks-a", "teks-ac", "teks-acsp",
                                           "teks-acsp-in"),
                         test::VariantTestName);

}  // namespace
}  // namespace teksdb
