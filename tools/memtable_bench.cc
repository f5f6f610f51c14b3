// memtable_bench: the memtable rep alone, without RocksDB's write path,
// WAL or DB iterator around it (Google Benchmark). Measures insert, point
// get, seek (a fresh rep iterator per seek, as every DB iterator makes one)
// and a full-order scan for
//   skip_list  RocksDB's SkipListRep (SkipListFactory),
//   teks-s     TeksTable linking every key into its skip list on the write path,
//   teks       TeksTable with background linking, concurrent hash, shortcut,
// and, for gets only, a read-only absl::flat_hash_map from user key to entry
// over the same entries: the ideal a hash memtable could approach. The map
// is measured twice: the lookup alone, and the lookup plus reading the entry
// found, as every rep's get does (its callback decodes the entry).
//
// Entries are what MemTable::Add writes (memtable_entry.h): --keys distinct
// 16-byte db_bench-style keys with --value_size-byte values, inserted in a
// random order with increasing sequence numbers. Reads look up existing keys
// in another random order; get_absent looks up keys that sort between them
// (the last byte differs), the memtable's lot in an LSM read of older data. Every rep allocates from its own BenchArena.
//
// Usage: memtable_bench [--keys=N] [--value_size=N] [Google Benchmark flags]
//
// Threads: one benchmark thread; TeksTable's background linker is the only
// other thread. Read benchmarks start only after the linker has caught up.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <benchmark/benchmark.h>

#include "rep_arenas.h"
#include "memtable_entry.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb_internals.h"
#include "teksdb/teks_table.h"

namespace teksdb {
namespace {

using ROCKSDB_NAMESPACE::MemTableRep;
using ROCKSDB_NAMESPACE::MemTableRepFactory;
using ROCKSDB_NAMESPACE::Slice;

constexpr uint8_t kTypeValue = 0x1;  // ValueType::kTypeValue
constexpr ROCKSDB_NAMESPACE::SequenceNumber kReadAtLatest = (uint64_t{1} << 56) - 1;

size_t g_keys = 1000000;
size_t g_value_size = 256;

// The data set: encoded entries, their user keys, and the two random orders.
struct DataSet {
  std::vector<std::string> user_keys;
  std::vector<std::string> absent_keys;  // absent_keys[i] sorts right after user_keys[i]
  std::vector<std::string> entries;  // entries[i] holds user_keys[i], sequence i + 1
  std::vector<size_t> read_order;
};

const DataSet& Data() {
  static const DataSet data = [] {
    DataSet d;
    std::mt19937_64 rnd(301);
    std::vector<uint64_t> numbers(g_keys);
    std::iota(numbers.begin(), numbers.end(), 0);
    std::shuffle(numbers.begin(), numbers.end(), rnd);
    std::string value(g_value_size, 'v');
    for (size_t i = 0; i < g_keys; i++) {
      std::string key(16, '0');
      for (int b = 0; b < 8; b++) key[b] = static_cast<char>(numbers[i] >> (56 - 8 * b));
      for (char& c : value) c = static_cast<char>('a' + rnd() % 26);
      d.entries.push_back(EncodeEntry(key, i + 1, kTypeValue, value));
      d.absent_keys.push_back(key);
      d.absent_keys.back().back() = '1';
      d.user_keys.push_back(std::move(key));
    }
    d.read_order.resize(g_keys);
    std::iota(d.read_order.begin(), d.read_order.end(), 0);
    std::shuffle(d.read_order.begin(), d.read_order.end(), rnd);
    return d;
  }();
  return data;
}

// "skip_list" or a TeksTable variant name ("teks", "teks-s", ...).
std::shared_ptr<MemTableRepFactory> MakeFactory(const std::string& name) {
  if (name == "skip_list") return std::make_shared<ROCKSDB_NAMESPACE::SkipListFactory>();
  TeksTableOptions options;
  if (!TeksTableOptions::ForVariant(name, &options)) {
    std::fprintf(stderr, "memtable_bench: unknown memtable '%s'\n", name.c_str());
    std::exit(1);
  }
  return NewTeksTableFactory(options);
}

// One rep with its arena and comparator (the rep refers to both).
class RepUnderTest {
 public:
  explicit RepUnderTest(const std::string& factory_name)
      : factory_(MakeFactory(factory_name)),
        rep_(factory_->CreateMemTableRep(order_, &arena_, nullptr, nullptr)) {}
  ~RepUnderTest() { rep_.reset(); }

  void Insert(const std::string& entry) {
    char* buf = nullptr;
    ROCKSDB_NAMESPACE::KeyHandle handle = rep_->Allocate(entry.size(), &buf);
    std::memcpy(buf, entry.data(), entry.size());
    rep_->InsertKey(handle);
  }
  // Waits until every inserted key is in the rep's order: a seek does.
  void WaitUntilOrdered() {
    std::unique_ptr<MemTableRep::Iterator> it(rep_->GetIterator(nullptr));
    it->SeekToFirst();
  }
  MemTableRep& rep() { return *rep_; }

 private:
  BenchArena arena_;
  InternalKeyOrder order_;
  std::shared_ptr<MemTableRepFactory> factory_;
  std::unique_ptr<MemTableRep> rep_;
};

// A rep holding the whole data set, built once per factory name.
RepUnderTest& FilledRep(const std::string& name) {
  static std::map<std::string, std::unique_ptr<RepUnderTest>> reps;
  std::unique_ptr<RepUnderTest>& rep = reps[name];
  if (rep == nullptr) {
    rep = std::make_unique<RepUnderTest>(name);
    for (const std::string& entry : Data().entries) rep->Insert(entry);
    rep->WaitUntilOrdered();
  }
  return *rep;
}

void BM_Insert(benchmark::State& state, const std::string& name) {
  const DataSet& data = Data();
  RepUnderTest rep(name);
  size_t i = 0;
  for (auto _ : state) rep.Insert(data.entries[i++]);
  state.SetItemsProcessed(static_cast<int64_t>(i));
}

// The keys a get benchmark looks up: the data set's, or absent ones.
const std::vector<std::string>& LookupKeys(bool present) {
  return present ? Data().user_keys : Data().absent_keys;
}

void BM_Get(benchmark::State& state, const std::string& name, bool present) {
  const DataSet& data = Data();
  const std::vector<std::string>& keys = LookupKeys(present);
  MemTableRep& rep = FilledRep(name).rep();
  // The callback sees the first entry at or after the lookup key; a hit is
  // one whose user key is the one looked up.
  struct Probe {
    Slice key;
    size_t found = 0;
  } probe;
  size_t i = 0;
  for (auto _ : state) {
    probe.key = keys[data.read_order[i++ % g_keys]];
    ROCKSDB_NAMESPACE::LookupKey lookup(probe.key, kReadAtLatest);
    rep.Get(lookup, &probe, [](void* arg, const char* entry) {
      auto* p = static_cast<Probe*>(arg);
      if (EntryView::Decode(entry).user_key() == p->key) p->found++;
      return false;
    });
  }
  if (probe.found != (present ? i : 0)) state.SkipWithError("a get gave a wrong answer");
  state.SetItemsProcessed(static_cast<int64_t>(i));
}

// With `read_entry`, a hit reads the entry's user key, as a rep's get
// callback does.
void BM_GetFlatHashMap(benchmark::State& state, bool present, bool read_entry) {
  const DataSet& data = Data();
  const std::vector<std::string>& keys = LookupKeys(present);
  absl::flat_hash_map<std::string_view, const char*> map;
  map.reserve(g_keys);
  for (size_t k = 0; k < g_keys; k++) map.emplace(data.user_keys[k], data.entries[k].data());
  size_t i = 0, found = 0;
  for (auto _ : state) {
    auto it = map.find(keys[data.read_order[i++ % g_keys]]);
    if (it == map.end()) continue;
    if (!read_entry || EntryView::Decode(it->second).user_key() == it->first) ++found;
    benchmark::DoNotOptimize(found);
  }
  if (found != (present ? i : 0)) state.SkipWithError("a get gave a wrong answer");
  state.SetItemsProcessed(static_cast<int64_t>(i));
}

void BM_Seek(benchmark::State& state, const std::string& name, int nexts) {
  const DataSet& data = Data();
  MemTableRep& rep = FilledRep(name).rep();
  size_t i = 0, found = 0;
  for (auto _ : state) {
    const std::string& key = data.user_keys[data.read_order[i++ % g_keys]];
    const std::string target = InternalKey(key, kReadAtLatest, kTypeValue);
    std::unique_ptr<MemTableRep::Iterator> it(rep.GetIterator(nullptr));
    it->Seek(target, nullptr);
    if (it->Valid() && EntryView::Decode(it->key()).user_key() == key) ++found;
    for (int n = 0; n < nexts && it->Valid(); n++) {
      benchmark::DoNotOptimize(it->key());
      it->Next();
    }
  }
  if (found != i) state.SkipWithError("a seek missed its key");
  state.SetItemsProcessed(static_cast<int64_t>(i));
}

// One item = one entry visited in key order; restarts at the end.
void BM_Scan(benchmark::State& state, const std::string& name) {
  MemTableRep& rep = FilledRep(name).rep();
  std::unique_ptr<MemTableRep::Iterator> it(rep.GetIterator(nullptr));
  it->SeekToFirst();
  size_t visited = 0;
  for (auto _ : state) {
    if (!it->Valid()) it->SeekToFirst();
    benchmark::DoNotOptimize(it->key());
    it->Next();
    ++visited;
  }
  state.SetItemsProcessed(static_cast<int64_t>(visited));
}

// Takes --keys=N and --value_size=N out of argv, leaving the rest to
// Google Benchmark.
void ParseOwnFlags(int* argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < *argc; i++) {
    const std::string arg = argv[i];
    size_t* target = nullptr;
    std::string value;
    if (arg.rfind("--keys=", 0) == 0) {
      target = &g_keys;
      value = arg.substr(7);
    } else if (arg.rfind("--value_size=", 0) == 0) {
      target = &g_value_size;
      value = arg.substr(13);
    }
    if (target == nullptr) {
      argv[kept++] = argv[i];
      continue;
    }
    char* end = nullptr;
    const unsigned long long parsed = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || parsed == 0 || parsed > (1ull << 32)) {
      std::fprintf(stderr, "memtable_bench: bad value in '%s' (want a positive integer)\n",
                   arg.c_str());
      std::exit(1);
    }
    *target = static_cast<size_t>(parsed);
  }
  *argc = kept;
}

void RegisterAll() {
  const std::string reps[] = {"skip_list", "teks-s", "teks"};
  // Inserting more entries than the data set holds would repeat keys.
  const auto inserts = static_cast<benchmark::IterationCount>(g_keys);
  for (const std::string& rep : reps) {
    benchmark::RegisterBenchmark(("insert/" + rep).c_str(), BM_Insert, rep)->Iterations(inserts);
  }
  for (const std::string& rep : reps) {
    benchmark::RegisterBenchmark(("get/" + rep).c_str(), BM_Get, rep, true);
  }
  benchmark::RegisterBenchmark("get/absl_flat_hash_map", BM_GetFlatHashMap, true, false);
  benchmark::RegisterBenchmark("get/absl_flat_hash_map+entry", BM_GetFlatHashMap, true, true);
  for (const std::string& rep : reps) {
    benchmark::RegisterBenchmark(("get_absent/" + rep).c_str(), BM_Get, rep, false);
  }
  benchmark::RegisterBenchmark("get_absent/absl_flat_hash_map", BM_GetFlatHashMap, false,
                               false);
  for (const std::string& rep : reps) {
    benchmark::RegisterBenchmark(("seek/" + rep).c_str(), BM_Seek, rep, 0);
  }
  for (const std::string& rep : reps) {
    benchmark::RegisterBenchmark(("seek_next10/" + rep).c_str(), BM_Seek, rep, 10);
  }
  for (const std::string& rep : reps) {
    benchmark::RegisterBenchmark(("scan/" + rep).c_str(), BM_Scan, rep);
  }
}

}  // namespace
}  // namespace teksdb

int main(int argc, char** argv) {
  teksdb::ParseOwnFlags(&argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("keys", std::to_string(teksdb::g_keys));
  benchmark::AddCustomContext("value_size", std::to_string(teksdb::g_value_size));
  teksdb::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
