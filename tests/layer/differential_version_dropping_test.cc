// Differential suite: directed checks that the TeksDB layer drops versions
// no reader needs, keeps what readers and flushes need, and that the plain
// factory keeps every version (harness: differential_harness.h).
#include "differential_harness.h"

#include <functional>
#include <string>
#include <vector>

#include "rocksdb/utilities/debug.h"

namespace teksdb {
namespace differential {
namespace {

std::vector<ROCKSDB_NAMESPACE::KeyVersion> AllVersions(Side& side, size_t cf) {
  std::vector<ROCKSDB_NAMESPACE::KeyVersion> versions;
  // {} is the whole key range on every release: an empty Slice up to 10.x,
  // an absent OptSlice from 11.0 (where an empty Slice is the empty key).
  const Status s = ROCKSDB_NAMESPACE::GetAllKeyVersions(side.db(), side.cf(cf), {}, {},
                                                        size_t{1} << 30, &versions);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return versions;
}

std::string VersionString(const ROCKSDB_NAMESPACE::KeyVersion& v) {
  return v.user_key + "@" + std::to_string(v.sequence) + "/" + std::to_string(v.type) + "=" +
         v.value;
}

// Rounds of Puts to a few keys, with a snapshot held over half of them.
// Under the layer, versions a live reader (the snapshot) needs stay and
// the rest go; as a plain factory, every version stays (the memtable holds
// exactly the oracle's internal keys). Either way the answers match.
// Without this check the layer configurations above might test nothing the
// plain ones do not.
TEST(VersionDroppingTest, LayerDropsOnlyWhatNoReaderNeedsPlainFactoryKeepsAll) {
  for (Layer layer : {Layer::kPlainFactory, Layer::kTeksDB}) {
    const bool dropping = layer == Layer::kTeksDB;
    SCOPED_TRACE(dropping ? "TeksDB layer" : "plain factory");
    const Config config{"Versions", layer, TeksTableOptions(), kLargeBuffer, true, 16, 1};
    DifferentialDriver d(config, 1);
    ASSERT_NO_FATAL_FAILURE(d.OpenFresh());
    constexpr int kKeys = 16, kRounds = 40;
    auto write_round = [&](int round) {
      for (int k = 0; k < kKeys; ++k) {
        const std::string value = "r" + std::to_string(round);
        ASSERT_OK(d.oracle().db()->Put(WriteOptions(), d.keys().Key(k), value));
        ASSERT_OK(d.subject().db()->Put(WriteOptions(), d.keys().Key(k), value));
      }
    };
    History history;
    for (int round = 0; round < kRounds; ++round) {
      if (round == kRounds / 2) {
        ASSERT_NO_FATAL_FAILURE(d.TakeSnapshot());
      }
      ASSERT_NO_FATAL_FAILURE(write_round(round));
    }
    const std::vector<ROCKSDB_NAMESPACE::KeyVersion> want = AllVersions(d.oracle(), 0);
    std::vector<ROCKSDB_NAMESPACE::KeyVersion> got = AllVersions(d.subject(), 0);
    ASSERT_EQ(want.size(), static_cast<size_t>(kKeys * kRounds));
    if (!dropping) {
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(VersionString(want[i]), VersionString(got[i])) << "version " << i;
      }
    } else {
      // Kept: the version the snapshot reads, and the two newest (the
      // newest's predecessor goes with the next update): the versions
      // between are in no snapshot's stripe.
      EXPECT_GE(got.size(), static_cast<size_t>(kKeys * 2));
      EXPECT_LE(got.size(), static_cast<size_t>(kKeys * 3));
    }
    // The snapshot still reads round kRounds/2 - 1 everywhere.
    ReadOptions want_ro, got_ro;
    want_ro.snapshot = d.snapshots()[0].want;
    got_ro.snapshot = d.snapshots()[0].got;
    for (int k = 0; k < kKeys; ++k) {
      std::string v;
      ASSERT_OK(d.subject().db()->Get(got_ro, d.keys().Key(k), &v));
      EXPECT_EQ(v, "r" + std::to_string(kRounds / 2 - 1));
    }
    // Once the snapshot is gone, one more write per key lets the layer drop
    // everything older than the newest version, or two where the first
    // one's drop attempt shares the chain's memo tag with the last attempt
    // (1 in 64, memtable/version_chain.h).
    d.ReleaseReaders();
    ASSERT_NO_FATAL_FAILURE(write_round(kRounds));
    ASSERT_NO_FATAL_FAILURE(write_round(kRounds + 1));
    got = AllVersions(d.subject(), 0);
    if (dropping) {
      EXPECT_LE(got.size(), static_cast<size_t>(kKeys * 2));
    } else {
      EXPECT_EQ(got.size(), static_cast<size_t>(kKeys * (kRounds + 2)));
    }
    ASSERT_NO_FATAL_FAILURE(d.CompareEverything("after the rounds", &history));
    ASSERT_NO_FATAL_FAILURE(d.Flush(&history));
    ASSERT_NO_FATAL_FAILURE(d.CompareEverything("after a flush", &history));
  }
}

// A SingleDelete cancels exactly one older Put, which may sit in an SST
// file: dropping versions must leave flush the same work. Here the memtable
// holds SD@2 Put@3 SD@4 over Put@1 in an SST file. Were SD@2 dropped (Put@3
// shadows it for every reader), the flush would cancel SD@4 against Put@3,
// write nothing, and Put@1 ("v1") would come back; the oracle's flush keeps
// SD@2, which still hides it. (Found by RandomOperationsMatchSkipList/Layer*.)
TEST(VersionDroppingTest, SingleDeletedKeyStaysDeletedAfterFlush) {
  for (Layer layer : {Layer::kPlainFactory, Layer::kTeksDB}) {
    SCOPED_TRACE(layer == Layer::kTeksDB ? "TeksDB layer" : "plain factory");
    const Config config{"SingleDelete", layer, TeksTableOptions(), kLargeBuffer, true, 4, 1};
    DifferentialDriver d(config, 1);
    ASSERT_NO_FATAL_FAILURE(d.OpenFresh());
    auto both = [&](const std::function<Status(DB*)>& write) {
      ASSERT_OK(write(d.oracle().db()));
      ASSERT_OK(write(d.subject().db()));
    };
    const WriteOptions wo;
    ASSERT_NO_FATAL_FAILURE(both([&](DB* db) { return db->Put(wo, "k", "v1"); }));
    ASSERT_NO_FATAL_FAILURE(both([&](DB* db) { return db->Flush(FlushOptions()); }));
    ASSERT_NO_FATAL_FAILURE(both([&](DB* db) { return db->SingleDelete(wo, "k"); }));
    ASSERT_NO_FATAL_FAILURE(both([&](DB* db) { return db->Put(wo, "k", "v3"); }));
    ASSERT_NO_FATAL_FAILURE(both([&](DB* db) { return db->SingleDelete(wo, "k"); }));
    std::string v;
    ASSERT_TRUE(d.oracle().db()->Get(ReadOptions(), "k", &v).IsNotFound());
    EXPECT_TRUE(d.subject().db()->Get(ReadOptions(), "k", &v).IsNotFound())
        << "before the flush: " << v;
    ASSERT_NO_FATAL_FAILURE(both([&](DB* db) { return db->Flush(FlushOptions()); }));
    ASSERT_TRUE(d.oracle().db()->Get(ReadOptions(), "k", &v).IsNotFound());
    const Status s = d.subject().db()->Get(ReadOptions(), "k", &v);
    EXPECT_TRUE(s.IsNotFound()) << "after the flush: " << s.ToString() << " " << v;
  }
}

}  // namespace
}  // namespace differential
}  // namespace teksdb
