// VersionRecycler implementation: the per-thread bins.
#include "version_recycler.h"

#include <deque>
#include <unordered_map>
#include <vector>

namespace teksdb {

namespace {

// One thread's retired memory of one rep: waiting for its epoch to pass,
// then ready by allocation size.
struct RecycleBin {
  struct Waiting {
    uint64_t epoch;
    char* memory;
    uint32_t size;
  };
  uint64_t rep_id = 0;
  std::deque<Waiting> waiting;
  std::unordered_map<uint32_t, std::vector<char*>> ready;
  size_t ready_count = 0;
  // Taken bytes not yet added to the rep's count.
  size_t unreported_bytes = 0;
  // Takes that found nothing ready since the last try to advance the epoch.
  uint32_t misses = 0;

  void Reset(uint64_t id) {
    rep_id = id;
    waiting.clear();
    ready.clear();
    ready_count = 0;
    unreported_bytes = 0;
    misses = 0;
  }

  // Moves what no reader can be looking at any more (retired two epochs
  // ago) to the ready lists.
  void Promote(uint64_t epoch) {
    while (!waiting.empty() && waiting.front().epoch + 2 <= epoch) {
      const Waiting& w = waiting.front();
      if (ready_count < VersionRecycler::kMaxReady) {
        ready[w.size].push_back(w.memory);
        ++ready_count;
      }
      waiting.pop_front();
    }
  }
};

thread_local RecycleBin bin;

// Takes that find nothing ready between two tries to advance the epoch: a
// try reads every stripe of the epoch counters.
constexpr uint32_t kMissesPerAdvance = 4;

}  // namespace

void VersionRecycler::Retire(Version* cut_part) {
  if (bin.rep_id != rep_id_) bin.Reset(rep_id_);
  if (BudgetSpent()) return;
  // Read after the cut was published (the chain was let go of with a
  // read-modify-write): a reader of a later epoch cannot reach it.
  const uint64_t epoch = epochs_.current();
  for (Version* v = cut_part; v != nullptr; v = v->older()) {
    const size_t size = v->OwnAllocationSize();
    if (size != 0 && bin.waiting.size() < kMaxWaiting) {
      bin.waiting.push_back({epoch, v->allocation(), static_cast<uint32_t>(size)});
    }
  }
}

char* VersionRecycler::Take(size_t size) {
  if (bin.rep_id != rep_id_ || BudgetSpent()) return nullptr;
  if (bin.waiting.empty() && bin.ready_count == 0) return nullptr;
  uint64_t epoch = epochs_.current();
  bin.Promote(epoch);
  auto it = bin.ready.find(static_cast<uint32_t>(size));
  if ((it == bin.ready.end() || it->second.empty()) && !bin.waiting.empty() &&
      ++bin.misses >= kMissesPerAdvance) {
    bin.misses = 0;
    if (epochs_.TryAdvance(epoch)) {
      bin.Promote(epochs_.current());
      it = bin.ready.find(static_cast<uint32_t>(size));
    }
  }
  if (it == bin.ready.end() || it->second.empty()) return nullptr;
  char* memory = it->second.back();
  it->second.pop_back();
  --bin.ready_count;
  bin.unreported_bytes += size;
  if (bin.unreported_bytes >= report_every_) {
    reused_bytes_.fetch_add(bin.unreported_bytes, std::memory_order_relaxed);
    bin.unreported_bytes = 0;
  }
  return memory;
}

}  // namespace teksdb
