// VersionRecycler implementation: the per-thread bins.
#include "version_recycler.h"

#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

namespace teksdb {

namespace {

// One thread's retired memory of one rep: cut and not yet published (the
// newest entries, epoch kUnpublished), waiting for its epoch to pass, then
// ready by allocation size.
struct RecycleBin {
  static constexpr uint64_t kUnpublished = ~uint64_t{0};
  struct Waiting {
    uint64_t epoch;
    char* memory;
    uint32_t size;
  };
  uint64_t rep_id = 0;
  // The rep's count of reused bytes, which outlives the rep.
  std::shared_ptr<std::atomic<size_t>> reused_bytes;
  std::deque<Waiting> waiting;
  size_t unpublished = 0;
  std::unordered_map<uint32_t, std::vector<char*>> ready;
  size_t ready_count = 0;
  // Taken bytes not yet added to reused_bytes.
  size_t unreported_bytes = 0;
  // Takes that found nothing ready since the last try to advance the epoch.
  uint32_t misses = 0;
  // When this bin was last used, for choosing one to give to another rep.
  uint64_t last_used = 0;

  ~RecycleBin() {
    if (reused_bytes != nullptr) Report();
  }
  void Report() {
    if (unreported_bytes == 0) return;
    reused_bytes->fetch_add(unreported_bytes, std::memory_order_relaxed);
    unreported_bytes = 0;
  }
  // Hands the bin to another rep; the memory it held stays in the old
  // rep's arena, unused.
  void Reset(uint64_t id, std::shared_ptr<std::atomic<size_t>> counter) {
    if (reused_bytes != nullptr) Report();
    rep_id = id;
    reused_bytes = std::move(counter);
    waiting.clear();
    unpublished = 0;
    ready.clear();
    ready_count = 0;
    misses = 0;
  }
  // Tags the unpublished entries with the epoch their publication returned.
  void Published(uint64_t epoch) {
    for (auto it = waiting.rbegin(); unpublished > 0; ++it, --unpublished) it->epoch = epoch;
  }
  // Memory of `size` bytes from the ready lists, or nullptr.
  char* PopReady(size_t size) {
    auto it = ready.find(static_cast<uint32_t>(size));
    if (it == ready.end() || it->second.empty()) return nullptr;
    char* memory = it->second.back();
    it->second.pop_back();
    --ready_count;
    return memory;
  }
  // Moves what no reader can be looking at any more (published two epochs
  // ago) to the ready lists.
  void Promote(uint64_t epoch) {
    while (!waiting.empty() && waiting.front().epoch != kUnpublished &&
           waiting.front().epoch + 2 <= epoch) {
      const Waiting& w = waiting.front();
      if (ready_count >= VersionRecycler::kMaxReady) DropOneReady(w.size);
      ready[w.size].push_back(w.memory);
      ++ready_count;
      waiting.pop_front();
    }
  }
  // Makes room for memory of `size` in full ready lists: gives up one entry
  // of another size if there is one (the first the map holds), else of
  // `size`. New memory always gets in, so lists of a size that updates no
  // longer ask for (values that changed size) drain instead of keeping the
  // bin full for good.
  // Lists emptied by takes that it passes go, so that each is passed once.
  // REQUIRES: ready_count > 0.
  void DropOneReady(uint32_t size) {
    auto victim = ready.end();
    for (auto it = ready.begin(); it != ready.end();) {
      if (it->second.empty()) {
        it = ready.erase(it);
        continue;
      }
      victim = it;
      if (it->first != size) break;
      ++it;
    }
    victim->second.pop_back();
    --ready_count;
  }
};

// A thread writing to several reps at once (column families written in
// one batch) keeps a bin for each of the last few.
constexpr int kBinsPerThread = 4;
thread_local RecycleBin bins[kBinsPerThread];
thread_local uint64_t bin_clock = 0;

// This thread's bin for `rep_id`, or nullptr.
RecycleBin* FindBin(uint64_t rep_id) {
  for (RecycleBin& bin : bins) {
    if (bin.rep_id == rep_id) {
      bin.last_used = ++bin_clock;
      return &bin;
    }
  }
  return nullptr;
}

// This thread's bin for `rep_id`, the least recently used one given to it
// if it has none.
RecycleBin* ClaimBin(uint64_t rep_id, const std::shared_ptr<std::atomic<size_t>>& reused_bytes) {
  if (RecycleBin* bin = FindBin(rep_id)) return bin;
  RecycleBin* bin = &bins[0];
  for (RecycleBin& other : bins) {
    if (other.last_used < bin->last_used) bin = &other;
  }
  bin->Reset(rep_id, reused_bytes);
  bin->last_used = ++bin_clock;
  return bin;
}

// Takes that find nothing ready between two tries to advance the epoch: a
// try reads every stripe of the epoch counters.
constexpr uint32_t kMissesPerAdvance = 4;
// Cut versions retired between two publications (one read-modify-write of
// the shared epoch each).
constexpr size_t kRetiresPerPublication = 32;

// Queues `v`'s memory in `bin` if it may be reused.
void Queue(RecycleBin* bin, Version* v) {
  const size_t size = v->OwnAllocationSize();
  // Merge operands are left alone: a Get keeps pointers to the ones it
  // collects after the rep's read returns (RocksDB's MergeContext), to
  // merge them with what older memtables and files hold.
  if (size == 0 || v->view().type() == kEntryMerge ||
      bin->waiting.size() >= VersionRecycler::kMaxWaiting) {
    return;
  }
  bin->waiting.push_back({RecycleBin::kUnpublished, v->allocation(), static_cast<uint32_t>(size)});
  ++bin->unpublished;
}

}  // namespace

void VersionRecycler::Retire(Version* cut_part) { RetireUntil(cut_part, nullptr); }

void VersionRecycler::RetireSpliced(Version* spliced) { RetireUntil(spliced, spliced->older()); }

void VersionRecycler::RetireUntil(Version* first, const Version* stop) {
  if (BudgetSpent()) return;
  RecycleBin* bin = ClaimBin(rep_id_, reused_bytes_);
  for (Version* v = first; v != stop; v = v->older()) Queue(bin, v);
  if (bin->unpublished >= kRetiresPerPublication) bin->Published(epochs_.PublishCuts());
}

char* VersionRecycler::Take(size_t size) {
  if (BudgetSpent()) return nullptr;
  RecycleBin* bin = FindBin(rep_id_);
  if (bin == nullptr || (bin->waiting.empty() && bin->ready_count == 0)) return nullptr;
  char* memory = bin->PopReady(size);
  if (memory == nullptr) {
    if (bin->unpublished > 0) bin->Published(epochs_.PublishCuts());
    const uint64_t epoch = epochs_.current();
    bin->Promote(epoch);
    memory = bin->PopReady(size);
    if (memory == nullptr && !bin->waiting.empty() && ++bin->misses >= kMissesPerAdvance) {
      bin->misses = 0;
      if (epochs_.TryAdvance(epoch)) {
        bin->Promote(epochs_.current());
        memory = bin->PopReady(size);
      }
    }
    if (memory == nullptr) return nullptr;
  }
  bin->unreported_bytes += size;
  if (bin->unreported_bytes >= report_every_) bin->Report();
  return memory;
}

}  // namespace teksdb
