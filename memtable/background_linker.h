// BackgroundLinker: one worker thread, shared by every memtable a factory
// creates, that links records from their LinkQueues into their skip lists
// off the write path (paper §4.5: "a single background worker ... receives
// help from user threads").
//
// Thread safety:
//   - Register/Unregister/Notify may be called from any thread.
//   - The worker takes a queue, marks it busy under `mu_`, links a batch
//     without the lock, then clears busy. Unregister() waits while its queue
//     is busy, so once it returns the worker never touches that queue again.
//   - Notify() is cheap on the write path: it takes the mutex only when the
//     worker announced it is going to sleep (`sleep_`), and exactly one
//     notifier wakes it. The worker re-checks for work after announcing,
//     under the mutex, so no wake-up is lost.
//   - How the worker sleeps. With nothing to link it naps (kNap, a few
//     milliseconds): a writer wakes it only once a backlog waits
//     (link_queue.h), and the nap takes what fewer records are left. A nap
//     that ends with nothing to link is followed by a sleep until woken
//     (kDormant), so an idle memtable, or one only read from, costs no
//     wake-ups; while dormant a writer's first queued record wakes it
//     (NotifyIfDormant), and it naps again from there.
//   - Correctness never depends on the worker: readers help, and a
//     writer whose backlog fills the link queue's ring links too. So if the
//     thread cannot be started (or a queue cannot be recorded), Register()
//     swallows the error and the memtable links on those paths alone.
//
// Lifetime: shared_ptr-owned by the factory and by each LinkQueue, so it
// outlives every queue registered with it; the destructor joins the thread.
//
// Priority: the worker takes the nice value SetNice last gave
// (TeksTableOptions::linker_nice) before each batch it links.
//
// Design notes: docs/DESIGN.md §1 and §2.
#pragma once

#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace teksdb {

class LinkQueue;

class BackgroundLinker {
 public:
  BackgroundLinker() = default;
  ~BackgroundLinker();
  BackgroundLinker(const BackgroundLinker&) = delete;
  BackgroundLinker& operator=(const BackgroundLinker&) = delete;

  // Starts the worker thread on the first registration.
  void Register(LinkQueue* queue);
  void Unregister(LinkQueue* queue);
  // Wakes the worker if it sleeps at all (a backlog waits).
  void Notify();
  // Wakes the worker only if it sleeps until woken (any record waits).
  void NotifyIfDormant();
  // Whether the worker sleeps until woken (for tests).
  bool dormant() const { return sleep_.load(std::memory_order_relaxed) == kDormant; }
  // The nice value (0-19) the worker is to run at; any thread.
  void SetNice(int nice) { nice_.store(nice, std::memory_order_relaxed); }

 private:
  void Run();
  // On the worker: takes nice_ if it changed since it last did.
  void ApplyNice();
  // REQUIRES: mu_ held. A registered queue with pending work, round robin.
  LinkQueue* PickQueueLocked();

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::vector<LinkQueue*> queues_;
  size_t next_ = 0;
  LinkQueue* busy_ = nullptr;
  bool stop_ = false;
  enum Sleep : uint8_t { kAwake, kNap, kDormant };
  std::atomic<Sleep> sleep_{kAwake};
  std::atomic<int> nice_{0};
  int applied_nice_ = 0;  // the worker's own
  std::thread worker_;
};

}  // namespace teksdb
