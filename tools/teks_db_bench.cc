// teks_db_bench: db_bench's fillrandom, readrandom, readseq, readreverse,
// seekrandom, readwhilewriting, seekrandomwhilewriting,
// readrandomwriterandom and memstats, for a DB opened through the TeksDB layer
// (teksdb::TeksDB::Open), which Debian's db_bench cannot do. It exists so that
// scripts/bench.sh can measure TeksTable with version dropping beside
// db_bench's runs of the stock memtables and of TeksTable as a plain
// factory, and for what db_bench has no benchmark for: hot keys
// (fillrounds, readatsnapshot, hotkeysnapshot) and reads of the newest
// writes (readrecent), and restarts: `crash` kills the process (SIGKILL)
// where it stands, as kill -9 would, and --use_existing_db reopens what it
// left, printing how long the open took ("Open: X seconds": the WAL's
// replay, plus the flush RocksDB runs after recovery unless
// --avoid_flush_during_recovery); `flush` then times a flush alone.
//
// Flag names, their meaning and the lines it prints are db_bench's
// ("Memtablerep: ...", "DB path: [...]" before each benchmark, and
// "<name> : X micros/op Y ops/sec Z seconds N operations; ..."), so one
// parser reads both. memstats adds the flushes completed since the open and
// the bytes of the WAL files still alive. Keys are db_bench's: the key
// number big-endian in the first 8 bytes, '0'-padded to --key_size. Values
// are half-compressible, like db_bench's default --compression_ratio=0.5.
// --teksdb_layer=false opens plain RocksDB instead, for a same-binary
// comparison. Held snapshots: fillrounds holds one from its first round on
// (--fillrounds_snapshot), and --snapshot_cycle_ms adds a thread that takes
// and releases one every that many milliseconds while a fill runs.
//
// Threads: each benchmark runs on --threads threads at once, released
// together; each thread has its own random generator, iterators and
// counters, and only the shared DB is touched concurrently. As in db_bench,
// micros/op is the threads' summed time over all operations and ops/sec is
// all operations over the wall time. The *whilewriting benchmarks add one
// writer thread, overwriting random keys until the readers are done, whose
// writes are not counted. --benchmark_write_rate_limit limits the writes
// of the fills and of that writer, as in db_bench (readrandomwriterandom's
// are not limited there either).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <gflags/gflags.h>

#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/memtablerep.h"
#include "rocksdb/options.h"
#include "rocksdb/rate_limiter.h"
#include "rocksdb/transaction_log.h"
#include "rocksdb/version.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"

DEFINE_string(benchmarks, "fillrandom,readrandom,readseq,seekrandom",
              "comma-separated: fillrandom, fillrounds (--writes puts cycling over the --num "
              "keys in order, so each key gets writes/num versions; a snapshot is taken "
              "after the first round), readrandom, readatsnapshot (readrandom at the "
              "snapshot fillrounds took), readrecent (gets of keys drawn uniformly from the "
              "last --recent_keys keys each thread wrote), readseq, readreverse, seekrandom, "
              "hotkeysnapshot (--writes updates of one key under a held snapshot), memstats, "
              "levelstats");
DEFINE_int64(num, 1000000, "number of distinct keys");
DEFINE_int64(reads, -1, "reads per thread per read benchmark (-1: --num)");
DEFINE_int64(writes, -1, "writes per thread in fillrandom (-1: --num)");
DEFINE_int64(recent_keys, -1,
             "readrecent draws from the last this many keys each thread wrote (-1: "
             "--write_buffer_size / (--key_size + --value_size), about one write buffer)");
DEFINE_int32(key_size, 16, "key bytes (at least 8)");
DEFINE_int32(value_size, 100, "value bytes");
DEFINE_int32(threads, 1, "threads per benchmark");
DEFINE_int32(seek_nexts, 0, "Next() calls after each seek in seekrandom");
DEFINE_int64(seed, 0, "random seed (0: from the clock)");
DEFINE_string(db, "", "DB directory (default: a fresh one under /tmp)");
DEFINE_string(wal_dir, "", "WAL directory (default: --db)");
DEFINE_string(memtablerep, "teks", "memtable factory: any name or option string RocksDB accepts");
DEFINE_bool(use_existing_db, false, "open the DB at --db as it is (false: create it, fail if it exists)");
DEFINE_bool(avoid_flush_during_recovery, false,
            "keep the memtables the WAL's replay rebuilt (false: RocksDB flushes them in the open)");
DEFINE_bool(teksdb_layer, true, "open through teksdb::TeksDB (false: plain rocksdb::DB)");
DEFINE_int64(write_buffer_size, 64 << 20, "memtable bytes before a switch");
DEFINE_int32(max_write_buffer_number, 2, "memtables per column family");
DEFINE_int64(memtable_huge_page_size, 0,
             "memtable arena blocks from huge pages of this size (0: none; needs reserved hugetlbfs pages)");
DEFINE_bool(disable_auto_compactions, false, "no automatic compactions");
DEFINE_bool(allow_concurrent_memtable_write, true, "concurrent memtable inserts");
DEFINE_bool(enable_pipelined_write, true, "pipeline WAL and memtable writes (db_bench's default)");
DEFINE_string(compression_type, "snappy", "none, snappy, zlib, bzip2, lz4, lz4hc, xpress or zstd");
DEFINE_bool(disable_wal, false, "write without the write-ahead log");
DEFINE_int64(benchmark_write_rate_limit, 0, "bytes/s of key and value all writes may take (0: no limit)");
DEFINE_int32(readwritepercent, 90, "readrandomwriterandom: percent of operations that are reads");
DEFINE_bool(fillrounds_snapshot, true,
            "fillrounds takes a snapshot after its first round and holds it to the end "
            "(readatsnapshot reads at it)");
DEFINE_int32(snapshot_cycle_ms, 0,
             "while fillrandom or fillrounds runs, a snapshot is taken and released every this "
             "many milliseconds, as a backup or a periodic reader would (0: none)");

namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "teks_db_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(const Status& s, const std::string& what) {
  if (!s.ok()) Fail(what + ": " + s.ToString());
}

// Counts every flush that completes, for memstats.
class FlushCounter : public ROCKSDB_NAMESPACE::EventListener {
 public:
  void OnFlushCompleted(DB* /*db*/, const ROCKSDB_NAMESPACE::FlushJobInfo& /*info*/) override {
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> count_{0};
};
const auto flush_counter = std::make_shared<FlushCounter>();

// db_bench's key for number k: big-endian k, then '0' up to key_size.
void MakeKey(uint64_t k, std::string* key) {
  key->assign(static_cast<size_t>(FLAGS_key_size), '0');
  for (int i = 0; i < 8; i++) (*key)[i] = static_cast<char>(k >> (56 - 8 * i));
}

// A pool of value bytes: 1 MiB of 100-byte pieces whose second half
// repeats the first, read from a rolling offset.
class ValueSource {
 public:
  explicit ValueSource(uint64_t seed) {
    std::mt19937_64 rnd(seed);
    pool_.resize(1 << 20);
    for (size_t piece = 0; piece + 100 <= pool_.size(); piece += 100) {
      for (size_t i = 0; i < 50; i++) pool_[piece + i] = static_cast<char>(' ' + rnd() % 95);
      std::memcpy(&pool_[piece + 50], &pool_[piece], 50);
    }
  }
  Slice Next(size_t size) {
    if (offset_ + size > pool_.size()) offset_ = 0;
    Slice value(pool_.data() + offset_, size);
    offset_ += size;
    return value;
  }

 private:
  std::string pool_;
  size_t offset_ = 0;
};

// The last `capacity` key numbers one thread wrote; older ones are
// overwritten. Kept in no particular order: readrecent draws uniformly.
class RecentKeys {
 public:
  explicit RecentKeys(size_t capacity) : keys_(capacity) {}
  void Add(uint64_t key_number) {
    keys_[static_cast<size_t>(added_ % keys_.size())] = key_number;
    added_++;
  }
  size_t size() const { return static_cast<size_t>(std::min<uint64_t>(added_, keys_.size())); }
  uint64_t operator[](size_t i) const { return keys_[i]; }

 private:
  std::vector<uint64_t> keys_;
  uint64_t added_ = 0;
};

// What one thread did in one benchmark.
struct ThreadResult {
  uint64_t ops = 0;
  uint64_t found = 0;
  uint64_t bytes = 0;
  double seconds = 0;
};

class Benchmark {
 public:
  // recent_keys > 0: every fill remembers the last recent_keys key numbers
  // each thread wrote, for readrecent.
  Benchmark(DB* db, uint64_t seed, uint64_t recent_keys) : db_(db), seed_(seed) {
    if (recent_keys > 0) {
      recent_.assign(static_cast<size_t>(FLAGS_threads), RecentKeys(recent_keys));
    }
    write_options_.disableWAL = FLAGS_disable_wal;
    if (FLAGS_benchmark_write_rate_limit > 0) {
      write_rate_limiter_.reset(
          ROCKSDB_NAMESPACE::NewGenericRateLimiter(FLAGS_benchmark_write_rate_limit));
    }
  }
  ~Benchmark() {
    if (first_round_ != nullptr) db_->ReleaseSnapshot(first_round_);
  }

  // Runs `name` (one of kBenchmarks) on --threads threads and prints its
  // result line.
  void Run(const std::string& name) {
    if (name == "memstats") return PrintMemStats();
    if (name == "levelstats") return PrintProperty("rocksdb.levelstats");
    if (name == "crash") return Crash();
    if (name == "flush") return TimedFlush();
    void (Benchmark::*method)(int, ThreadResult*) = nullptr;
    if (name == "fillrandom") method = &Benchmark::FillRandom;
    if (name == "fillrounds") method = &Benchmark::FillRounds;
    if (name == "readrandom") method = &Benchmark::ReadRandom;
    if (name == "readatsnapshot") {
      if (first_round_ == nullptr) Fail("readatsnapshot needs fillrounds to run before it");
      method = &Benchmark::ReadAtSnapshot;
    }
    if (name == "readrecent") {
      if (RecentKeyCount() == 0) Fail("readrecent needs a fill to run before it");
      method = &Benchmark::ReadRecent;
    }
    if (name == "readseq") method = &Benchmark::ReadSequential;
    if (name == "readreverse") method = &Benchmark::ReadReverse;
    if (name == "seekrandom" || name == "seekrandomwhilewriting") method = &Benchmark::SeekRandom;
    if (name == "readwhilewriting") method = &Benchmark::ReadRandom;
    if (name == "readrandomwriterandom") method = &Benchmark::ReadRandomWriteRandom;
    if (name == "hotkeysnapshot") method = &Benchmark::HotKeyUnderSnapshot;
    const bool beside_writer = name == "readwhilewriting" || name == "seekrandomwhilewriting";
    const bool cycle_snapshots =
        FLAGS_snapshot_cycle_ms > 0 && (name == "fillrandom" || name == "fillrounds");

    runs_++;
    std::printf("DB path: [%s]\n", FLAGS_db.c_str());
    std::fflush(stdout);
    const int threads = FLAGS_threads;
    std::vector<ThreadResult> results(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    std::mutex mu;
    std::condition_variable cv;
    bool go = false;
    for (int t = 0; t < threads; t++) {
      workers.emplace_back([&, t] {
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return go; });
        }
        const auto start = std::chrono::steady_clock::now();
        (this->*method)(t, &results[static_cast<size_t>(t)]);
        results[static_cast<size_t>(t)].seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      });
    }
    std::atomic<bool> workers_done{false};
    std::thread writer;
    if (beside_writer) {
      writer = std::thread([&] {
        {
          std::unique_lock<std::mutex> lock(mu);
          cv.wait(lock, [&] { return go; });
        }
        OverwriteUntil(workers_done);
      });
    }
    std::thread snapshots;
    if (cycle_snapshots) snapshots = std::thread([&] { CycleSnapshotsUntil(workers_done); });
    const auto start = std::chrono::steady_clock::now();
    {
      std::lock_guard<std::mutex> lock(mu);
      go = true;
    }
    cv.notify_all();
    for (std::thread& w : workers) w.join();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    workers_done = true;
    if (writer.joinable()) writer.join();
    if (snapshots.joinable()) snapshots.join();
    Report(name, results, wall);
  }

 private:
  uint64_t ReadsPerThread() const {
    return static_cast<uint64_t>(FLAGS_reads < 0 ? FLAGS_num : FLAGS_reads);
  }
  // A generator per thread and benchmark, so reads do not replay the
  // fill's key sequence (db_bench, too, reseeds for every benchmark).
  std::mt19937_64 ThreadRandom(int thread) const {
    return std::mt19937_64(seed_ + 1000003 * static_cast<uint64_t>(thread + 1) +
                           7919 * runs_);
  }
  uint64_t RandomKeyNumber(std::mt19937_64* rnd) const {
    return (*rnd)() % static_cast<uint64_t>(FLAGS_num);
  }
  // db_bench's progress on stderr, from thread 0 only.
  static void Progress(int thread, uint64_t done) {
    if (thread == 0 && done % (1 << 18) == 0) {
      std::fprintf(stderr, "... finished %llu ops%30s\r", static_cast<unsigned long long>(done), "");
    }
  }

  // The writes of every fill: --writes puts per thread of db_bench's values,
  // write i to the key number `choose_key(i)` returns (called just before
  // that write, so it may also act then).
  template <typename ChooseKey>
  void Fill(int thread, ThreadResult* result, ChooseKey choose_key) {
    ValueSource values(seed_ + static_cast<uint64_t>(thread));
    const uint64_t writes = static_cast<uint64_t>(FLAGS_writes < 0 ? FLAGS_num : FLAGS_writes);
    std::string key;
    for (uint64_t i = 0; i < writes; i++) {
      const uint64_t key_number = choose_key(i);
      MakeKey(key_number, &key);
      Put(key, &values);
      if (!recent_.empty()) recent_[static_cast<size_t>(thread)].Add(key_number);
      result->bytes += key.size() + static_cast<uint64_t>(FLAGS_value_size);
      Progress(thread, ++result->ops);
    }
  }

  // One put of a --value_size value, within --benchmark_write_rate_limit
  // if `limited`.
  void Put(const std::string& key, ValueSource* values, bool limited = true) {
    if (limited && write_rate_limiter_ != nullptr) {
      write_rate_limiter_->Request(key.size() + static_cast<size_t>(FLAGS_value_size),
                                   ROCKSDB_NAMESPACE::Env::IO_HIGH, nullptr,
                                   ROCKSDB_NAMESPACE::RateLimiter::OpType::kWrite);
    }
    Check(db_->Put(write_options_, key, values->Next(static_cast<size_t>(FLAGS_value_size))),
          "Put");
  }

  // The *whilewriting benchmarks' writer: random keys until `stop`.
  void OverwriteUntil(const std::atomic<bool>& stop) {
    std::mt19937_64 rnd = ThreadRandom(FLAGS_threads);
    ValueSource values(seed_ + static_cast<uint64_t>(FLAGS_threads));
    std::string key;
    while (!stop.load(std::memory_order_relaxed)) {
      MakeKey(RandomKeyNumber(&rnd), &key);
      Put(key, &values);
    }
  }

  // db_bench's readrandomwriterandom: per thread, max(--reads, --writes)
  // operations on random keys, --readwritepercent of them gets, the rest
  // puts.
  void ReadRandomWriteRandom(int thread, ThreadResult* result) {
    std::mt19937_64 rnd = ThreadRandom(thread);
    ValueSource values(seed_ + static_cast<uint64_t>(thread));
    const uint64_t writes = static_cast<uint64_t>(FLAGS_writes < 0 ? FLAGS_num : FLAGS_writes);
    const uint64_t ops = std::max(ReadsPerThread(), writes);
    std::string key;
    ROCKSDB_NAMESPACE::PinnableSlice value;
    for (uint64_t i = 0; i < ops; i++) {
      MakeKey(RandomKeyNumber(&rnd), &key);
      if (static_cast<int>(rnd() % 100) < FLAGS_readwritepercent) {
        value.Reset();
        const Status s = db_->Get(ROCKSDB_NAMESPACE::ReadOptions(), db_->DefaultColumnFamily(),
                                  key, &value);
        if (s.ok()) {
          result->found++;
        } else if (!s.IsNotFound()) {
          Check(s, "Get");
        }
      } else {
        Put(key, &values, /*limited=*/false);
      }
      Progress(thread, ++result->ops);
    }
  }

  // --writes updates of one key (key number 0) per thread, while a snapshot
  // taken before the first one is held: no version can be dropped, and a
  // drop attempt that walked the key's versions would make this quadratic.
  void HotKeyUnderSnapshot(int thread, ThreadResult* result) {
    const ROCKSDB_NAMESPACE::Snapshot* snapshot = db_->GetSnapshot();
    Fill(thread, result, [](uint64_t) { return uint64_t{0}; });
    db_->ReleaseSnapshot(snapshot);
  }

  void FillRandom(int thread, ThreadResult* result) {
    std::mt19937_64 rnd = ThreadRandom(thread);
    Fill(thread, result, [&](uint64_t) { return RandomKeyNumber(&rnd); });
  }

  // --writes puts per thread over keys 0, 1, ..., num-1, 0, 1, ...: every
  // key gets about writes/num versions, interleaved with the other keys'.
  // Thread 0 takes the snapshot readatsnapshot reads at after its first
  // round, so those reads must pass every later version.
  void FillRounds(int thread, ThreadResult* result) {
    const uint64_t num = static_cast<uint64_t>(FLAGS_num);
    const bool snapshot = thread == 0 && FLAGS_fillrounds_snapshot;
    Fill(thread, result, [&](uint64_t i) {
      if (snapshot && i == num && first_round_ == nullptr) first_round_ = db_->GetSnapshot();
      return i % num;
    });
    if (snapshot && first_round_ == nullptr) first_round_ = db_->GetSnapshot();
  }

  // Until `done`: a snapshot held for --snapshot_cycle_ms, released, the
  // next taken at once.
  void CycleSnapshotsUntil(const std::atomic<bool>& done) {
    while (!done.load()) {
      const ROCKSDB_NAMESPACE::Snapshot* snapshot = db_->GetSnapshot();
      const auto until = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(FLAGS_snapshot_cycle_ms);
      while (!done.load() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      db_->ReleaseSnapshot(snapshot);
    }
  }

  void ReadRandom(int thread, ThreadResult* result) {
    ReadRandomAt(ROCKSDB_NAMESPACE::ReadOptions(), thread, result);
  }

  void ReadAtSnapshot(int thread, ThreadResult* result) {
    ROCKSDB_NAMESPACE::ReadOptions options;
    options.snapshot = first_round_;
    ReadRandomAt(options, thread, result);
  }

  void ReadRandomAt(const ROCKSDB_NAMESPACE::ReadOptions& options, int thread,
                    ThreadResult* result) {
    std::mt19937_64 rnd = ThreadRandom(thread);
    ReadKeys(options, thread, result, [&] { return RandomKeyNumber(&rnd); });
  }

  // Gets of keys drawn uniformly from the last --recent_keys keys each
  // thread wrote (every thread's, whichever thread reads): YCSB's "latest"
  // idea, most reads hit the newest writes.
  void ReadRecent(int thread, ThreadResult* result) {
    std::mt19937_64 rnd = ThreadRandom(thread);
    const uint64_t count = RecentKeyCount();
    ReadKeys(ROCKSDB_NAMESPACE::ReadOptions(), thread, result, [&] {
      size_t i = static_cast<size_t>(rnd() % count);
      for (const RecentKeys& keys : recent_) {
        if (i < keys.size()) return keys[i];
        i -= keys.size();
      }
      Fail("readrecent: drew past the recent keys");
    });
  }

  uint64_t RecentKeyCount() const {
    uint64_t count = 0;
    for (const RecentKeys& keys : recent_) count += keys.size();
    return count;
  }

  // --reads gets per thread of the key numbers `choose_key` returns.
  template <typename ChooseKey>
  void ReadKeys(const ROCKSDB_NAMESPACE::ReadOptions& options, int thread, ThreadResult* result,
                ChooseKey choose_key) {
    std::string key;
    ROCKSDB_NAMESPACE::PinnableSlice value;
    const uint64_t reads = ReadsPerThread();
    for (uint64_t i = 0; i < reads; i++) {
      MakeKey(choose_key(), &key);
      value.Reset();
      const Status s = db_->Get(options, db_->DefaultColumnFamily(), key, &value);
      if (s.ok()) {
        result->found++;
        result->bytes += key.size() + value.size();
      } else if (!s.IsNotFound()) {
        Check(s, "Get");
      }
      Progress(thread, ++result->ops);
    }
  }

  // readseq and readreverse read --reads entries, starting a new pass with a
  // new iterator at the end of the DB (db_bench stops there instead), so a
  // DB of a few hot keys still gives enough operations to time.
  void ReadSequential(int thread, ThreadResult* result) { ReadPasses(true, thread, result); }
  void ReadReverse(int thread, ThreadResult* result) { ReadPasses(false, thread, result); }

  void ReadPasses(bool forward, int thread, ThreadResult* result) {
    const uint64_t reads = ReadsPerThread();
    while (result->ops < reads) {
      std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
          db_->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
      forward ? it->SeekToFirst() : it->SeekToLast();
      if (!it->Valid()) break;
      for (; result->ops < reads && it->Valid(); forward ? it->Next() : it->Prev()) {
        result->bytes += it->key().size() + it->value().size();
        Progress(thread, ++result->ops);
      }
      Check(it->status(), forward ? "readseq iterator" : "readreverse iterator");
    }
  }

  void SeekRandom(int thread, ThreadResult* result) {
    std::mt19937_64 rnd = ThreadRandom(thread);
    std::string key;
    const uint64_t reads = ReadsPerThread();
    for (uint64_t i = 0; i < reads; i++) {
      MakeKey(RandomKeyNumber(&rnd), &key);
      std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
          db_->NewIterator(ROCKSDB_NAMESPACE::ReadOptions()));
      it->Seek(key);
      if (it->Valid() && it->key() == key) result->found++;
      for (int j = 0; j < FLAGS_seek_nexts && it->Valid(); j++) {
        result->bytes += it->key().size() + it->value().size();
        it->Next();
      }
      Check(it->status(), "seekrandom iterator");
      Progress(thread, ++result->ops);
    }
  }

  // db_bench's levelstats: the property's text as it is.
  void PrintProperty(const char* property) {
    std::string value;
    if (!db_->GetProperty(property, &value)) value = std::string(property) + ": (failed)\n";
    std::printf("%s", value.c_str());
    std::fflush(stdout);
  }

  // kill -9 of this process: what the writes so far handed to the OS (the
  // WAL, without sync) survives, nothing is flushed or closed.
  static void Crash() {
    std::printf("crash: SIGKILL\n");
    std::fflush(stdout);
    raise(SIGKILL);
  }

  // A flush of every memtable, waited for, reported as one operation.
  void TimedFlush() {
    std::printf("DB path: [%s]\n", FLAGS_db.c_str());
    const auto start = std::chrono::steady_clock::now();
    Check(db_->Flush(ROCKSDB_NAMESPACE::FlushOptions()), "Flush");
    ThreadResult flush;
    flush.ops = 1;
    flush.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Report("flush", {flush}, flush.seconds);
  }

  void PrintMemStats() {
    for (const char* property :
         {"rocksdb.num-immutable-mem-table", "rocksdb.cur-size-active-mem-table",
          "rocksdb.cur-size-all-mem-tables", "rocksdb.size-all-mem-tables",
          "rocksdb.num-entries-active-mem-table", "rocksdb.num-entries-imm-mem-tables"}) {
      std::string value;
      if (!db_->GetProperty(property, &value)) value = "(failed)";
      std::printf("%s: %s\n", property, value.c_str());
    }
    std::printf("flushes completed: %lu\n", static_cast<unsigned long>(flush_counter->count()));
    ROCKSDB_NAMESPACE::VectorLogPtr wal_files;
    uint64_t wal_bytes = 0;
    Check(db_->GetSortedWalFiles(wal_files), "GetSortedWalFiles");
    for (const auto& file : wal_files) {
      if (file->Type() == ROCKSDB_NAMESPACE::kAliveLogFile) wal_bytes += file->SizeFileBytes();
    }
    std::printf("live WAL bytes: %lu\n", static_cast<unsigned long>(wal_bytes));
    std::fflush(stdout);
  }

  static void Report(const std::string& name, const std::vector<ThreadResult>& results,
                     double wall) {
    ThreadResult total;
    for (const ThreadResult& r : results) {
      total.ops += r.ops;
      total.found += r.found;
      total.bytes += r.bytes;
      total.seconds += r.seconds;
    }
    const uint64_t ops = std::max<uint64_t>(total.ops, 1);
    std::string extra;
    if (total.bytes > 0) {
      char rate[64];
      std::snprintf(rate, sizeof(rate), " %6.1f MB/s", total.bytes / 1048576.0 / wall);
      extra = rate;
    }
    if (name == "readrandom" || name == "readatsnapshot" || name == "readrecent" ||
        name == "seekrandom" || name == "readwhilewriting" || name == "seekrandomwhilewriting") {
      // Like db_bench, the message is one thread's.
      extra += " (" + std::to_string(results[0].found) + " of " + std::to_string(results[0].ops) +
               " found)";
    }
    std::fprintf(stderr, "%60s\r", "");
    std::printf("%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %llu operations;%s\n",
                name.c_str(), total.seconds * 1e6 / static_cast<double>(ops),
                static_cast<long>(static_cast<double>(total.ops) / wall), wall,
                static_cast<unsigned long long>(total.ops), extra.c_str());
    std::fflush(stdout);
  }

  DB* db_;
  uint64_t seed_;
  ROCKSDB_NAMESPACE::WriteOptions write_options_;
  // Shared by every writing thread, as db_bench's is.
  std::unique_ptr<ROCKSDB_NAMESPACE::RateLimiter> write_rate_limiter_;
  uint64_t runs_ = 0;  // benchmarks started, for ThreadRandom
  // Taken by fillrounds after its first round; held until the end.
  const ROCKSDB_NAMESPACE::Snapshot* first_round_ = nullptr;
  // Per writing thread, for readrecent; empty unless readrecent will run.
  std::vector<RecentKeys> recent_;
};

ROCKSDB_NAMESPACE::CompressionType ParseCompression(const std::string& name) {
  using ROCKSDB_NAMESPACE::CompressionType;
  static const std::pair<const char*, CompressionType> kTypes[] = {
      {"none", CompressionType::kNoCompression},   {"snappy", CompressionType::kSnappyCompression},
      {"zlib", CompressionType::kZlibCompression}, {"bzip2", CompressionType::kBZip2Compression},
      {"lz4", CompressionType::kLZ4Compression},   {"lz4hc", CompressionType::kLZ4HCCompression},
      {"xpress", CompressionType::kXpressCompression}, {"zstd", CompressionType::kZSTD}};
  for (const auto& [type_name, type] : kTypes) {
    if (name == type_name) return type;
  }
  Fail("unknown --compression_type '" + name + "'");
}

ROCKSDB_NAMESPACE::Options MakeOptions() {
  ROCKSDB_NAMESPACE::Options options;
  options.listeners.push_back(flush_counter);
  options.create_if_missing = !FLAGS_use_existing_db;
  options.error_if_exists = !FLAGS_use_existing_db;
  options.avoid_flush_during_recovery = FLAGS_avoid_flush_during_recovery;
  options.wal_dir = FLAGS_wal_dir;
  options.write_buffer_size = static_cast<size_t>(FLAGS_write_buffer_size);
  options.max_write_buffer_number = FLAGS_max_write_buffer_number;
  options.memtable_huge_page_size = static_cast<size_t>(FLAGS_memtable_huge_page_size);
  options.disable_auto_compactions = FLAGS_disable_auto_compactions;
  options.allow_concurrent_memtable_write = FLAGS_allow_concurrent_memtable_write;
  options.enable_pipelined_write = FLAGS_enable_pipelined_write;
  options.compression = ParseCompression(FLAGS_compression_type);
  ROCKSDB_NAMESPACE::ConfigOptions config;
  config.ignore_unsupported_options = false;
  Check(ROCKSDB_NAMESPACE::MemTableRepFactory::CreateFromString(config, FLAGS_memtablerep,
                                                                &options.memtable_factory),
        "--memtablerep '" + FLAGS_memtablerep + "'");
  if (FLAGS_teksdb_layer && teksdb::GetTeksTableOptions(*options.memtable_factory) == nullptr) {
    Fail("--teksdb_layer needs a TeksTable --memtablerep, not '" + FLAGS_memtablerep +
         "' (or pass --teksdb_layer=false)");
  }
  return options;
}

const char* const kBenchmarks[] = {"fillrandom",       "fillrounds",
                                   "readrandom",       "readatsnapshot",
                                   "readrecent",       "readseq",
                                   "readreverse",      "seekrandom",
                                   "readwhilewriting", "seekrandomwhilewriting",
                                   "readrandomwriterandom", "hotkeysnapshot",
                                   "memstats",         "levelstats",
                                   "flush",            "crash"};

std::vector<std::string> BenchmarkNames() {
  std::vector<std::string> names;
  std::stringstream list(FLAGS_benchmarks);
  for (std::string name; std::getline(list, name, ',');) {
    if (name.empty()) continue;
    if (std::find(std::begin(kBenchmarks), std::end(kBenchmarks), name) == std::end(kBenchmarks)) {
      std::string known;
      for (const char* b : kBenchmarks) known += std::string(known.empty() ? "" : ", ") + b;
      Fail("unknown benchmark '" + name + "' (known: " + known + ")");
    }
    names.push_back(name);
  }
  return names;
}

void ValidateFlags() {
  if (FLAGS_num <= 0) Fail("--num must be positive");
  if (FLAGS_key_size < 8) Fail("--key_size must be at least 8");
  if (FLAGS_value_size < 0 || FLAGS_value_size > (1 << 20)) Fail("--value_size must be in [0, 1 MiB]");
  if (FLAGS_threads <= 0) Fail("--threads must be positive");
  if (FLAGS_snapshot_cycle_ms < 0) Fail("--snapshot_cycle_ms must be 0 or positive");
  if (FLAGS_seek_nexts < 0) Fail("--seek_nexts must not be negative");
  if (FLAGS_benchmark_write_rate_limit < 0) Fail("--benchmark_write_rate_limit must not be negative");
  if (FLAGS_readwritepercent < 0 || FLAGS_readwritepercent > 100) {
    Fail("--readwritepercent must be in [0, 100]");
  }
  if (FLAGS_recent_keys == 0 || FLAGS_recent_keys < -1) {
    Fail("--recent_keys must be positive or -1");
  }
}

// --recent_keys, with -1 resolved: about one write buffer of writes.
uint64_t RecentKeysPerThread() {
  if (FLAGS_recent_keys > 0) return static_cast<uint64_t>(FLAGS_recent_keys);
  return std::max<uint64_t>(1, static_cast<uint64_t>(FLAGS_write_buffer_size) /
                                   static_cast<uint64_t>(FLAGS_key_size + FLAGS_value_size));
}

}  // namespace

int main(int argc, char** argv) {
  gflags::SetUsageMessage("db_bench-compatible benchmarks through the TeksDB layer");
  gflags::ParseCommandLineFlags(&argc, &argv, true);
  if (argc > 1) Fail(std::string("unexpected argument '") + argv[1] + "'");
  ValidateFlags();
  const std::vector<std::string> benchmarks = BenchmarkNames();
  if (FLAGS_db.empty()) FLAGS_db = "/tmp/teks_db_bench-" + std::to_string(getpid());
  const uint64_t seed = FLAGS_seed != 0
                            ? static_cast<uint64_t>(FLAGS_seed)
                            : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());

  ROCKSDB_NAMESPACE::Options options = MakeOptions();
  std::unique_ptr<DB> db;
  const auto open_start = std::chrono::steady_clock::now();
  if (FLAGS_teksdb_layer) {
    std::unique_ptr<teksdb::TeksDB> teks_db;
    Check(teksdb::TeksDB::Open(options, FLAGS_db, &teks_db), "TeksDB::Open " + FLAGS_db);
    db = std::move(teks_db);
  } else {
    std::unique_ptr<DB> plain;
    Check(teksdb::OpenDB(options, FLAGS_db, &plain), "DB::Open " + FLAGS_db);
    db = std::move(plain);
  }

  const double open_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - open_start).count();

  std::printf("RocksDB:    version %d.%d.%d\n", ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH);
  std::printf("Keys:       %d bytes each\n", FLAGS_key_size);
  std::printf("Values:     %d bytes each\n", FLAGS_value_size);
  std::printf("Entries:    %ld\n", static_cast<long>(FLAGS_num));
  std::printf("Memtablerep: %s\n", db->GetOptions().memtable_factory->Name());
  std::printf("TeksDB layer: %s\n", FLAGS_teksdb_layer ? "on" : "off");
  std::printf("Open:       %.3f seconds\n", open_seconds);
  std::printf("------------------------------------------------\n");

  {
    // Its snapshot is released before the DB closes.
    const bool reads_recent =
        std::find(benchmarks.begin(), benchmarks.end(), "readrecent") != benchmarks.end();
    Benchmark benchmark(db.get(), seed, reads_recent ? RecentKeysPerThread() : 0);
    for (const std::string& name : benchmarks) benchmark.Run(name);
  }
  Check(db->Close(), "Close");
  return 0;
}
