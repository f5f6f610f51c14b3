// HyperLogLog commands: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST, as Redis
// 7.0 answers them. A HyperLogLog is a string in Redis's own layout
// (common/hyperloglog.h), so GET, SETRANGE, DUMP and the rest see what
// Redis's would. Writes run under the key's lock; PFCOUNT of one key takes
// it too, since it stores the count it computed in the string's cache, as
// Redis does (not on a replica, which takes writes from its primary only).
#include <optional>
#include <random>
#include <vector>

#include "ascii_case.h"
#include "commands.h"
#include "hyperloglog.h"
#include "replication.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

using ROCKSDB_NAMESPACE::Status;

// The HyperLogLog at `key` (nullopt if absent): false having replied
// (WRONGTYPE for another type or a string that is not one, storage).
bool ReadHll(Request& r, const std::string& key, std::optional<Keyspace::Value>* value) {
  const Status s = r.keyspace->Read(key, value);
  if (!s.ok()) return ReplyStorageError(r, s), false;
  if (!*value) return true;
  if ((*value)->type != Keyspace::kString) return reply::Error(r.out, kWrongType), false;
  if (!hyperloglog::Looks((*value)->payload)) {
    return reply::Error(r.out, hyperloglog::kNotHllError), false;
  }
  return true;
}

// Writes `hll` at `key`, keeping the key's expiry: false having replied.
bool WriteHll(Request& r, const std::string& key, int64_t expire_ms, std::string hll) {
  Keyspace::Batch batch;
  batch.Put(key, Keyspace::Value{Keyspace::kString, expire_ms, std::move(hll)});
  const Status s = r.keyspace->Commit(&batch);
  if (!s.ok()) ReplyStorageError(r, s);
  return s.ok();
}

size_t SparseMaxBytes(Request& r) {
  return static_cast<size_t>(r.server.hll_sparse_max_bytes.load(std::memory_order_relaxed));
}

void PfAdd(Request& r) {
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  if (!ReadHll(r, r.args[1], &v)) return;
  std::string hll = v ? std::move(v->payload) : hyperloglog::New();
  bool updated = !v;
  for (size_t i = 2; i < r.args.size(); ++i) {
    const int raised = hyperloglog::Add(&hll, r.args[i], SparseMaxBytes(r));
    if (raised < 0) {
      // Redis edits the string in place, element by element: what the
      // elements before the corrupt part found stays added (its cached
      // count too, as Redis leaves it).
      if (v && updated && !WriteHll(r, r.args[1], v->expire_ms, std::move(hll))) return;
      return reply::Error(r.out, hyperloglog::kInvalidError);
    }
    updated |= raised > 0;
  }
  if (updated) {
    hyperloglog::MarkStale(&hll);
    if (!WriteHll(r, r.args[1], v ? v->expire_ms : 0, std::move(hll))) return;
  }
  reply::Integer(r.out, updated ? 1 : 0);
}

// PFCOUNT of several keys: the estimate of their union, nothing stored.
void CountUnion(Request& r) {
  std::vector<uint8_t> registers(hyperloglog::kRegisters, 0);
  for (size_t i = 1; i < r.args.size(); ++i) {
    std::optional<Keyspace::Value> v;
    if (!ReadHll(r, r.args[i], &v)) return;
    if (v && !hyperloglog::MergeInto(v->payload, registers.data())) {
      return reply::Error(r.out, hyperloglog::kInvalidError);
    }
  }
  reply::Integer(r.out, static_cast<int64_t>(hyperloglog::CountRegisters(registers.data())));
}

void PfCount(Request& r) {
  if (r.args.size() > 2) return CountUnion(r);
  auto locks = r.keyspace->LockKeys({r.args[1]});
  std::optional<Keyspace::Value> v;
  if (!ReadHll(r, r.args[1], &v)) return;
  if (!v) return reply::Integer(r.out, 0);
  uint64_t count;
  if (!hyperloglog::CachedCount(v->payload, &count)) {
    if (!hyperloglog::Count(v->payload, &count)) {
      return reply::Error(r.out, hyperloglog::kInvalidError);
    }
    hyperloglog::StoreCount(&v->payload, count);
    if (!r.server.replication->replica() &&
        !WriteHll(r, r.args[1], v->expire_ms, std::move(v->payload))) {
      return;
    }
  }
  reply::Integer(r.out, static_cast<int64_t>(count));
}

void PfMerge(Request& r) {
  const std::vector<std::string> keys(r.args.begin() + 1, r.args.end());
  auto locks = r.keyspace->LockKeys(keys);
  std::vector<uint8_t> registers(hyperloglog::kRegisters, 0);
  std::optional<Keyspace::Value> target;  // the destination, merged first
  bool dense = false;
  for (size_t i = 1; i < r.args.size(); ++i) {
    std::optional<Keyspace::Value> v;
    if (!ReadHll(r, r.args[i], &v)) return;
    if (!v) continue;
    dense |= !hyperloglog::IsSparse(v->payload);
    if (!hyperloglog::MergeInto(v->payload, registers.data())) {
      return reply::Error(r.out, hyperloglog::kInvalidError);
    }
    if (i == 1) target = std::move(v);
  }
  std::string hll = target ? std::move(target->payload) : hyperloglog::New();
  if (dense && !hyperloglog::ToDense(&hll)) return reply::Error(r.out, hyperloglog::kInvalidError);
  for (int i = 0; i < hyperloglog::kRegisters; ++i) {
    if (registers[i] != 0) hyperloglog::Raise(&hll, i, registers[i], SparseMaxBytes(r));
  }
  hyperloglog::MarkStale(&hll);
  if (WriteHll(r, r.args[1], target ? target->expire_ms : 0, std::move(hll))) reply::Ok(r.out);
}

// PFDEBUG GETREG|DECODE|ENCODING|TODENSE key (GETREG and TODENSE leave a
// sparse one dense, as Redis does).
void PfDebug(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  auto locks = r.keyspace->LockKeys({r.args[2]});
  std::optional<Keyspace::Value> v;
  if (!ReadHll(r, r.args[2], &v)) return;
  if (!v) return reply::Error(r.out, "ERR The specified key does not exist");
  std::string& hll = v->payload;
  const bool sparse = hyperloglog::IsSparse(hll);
  const auto make_dense = [&]() {
    if (!hyperloglog::ToDense(&hll)) return reply::Error(r.out, hyperloglog::kInvalidError), false;
    return WriteHll(r, r.args[2], v->expire_ms, hll);
  };
  if (sub == "getreg") {
    if (sparse && !make_dense()) return;
    std::vector<uint8_t> registers(hyperloglog::kRegisters, 0);
    hyperloglog::MergeInto(hll, registers.data());
    reply::ArrayHeader(r.out, registers.size());
    for (const uint8_t value : registers) reply::Integer(r.out, value);
  } else if (sub == "decode") {
    if (!sparse) return reply::Error(r.out, "ERR HLL encoding is not sparse");
    reply::Bulk(r.out, hyperloglog::DescribeRuns(hll));
  } else if (sub == "encoding") {
    reply::Simple(r.out, sparse ? "sparse" : "dense");
  } else if (sub == "todense") {
    if (sparse && !make_dense()) return;
    reply::Integer(r.out, sparse ? 1 : 0);
  } else {
    reply::Error(r.out, "ERR Unknown PFDEBUG subcommand '" + r.args[1] + "'");
  }
}

void PfSelfTest(Request& r) {
  const std::string failure =
      hyperloglog::SelfTest(SparseMaxBytes(r), static_cast<uint64_t>(std::random_device()()));
  failure.empty() ? reply::Ok(r.out) : reply::Error(r.out, "ERR " + failure);
}

}  // namespace

void AddHyperLogLogCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"pfadd", -2, PfAdd},     {"pfcount", -2, PfCount},       {"pfmerge", -2, PfMerge},
      {"pfdebug", 3, PfDebug},  {"pfselftest", 1, PfSelfTest},
  });
}

}  // namespace teksdb::server
