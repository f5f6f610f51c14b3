// BackgroundLinker implementation: the worker loop and its wake-ups.
#include "background_linker.h"

#include <algorithm>
#include <chrono>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "link_queue.h"

namespace teksdb {
namespace {
constexpr size_t kLinkBatch = 256;
constexpr auto kNapLength = std::chrono::milliseconds(5);
}  // namespace

BackgroundLinker::~BackgroundLinker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void BackgroundLinker::Register(LinkQueue* queue) {
  std::lock_guard<std::mutex> lock(mu_);
  // Neither failure may escape into RocksDB, and neither needs to: readers
  // and writers link what no worker does (see the header).
  try {
    queues_.push_back(queue);
    if (!worker_.joinable()) worker_ = std::thread([this] { Run(); });
  } catch (const std::exception&) {
  }
}

void BackgroundLinker::Unregister(LinkQueue* queue) {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [&] { return busy_ != queue; });
  auto it = std::find(queues_.begin(), queues_.end(), queue);
  if (it != queues_.end()) queues_.erase(it);
}

void BackgroundLinker::Notify() {
  // seq_cst pairs with the worker's store before its last check for work.
  if (sleep_.load(std::memory_order_seq_cst) != kAwake &&
      sleep_.exchange(kAwake, std::memory_order_seq_cst) != kAwake) {
    std::lock_guard<std::mutex> lock(mu_);
    work_cv_.notify_one();
  }
}

void BackgroundLinker::NotifyIfDormant() {
  if (sleep_.load(std::memory_order_seq_cst) == kDormant) Notify();
}

LinkQueue* BackgroundLinker::PickQueueLocked() {
  for (size_t i = 0; i < queues_.size(); ++i) {
    LinkQueue* q = queues_[(next_ + i) % queues_.size()];
    if (q->HasPending()) {
      next_ = (next_ + i + 1) % queues_.size();
      return q;
    }
  }
  return nullptr;
}

void BackgroundLinker::ApplyNice() {
  const int nice = nice_.load(std::memory_order_relaxed);
  if (nice == applied_nice_) return;
  applied_nice_ = nice;
#if defined(__linux__)
  // A thread's own nice (Linux keeps it per thread). Lowering it again may
  // be refused without CAP_SYS_NICE: the worker then stays where it was.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
#endif
}

void BackgroundLinker::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  bool slept = false;  // since it last linked
  while (!stop_) {
    ApplyNice();
    LinkQueue* q = PickQueueLocked();
    if (q == nullptr) {
      // Nothing came during the last sleep: sleep until a writer wakes it.
      const Sleep sleep = slept ? kDormant : kNap;
      sleep_.store(sleep, std::memory_order_seq_cst);
      if (PickQueueLocked() == nullptr && !stop_) {
        if (sleep == kDormant) {
          work_cv_.wait(lock);
        } else {
          work_cv_.wait_for(lock, kNapLength);
        }
      }
      sleep_.store(kAwake, std::memory_order_relaxed);
      slept = true;
      continue;
    }
    slept = false;
    busy_ = q;
    lock.unlock();
    // Nothing to take: the pending records are still on their way into the
    // queue or in a helping reader's hands. Let those threads run.
    if (q->LinkSome(kLinkBatch) == 0) std::this_thread::yield();
    lock.lock();
    busy_ = nullptr;
    idle_cv_.notify_all();
  }
}

}  // namespace teksdb
