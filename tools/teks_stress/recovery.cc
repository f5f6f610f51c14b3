// Recover: the check of a reopened DB against the oracle (see recovery.h).
#include "recovery.h"

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/write_batch.h"
#include "stats.h"
#include "worker.h"

namespace teks_stress {

using ROCKSDB_NAMESPACE::PinnableSlice;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

namespace {

struct RecoveredWrite {
  uint32_t cf;
  uint32_t key;
  KeyState state;
};

// The data writes of a recovered transaction's batch.
class BatchReader : public ROCKSDB_NAMESPACE::WriteBatch::Handler {
 public:
  BatchReader(const std::map<uint32_t, uint32_t>& cf_of_id, uint32_t progress_id)
      : cf_of_id_(cf_of_id), progress_id_(progress_id) {}

  Status PutCF(uint32_t id, const Slice& key, const Slice& value) override {
    return Add(id, key, &value);
  }
  Status MergeCF(uint32_t id, const Slice& key, const Slice& value) override {
    return Add(id, key, &value);
  }
  Status DeleteCF(uint32_t id, const Slice& key) override { return Add(id, key, nullptr); }
  Status SingleDeleteCF(uint32_t id, const Slice& key) override { return Add(id, key, nullptr); }
  Status DeleteRangeCF(uint32_t, const Slice&, const Slice&) override {
    return Status::Corruption("a transaction holds a DeleteRange, which teks_stress never writes");
  }
  Status MarkBeginPrepare(bool) override { return Status::OK(); }
  Status MarkEndPrepare(const Slice&) override { return Status::OK(); }
  Status MarkNoop(bool) override { return Status::OK(); }
  Status MarkCommit(const Slice&) override { return Status::OK(); }
  Status MarkRollback(const Slice&) override { return Status::OK(); }

  std::vector<RecoveredWrite> writes;

 private:
  Status Add(uint32_t id, const Slice& key, const Slice* value) {
    if (id == progress_id_) return Status::OK();
    auto cf = cf_of_id_.find(id);
    uint32_t number = 0;
    if (cf == cf_of_id_.end() || !ParseKey(key, &number)) {
      return Status::Corruption("a write to column family " + std::to_string(id) +
                                " key of " + std::to_string(key.size()) +
                                " bytes that teks_stress never writes");
    }
    RecoveredWrite w{cf->second, number, KeyState()};
    if (value != nullptr) {
      w.state.exists = true;
      if (!ParseValue(*value, w.cf, number, &w.state.value_base)) {
        return Status::Corruption("a value never written for cf " + std::to_string(w.cf) +
                                  " key " + std::to_string(number));
      }
    }
    writes.push_back(w);
    return Status::OK();
  }
  const std::map<uint32_t, uint32_t>& cf_of_id_;
  const uint32_t progress_id_;
};

std::string Describe(ExpectedState* expected, uint32_t cf, uint32_t key,
                     const std::vector<uint32_t>& progress) {
  std::string s = "history (newest first):";
  for (int age = 0; age < ExpectedState::kHistory; ++age) {
    if (!expected->Used(cf, key, age)) break;
    const KeyState st = expected->At(cf, key, age);
    s += " [" + st.ToString();
    if (st.thread != KeyState::kBaseThread) {
      s += st.op <= progress[st.thread] ? ", in" : ", not in";
      s += " (progress " + std::to_string(progress[st.thread]) + ")";
    }
    s += "]";
  }
  return s;
}

// Returns the (thread, op) of every transaction recovered prepared.
std::set<std::pair<uint32_t, uint32_t>> ResolvePreparedTransactions(
    StressDB* db, ExpectedState* expected, std::mt19937_64* rng, RecoveryReport* report) {
  std::set<std::pair<uint32_t, uint32_t>> found;
  std::vector<ROCKSDB_NAMESPACE::Transaction*> prepared;
  db->txn_db()->GetAllPreparedTransactions(&prepared);
  std::map<uint32_t, uint32_t> cf_of_id;
  for (uint32_t cf = 0; cf < expected->column_families(); ++cf) {
    cf_of_id[db->data(cf)->GetID()] = cf;
  }
  for (ROCKSDB_NAMESPACE::Transaction* raw : prepared) {
    std::unique_ptr<ROCKSDB_NAMESPACE::Transaction> txn(raw);
    uint32_t thread = 0, op = 0;
    if (!ParseTransactionName(txn->GetName(), &thread, &op)) {
      Fail("recovered a prepared transaction named '" + txn->GetName() +
           "', which teks_stress never names one");
    }
    found.emplace(thread, op);
    BatchReader reader(cf_of_id, db->progress()->GetID());
    Status s = txn->GetWriteBatch()->GetWriteBatch()->Iterate(&reader);
    if (!s.ok()) Fail("prepared transaction " + txn->GetName() + ": " + s.ToString());
    // Each write must be the one the oracle recorded for (thread, op).
    for (const RecoveredWrite& w : reader.writes) {
      bool recorded = false;
      for (int age = 0; age < ExpectedState::kHistory && !recorded; ++age) {
        if (!expected->Used(w.cf, w.key, age)) break;
        const KeyState st = expected->At(w.cf, w.key, age);
        recorded = st.thread == thread && st.op == op && st.SameValue(w.state);
      }
      if (!recorded) {
        Fail("prepared transaction " + txn->GetName() + " writes " + w.state.ToString() +
             " to cf " + std::to_string(w.cf) + " key " + std::to_string(w.key) +
             ", which the oracle has no record of");
      }
    }
    if ((*rng)() % 2 == 0) {
      if (!(s = txn->Commit()).ok()) Fail("commit of recovered " + txn->GetName() + ": " + s.ToString());
      for (const RecoveredWrite& w : reader.writes) expected->Reset(w.cf, w.key, w.state);
      ++report->prepared_committed;
    } else {
      if (!(s = txn->Rollback()).ok()) {
        Fail("rollback of recovered " + txn->GetName() + ": " + s.ToString());
      }
      ++report->prepared_rolled_back;
    }
  }
  return found;
}

}  // namespace

RecoveryReport Recover(StressDB* db, ExpectedState* expected, std::mt19937_64* rng) {
  RecoveryReport report;
  ExpectedState::Header& header = expected->header();
  const uint64_t epoch = header.epoch.load();
  std::set<std::pair<uint32_t, uint32_t>> recovered_prepared;
  if (db->txn_db() != nullptr) {
    recovered_prepared = ResolvePreparedTransactions(db, expected, rng, &report);
  }

  // 2. Progress, and the promise about acknowledged writes.
  std::vector<uint32_t> progress(ExpectedState::kMaxThreads, 0);
  const Promise promise = static_cast<Promise>(header.promise.load());
  for (uint32_t t = 0; t < ExpectedState::kMaxThreads; ++t) {
    PinnableSlice value;
    Status s = db->db()->Get(ReadOptions(), db->progress(), ProgressKey(t), &value);
    uint64_t e = 0;
    uint32_t op = 0;
    if (s.ok()) {
      if (!ParseProgress(value, &e, &op)) {
        Fail("progress key of thread " + std::to_string(t) + " is malformed");
      }
      if (e == epoch) progress[t] = op;
    } else if (!s.IsNotFound()) {
      Fail("reading progress: " + s.ToString());
    }
    const uint64_t acked = header.acknowledged[t].load();
    if (progress[t] < acked) {
      if (promise == Promise::kAcknowledged) {
        Fail("thread " + std::to_string(t) + "'s acknowledged writes " +
             std::to_string(progress[t] + 1) + ".." + std::to_string(acked) +
             " are lost, though the run promised they would survive");
      }
      report.writes_lost += acked - progress[t];
    }
    // A successful Prepare is as durable as an acknowledged write: the
    // transaction was recovered prepared, or its commit is in.
    const uint64_t prepared = header.prepared[t].load();
    if (prepared != 0 && promise == Promise::kAcknowledged && progress[t] < prepared &&
        recovered_prepared.count({t, static_cast<uint32_t>(prepared)}) == 0) {
      Fail("thread " + std::to_string(t) + "'s transaction " +
           TransactionName(t, static_cast<uint32_t>(prepared)) +
           " was prepared at the kill, but is neither recovered prepared nor committed");
    }
  }

  // 3. Every key by Get, then each family's scans.
  const uint32_t keys = expected->keys_per_cf();
  for (uint32_t cf = 0; cf < expected->column_families(); ++cf) {
    std::vector<KeyState> actual(keys);
    for (uint32_t key = 0; key < keys; ++key) {
      PinnableSlice value;
      Status s = db->db()->Get(ReadOptions(), db->data(cf), KeyString(key), &value);
      KeyState got;
      if (s.ok()) {
        got.exists = true;
        if (!ParseValue(value, cf, key, &got.value_base)) {
          Fail("after reopen: cf " + std::to_string(cf) + " key " + std::to_string(key) +
               " holds a value never written for it");
        }
      } else if (!s.IsNotFound()) {
        Fail("after reopen: Get: " + s.ToString());
      }
      // The entry the DB must hold (the newest one in), or under kPerKey
      // any entry; none found in a full history: lost beyond it.
      bool want_found = false, matched = false;
      int used = 0;
      KeyState want;
      for (int age = 0; age < ExpectedState::kHistory; ++age) {
        if (!expected->Used(cf, key, age)) break;
        ++used;
        const KeyState st = expected->At(cf, key, age);
        if (promise == Promise::kPerKey) {
          if (st.SameValue(got)) matched = want_found = true;
          if (matched) break;
          continue;
        }
        if (st.thread == KeyState::kBaseThread || st.op <= progress[st.thread]) {
          want = st;
          want_found = true;
          matched = st.SameValue(got);
          break;
        }
      }
      if (!want_found && used == ExpectedState::kHistory) {
        ++report.keys_beyond_history;
      } else if (!matched) {
        Fail("after reopen: cf " + std::to_string(cf) + " key " + std::to_string(key) +
             ": expected " +
             (promise == Promise::kPerKey ? std::string("a state of its history")
                                          : want.ToString()) +
             ", DB has " + (got.exists ? "value base " + std::to_string(got.value_base)
                                       : std::string("it absent")) +
             "; " + Describe(expected, cf, key, progress));
      }
      actual[key] = got;
      ++report.keys_verified;
    }
    // Scans list exactly the existing keys, in order, both ways.
    for (bool forward : {true, false}) {
      std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
          db->db()->NewIterator(ReadOptions(), db->data(cf)));
      int64_t next = forward ? 0 : static_cast<int64_t>(keys) - 1;
      auto advance = [&] {
        while (next >= 0 && next < static_cast<int64_t>(keys) && !actual[next].exists) {
          next += forward ? 1 : -1;
        }
      };
      advance();
      for (forward ? it->SeekToFirst() : it->SeekToLast(); it->Valid();
           forward ? it->Next() : it->Prev()) {
        uint32_t key = 0;
        if (!ParseKey(it->key(), &key) || key != next) {
          Fail("after reopen: " + std::string(forward ? "forward" : "backward") + " scan of cf " +
               std::to_string(cf) + " at " +
               (ParseKey(it->key(), &key) ? "key " + std::to_string(key) : "a key never written") +
               ", expected " + (next >= 0 && next < keys ? "key " + std::to_string(next) : "the end"));
        }
        CheckRead("scan after reopen", cf, key, Status::OK(), it->value(), actual[key]);
        ++report.scanned_entries;
        next += forward ? 1 : -1;
        advance();
      }
      if (!it->status().ok()) Fail("after reopen: scan: " + it->status().ToString());
      if (next >= 0 && next < static_cast<int64_t>(keys)) {
        Fail("after reopen: " + std::string(forward ? "forward" : "backward") + " scan of cf " +
             std::to_string(cf) + " ended before key " + std::to_string(next));
      }
    }
    for (uint32_t key = 0; key < keys; ++key) {
      if (actual[key].exists) ++report.keys_present;
    }
    // 4. What the DB holds is now the verified state.
    for (uint32_t key = 0; key < keys; ++key) expected->Reset(cf, key, actual[key]);
  }
  for (auto& acked : header.acknowledged) acked.store(0);
  for (auto& prepared : header.prepared) prepared.store(0);
  header.keys_verified.fetch_add(report.keys_verified);
  header.epoch.store(epoch + 1);
  return report;
}

}  // namespace teks_stress
