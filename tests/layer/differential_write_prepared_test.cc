// Differential suite 2: WritePrepared transactions over the plain factory
// and under TeksTransactionDB (dropping active), comparing reads inside
// transactions (own writes, snapshots, GetForUpdate, iterators) and outside
// them while prepared, uncommitted writes sit in the memtable (readers must
// skip them, so TeksTable's Get walks to older versions), across commit,
// rollback, flush and reopen (harness: differential_harness.h).
#include "differential_harness.h"

namespace teksdb {
namespace differential {
namespace {

// Suite 2: WritePrepared transactions over the plain factory.

class WritePreparedDifferentialTest : public ::testing::TestWithParam<Config> {};

// A transaction open on both sides.
struct TransactionPair {
  std::string name;
  std::unique_ptr<Transaction> want;
  std::unique_ptr<Transaction> got;
  bool prepared = false;
};

// Transactions never touch single-delete keys: a WritePrepared rollback
// rewrites old values with Put and Delete, which would break the contract.
class TransactionDriver {
 public:
  TransactionDriver(DifferentialDriver* driver, SingleDeleteContract* contract)
      : d_(driver), contract_(contract) {}

  // Rolls back what a failed run left open: Debian's RocksDB asserts that
  // no transaction is left prepared when a WritePrepared DB closes.
  ~TransactionDriver() {
    for (auto& t : open_) {
      t->want->Rollback().PermitUncheckedError();
      t->got->Rollback().PermitUncheckedError();
    }
  }

  size_t num_open() const { return open_.size(); }
  bool any_prepared() const {
    return std::any_of(open_.begin(), open_.end(),
                       [](const std::unique_ptr<TransactionPair>& t) { return t->prepared; });
  }
  uint64_t commits() const { return commits_; }
  uint64_t rollbacks() const { return rollbacks_; }

  void Begin(History* history) {
    std::mt19937_64& rng = d_->rng();
    WriteOptions write_options;
    TransactionOptions txn_options;
    txn_options.set_snapshot = rng() % 2 == 0;
    txn_options.lock_timeout = 0;
    auto pair = std::make_unique<TransactionPair>();
    pair->name = "txn" + std::to_string(next_id_++);
    pair->want.reset(d_->oracle().txn_db()->BeginTransaction(write_options, txn_options));
    pair->got.reset(d_->subject().txn_db()->BeginTransaction(write_options, txn_options));
    ASSERT_OK(pair->want->SetName(pair->name));
    ASSERT_OK(pair->got->SetName(pair->name));
    history->Add("Begin " + pair->name + (txn_options.set_snapshot ? " with snapshot" : ""));
    open_.push_back(std::move(pair));
  }

  TransactionPair* RandomOpen() {
    return open_.empty() ? nullptr : open_[d_->rng()() % open_.size()].get();
  }
  TransactionPair* RandomUnprepared() {
    std::vector<TransactionPair*> candidates;
    for (auto& t : open_) {
      if (!t->prepared) candidates.push_back(t.get());
    }
    return candidates.empty() ? nullptr : candidates[d_->rng()() % candidates.size()];
  }

  // Put, Delete or Merge inside an unprepared transaction. Lock conflicts
  // must fail the same way on both sides.
  void WriteInTransaction(uint64_t op, History* history) {
    TransactionPair* t = RandomUnprepared();
    if (t == nullptr) return;
    std::mt19937_64& rng = d_->rng();
    const size_t cf = d_->RandomCf();
    std::string key = d_->keys().RandomKey(rng);
    while (SingleDeleteContract::IsSingleDeleteKey(key)) key = d_->keys().RandomKey(rng);
    ColumnFamilyHandle* want_cf = d_->oracle().cf(cf);
    ColumnFamilyHandle* got_cf = d_->subject().cf(cf);
    Status want_s, got_s;
    std::string desc;
    switch (rng() % 5) {
      case 0:
        want_s = t->want->Delete(want_cf, key);
        got_s = t->got->Delete(got_cf, key);
        desc = "Delete";
        break;
      case 1:
      case 2: {
        const std::string operand = "t" + std::to_string(op);
        want_s = t->want->Merge(want_cf, key, operand);
        got_s = t->got->Merge(got_cf, key, operand);
        desc = "Merge " + operand;
        break;
      }
      default: {
        const std::string value = MakeValue(op, rng, d_->max_value_filler());
        want_s = t->want->Put(want_cf, key, value);
        got_s = t->got->Put(got_cf, key, value);
        desc = "Put " + value.substr(0, 12);
        break;
      }
    }
    history->Add(t->name + " " + desc + " cf" + std::to_string(cf) + " " + key + " -> " +
                 want_s.ToString());
    ExpectSameStatus(want_s, got_s, t->name + " write " + key);
  }

  // Get or GetForUpdate inside a transaction: its own writes over the DB,
  // at its snapshot if it has one.
  void ReadInTransaction(History* history) {
    TransactionPair* t = RandomOpen();
    if (t == nullptr) return;
    std::mt19937_64& rng = d_->rng();
    const size_t cf = d_->RandomCf();
    const std::string key = d_->keys().RandomKey(rng);
    ReadOptions want_ro, got_ro;
    want_ro.snapshot = t->want->GetSnapshot();
    got_ro.snapshot = t->got->GetSnapshot();
    const bool for_update = !t->prepared && rng() % 3 == 0;
    std::string want_v, got_v;
    Status want_s, got_s;
    if (for_update) {
      want_s = t->want->GetForUpdate(want_ro, d_->oracle().cf(cf), key, &want_v);
      got_s = t->got->GetForUpdate(got_ro, d_->subject().cf(cf), key, &got_v);
    } else {
      want_s = t->want->Get(want_ro, d_->oracle().cf(cf), key, &want_v);
      got_s = t->got->Get(got_ro, d_->subject().cf(cf), key, &got_v);
    }
    const std::string what = t->name + (for_update ? " GetForUpdate" : " Get") + " cf" +
                             std::to_string(cf) + " " + key;
    history->Add(what + " -> " + want_s.ToString());
    ExpectSameStatus(want_s, got_s, what);
    if (want_s.ok() && got_s.ok()) {
      EXPECT_EQ(want_v, got_v) << what;
      d_->mutable_stats()->found++;
    } else if (want_s.IsNotFound()) {
      d_->mutable_stats()->not_found++;
    }
  }

  // A transaction's iterator: its own writes merged over the DB.
  void WalkInTransaction(History* history) {
    TransactionPair* t = RandomOpen();
    if (t == nullptr) return;
    const size_t cf = d_->RandomCf();
    ReadOptions want_ro, got_ro;
    want_ro.snapshot = t->want->GetSnapshot();
    got_ro.snapshot = t->got->GetSnapshot();
    history->Add(t->name + " walk cf" + std::to_string(cf));
    std::unique_ptr<Iterator> want(t->want->GetIterator(want_ro, d_->oracle().cf(cf)));
    std::unique_ptr<Iterator> got(t->got->GetIterator(got_ro, d_->subject().cf(cf)));
    ASSERT_NO_FATAL_FAILURE(CompareWalk(want.get(), got.get(), d_->keys(), d_->rng(),
                                        10 + d_->rng()() % 30, d_->mutable_stats()));
  }

  void Prepare(History* history) {
    TransactionPair* t = RandomUnprepared();
    if (t == nullptr) return;
    history->Add("Prepare " + t->name);
    ASSERT_OK(t->want->Prepare());
    ASSERT_OK(t->got->Prepare());
    t->prepared = true;
  }

  // Commits (prepared or not) or rolls back a random open transaction.
  void Finish(bool commit, History* history) {
    if (open_.empty()) return;
    const size_t i = d_->rng()() % open_.size();
    std::unique_ptr<TransactionPair> t = std::move(open_[i]);
    open_.erase(open_.begin() + static_cast<std::ptrdiff_t>(i));
    history->Add((commit ? "Commit " : "Rollback ") + t->name);
    if (commit) {
      ASSERT_OK(t->want->Commit());
      ASSERT_OK(t->got->Commit());
      commits_++;
    } else {
      ASSERT_OK(t->want->Rollback());
      ASSERT_OK(t->got->Rollback());
      rollbacks_++;
    }
  }

  // Writes outside any transaction go through the TransactionDB, which
  // locks their keys: a key a transaction holds fails on both sides alike.
  // Single writes use the DB's own API (SingleDelete included); batches
  // leave single-delete keys out, since TransactionDB::Write refuses
  // SingleDelete outside the default column family.
  void WriteOutside(uint64_t op, RandomWriter* writer, History* history) {
    const SingleDeleteContract before = *contract_;
    const bool batch = d_->rng()() % 4 == 0;
    std::vector<WriteOp> group = writer->NextGroup(op, batch);
    if (batch) {
      group.erase(std::remove_if(group.begin(), group.end(),
                                 [](const WriteOp& w) {
                                   return SingleDeleteContract::IsSingleDeleteKey(w.key);
                                 }),
                  group.end());
      *contract_ = before;  // the single-delete keys dropped were not written
      if (group.empty()) return;
    }
    std::string desc = batch ? "Outside batch:" : "Outside write:";
    for (const WriteOp& w : group) desc += " " + w.Describe();
    Status want_s, got_s;
    if (batch) {
      WriteBatch want, got;
      for (const WriteOp& w : group) {
        ASSERT_OK(w.AddTo(&want, d_->oracle().cf(w.cf)));
        ASSERT_OK(w.AddTo(&got, d_->subject().cf(w.cf)));
      }
      want_s = d_->oracle().db()->Write(WriteOptions(), &want);
      got_s = d_->subject().db()->Write(WriteOptions(), &got);
    } else {
      want_s = group[0].ApplyTo(d_->oracle().db(), d_->oracle().cf(group[0].cf));
      got_s = group[0].ApplyTo(d_->subject().db(), d_->subject().cf(group[0].cf));
    }
    history->Add(desc + " -> " + want_s.ToString());
    ExpectSameStatus(want_s, got_s, desc);
    if (!want_s.ok()) {
      ASSERT_TRUE(want_s.IsTimedOut() || want_s.IsBusy()) << desc << ": " << want_s.ToString();
      *contract_ = before;
    }
  }

  void FinishAll(History* history) {
    while (!open_.empty()) {
      ASSERT_NO_FATAL_FAILURE(Finish(d_->rng()() % 2 == 0, history));
    }
  }

 private:
  DifferentialDriver* d_;
  SingleDeleteContract* contract_;
  std::vector<std::unique_ptr<TransactionPair>> open_;
  uint64_t next_id_ = 0;
  uint64_t commits_ = 0;
  uint64_t rollbacks_ = 0;
};

TEST_P(WritePreparedDifferentialTest, TransactionsMatchSkipList) {
  const Config& config = GetParam();
  const uint64_t seed = SeedFor(config.default_seed);
  SCOPED_TRACE(ReplayHint(seed));
  DifferentialDriver d(config, seed);
  ASSERT_NO_FATAL_FAILURE(d.OpenFresh());
  SingleDeleteContract contract;
  RandomWriter writer(&d, &contract, /*range_deletes=*/false);
  TransactionDriver txns(&d, &contract);
  History history;
  const uint64_t ops = 2000 * static_cast<uint64_t>(Scale());
  uint64_t reopens = 0;
  uint64_t reads_over_prepared = 0;  // outside reads while writes sit prepared

  enum Op {
    kBegin, kTxnWrite, kTxnRead, kTxnWalk, kPrepare, kCommit, kRollback, kOutsideWrite,
    kRead, kFlush, kReopen,
  };
  const OperationMix<Op> mix = {
      {kBegin, 4},     {kTxnWrite, 18},   {kTxnRead, 8},        {kTxnWalk, 3},
      {kPrepare, 2.5}, {kCommit, 3},      {kRollback, 1.5},     {kOutsideWrite, 14},
      {kRead, 20.5},   {kFlush, 0.4},     {kReopen, 0.25},
  };
  for (uint64_t op = 0; op < ops; ++op) {
    SCOPED_TRACE("operation " + std::to_string(op));
    const Op kind = Pick(d.rng(), mix);
    const bool prepared_before = txns.any_prepared();
    switch (kind) {
      case kBegin:
        if (txns.num_open() < 3) txns.Begin(&history);
        break;
      case kTxnWrite:
        txns.WriteInTransaction(op, &history);
        break;
      case kTxnRead:
        txns.ReadInTransaction(&history);
        break;
      case kTxnWalk:
        txns.WalkInTransaction(&history);
        break;
      case kPrepare:
        txns.Prepare(&history);
        break;
      case kCommit:
        txns.Finish(/*commit=*/true, &history);
        break;
      case kRollback:
        txns.Finish(/*commit=*/false, &history);
        break;
      case kOutsideWrite:
        txns.WriteOutside(op, &writer, &history);
        break;
      case kRead:
        if (d.RandomRead(&history) && prepared_before) reads_over_prepared++;
        break;
      case kFlush:
        d.Flush(&history);
        break;
      case kReopen:
        // Debian's RocksDB asserts that no transaction is left prepared
        // when a WritePrepared DB closes, so all are finished first.
        txns.FinishAll(&history);
        history.Add("Reopen");
        if (!HasFailure()) d.Reopen();
        reopens++;
        if (!HasFailure()) d.CompareEverything("after reopen", &history);
        break;
    }
    if (HasFailure()) {
      ADD_FAILURE() << history.Dump();
      return;
    }
  }
  ASSERT_NO_FATAL_FAILURE(txns.FinishAll(&history));
  ASSERT_NO_FATAL_FAILURE(d.CompareEverything("at the end", &history));
  ASSERT_NO_FATAL_FAILURE(d.Reopen());
  ASSERT_NO_FATAL_FAILURE(d.CompareEverything("after the final reopen", &history));
  if (HasFailure()) ADD_FAILURE() << history.Dump();

  EXPECT_GT(d.stats().found, ops / 20);
  EXPECT_GT(d.stats().not_found, 0u);
  EXPECT_GT(d.stats().iterator_entries, ops);
  EXPECT_GT(txns.commits(), 0u);
  EXPECT_GT(txns.rollbacks(), 0u);
  EXPECT_GT(reads_over_prepared, 0u);
  RecordProperty("reopens", static_cast<int>(reopens));
}

// A large write buffer: flushes happen only when the test asks, on both
// sides at once, so write-conflict checks (which consult the memtables'
// history) answer the same on both.
INSTANTIATE_TEST_SUITE_P(
    Memtables, WritePreparedDifferentialTest,
    ::testing::Values(Config{"PlainDefault", Layer::kTransactionDB, TeksTableOptions(),
                             kLargeBuffer, false, 200, 0x7e5d0101},
                      Config{"PlainTeksS", Layer::kTransactionDB, Variant("teks-s"),
                             kLargeBuffer, true, 200, 0x7e5d0102},
                      Config{"LayerDefault", Layer::kTeksTransactionDB, TeksTableOptions(),
                             kLargeBuffer, false, 200, 0x7e5d0103},
                      Config{"LayerHotKeys", Layer::kTeksTransactionDB, TeksTableOptions(),
                             kLargeBuffer, true, 24, 0x7e5d0104},
                      // Reads that check entries and pass WritePrepared's
                      // read callback through TeksTable's validating calls.
                      Config{"LayerCheckedReads", Layer::kTeksTransactionDB, TeksTableOptions(),
                             kLargeBuffer, false, 200, 0x7e5d0105, true}),
    PrintConfigName);

}  // namespace
}  // namespace differential
}  // namespace teksdb
