// LinkQueue implementation: tickets, the linked-ticket ring and watermark.
#include "link_queue.h"

#include <algorithm>
#include <cassert>
#include <thread>

#include "background_linker.h"
#include "cpu_relax.h"

namespace teksdb {

LinkQueue::LinkQueue(OrderedIndex* index, std::shared_ptr<BackgroundLinker> linker,
                     uint64_t ring_size)
    : ordered_index_(index),
      ring_mask_(ring_size - 1),
      wake_backlog_(std::clamp(ring_size / 16, kMinWakeBacklog, kMaxWakeBacklog)),
      linked_ring_(new std::atomic<uint64_t>[ring_size]),
      linker_(std::move(linker)) {
  assert(ring_size >= kMinRingSize && ring_size <= kMaxRingSize &&
         (ring_size & ring_mask_) == 0);
  // Start every slot at a value that is no ticket, so none reads as linked
  // before its ticket is.
  for (uint64_t i = 0; i < ring_size; ++i) linked_ring_[i].store(~uint64_t{0});
  linker_->Register(this);
}

LinkQueue::~LinkQueue() { linker_->Unregister(this); }

void LinkQueue::Add(KeyRecord* record) {
  thread_local uint64_t new_keys_added = 0;
  if (++new_keys_added % kOrderedReadWindow == 0) {
    const bool seen = ordered_read_seen_.exchange(false, std::memory_order_relaxed);
    if (seen != writers_link_.load(std::memory_order_relaxed)) {
      writers_link_.store(seen, std::memory_order_relaxed);
    }
  }
  if (writers_link_.load(std::memory_order_relaxed)) {
    ordered_index_->Insert(record);
  } else {
    Enqueue(record);
  }
}

void LinkQueue::NoteOrderedRead() {
  // Stores only on a change, so that readers do not keep taking the line
  // from the writers that read it.
  if (!ordered_read_seen_.load(std::memory_order_relaxed)) {
    ordered_read_seen_.store(true, std::memory_order_relaxed);
  }
  if (!writers_link_.load(std::memory_order_relaxed)) {
    writers_link_.store(true, std::memory_order_relaxed);
  }
}

void LinkQueue::Enqueue(KeyRecord* record) {
  // seq_cst pairs with the linker's check for work before it sleeps.
  const uint64_t ticket = issued_.fetch_add(1, std::memory_order_seq_cst);
  while (ticket >= watermark_.load(std::memory_order_acquire) + ring_mask_ + 1) {
    if (LinkSome(64) == 0) std::this_thread::yield();
  }
  const uint64_t backlog = ticket + 1 - watermark_.load(std::memory_order_relaxed);
  uint64_t largest = largest_backlog_.load(std::memory_order_relaxed);
  while (backlog > largest &&
         !largest_backlog_.compare_exchange_weak(largest, backlog,
                                                 std::memory_order_relaxed)) {
  }
  if (!queue_.enqueue(Task{record, ticket})) {
    // The queue could not allocate a block: link on the write path instead,
    // so the ticket is still marked and no barrier waits for it forever.
    ordered_index_->Insert(record);
    MarkLinked(ticket);
    return;
  }
  if (backlog >= wake_backlog_) {
    linker_->Notify();
  } else {
    linker_->NotifyIfDormant();
  }
}

size_t LinkQueue::LinkSome(size_t max) {
  std::unique_lock<std::mutex> lock(splice_mu_, std::try_to_lock);
  OrderedIndex::Splice own;
  size_t linked = 0;
  Task task;
  while (linked < max && queue_.try_dequeue(task)) {
    ordered_index_->Insert(task.record, lock.owns_lock()
                                            ? splices_.For(*ordered_index_, task.record)
                                            : &own);
    MarkLinked(task.ticket);
    ++linked;
  }
  return linked;
}

void LinkQueue::MarkLinked(uint64_t ticket) {
  // Release: the skip-list links of this record happen before anyone who
  // sees the watermark pass `ticket`.
  linked_ring_[ticket & ring_mask_].store(ticket, std::memory_order_release);
  // Two threads marking neighbouring tickets each store, then read the
  // other's slot: without a full fence both may miss the other's store (x86
  // lets a load pass an earlier store) and leave the watermark stuck below a
  // linked ticket.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  AdvanceWatermark();
}

void LinkQueue::AdvanceWatermark() {
  uint64_t w = watermark_.load(std::memory_order_acquire);
  while (linked_ring_[w & ring_mask_].load(std::memory_order_acquire) == w) {
    // On failure `w` reloads; every thread racing here advances the same
    // contiguous run, each step exactly once.
    if (watermark_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) ++w;
  }
}

void LinkQueue::WaitUntilLinked() {
  const uint64_t target = issued_.load(std::memory_order_acquire);
  for (int idle = 0; watermark_.load(std::memory_order_acquire) < target;) {
    // Tickets below `target` may still be on their way into the queue, or
    // in another thread's hands: help with what is there, then pause (and
    // give the core away if that thread may be descheduled).
    if (LinkSome(256) != 0) {
      idle = 0;
      continue;
    }
    // A linker may have missed advancing past a ticket another one marked.
    AdvanceWatermark();
    if (++idle < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

size_t LinkQueue::MemoryUsage() const {
  return sizeof(*this) + (ring_mask_ + 1) * sizeof(linked_ring_[0]) +
         largest_backlog_.load(std::memory_order_relaxed) * sizeof(Task) * 2;
}

}  // namespace teksdb
