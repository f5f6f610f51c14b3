// LinkQueue: the records of one memtable that are in the hash but not yet in
// the skip list, and the completeness barrier over them (paper §4.5).
//
// Writers put a new key's record into the cuckoo hash synchronously and
// Enqueue() it here; the shared BackgroundLinker, and any reader that needs
// order, take records out (moodycamel::ConcurrentQueue) and link them into
// the OrderedIndex.
//
// Completeness barrier. Each enqueued record gets a ticket (0, 1, 2, ...).
// Whoever links a record marks its ticket in a ring and advances the
// watermark past every contiguously linked ticket. WaitUntilLinked() reads
// the number of tickets issued and helps link until the watermark reaches
// it, so it returns only once every record enqueued before it started is in
// the skip list, however many writers keep adding records meanwhile. The
// queue's emptiness (or size_approx()) is never trusted for that.
//
// Waking the linker. A writer wakes the background linker only once
// wake_backlog_ records wait: a linker that keeps up (keys in order link in
// O(1)) would otherwise sleep and be woken, a system call on the write
// path and two context switches, for every few records (teksdb-server
// pinned to one CPU: 0.19 switches per pipelined HSET at 64, 0.05 at 256).
// It is a sixteenth of the ring (sized by the rep from its buffer: 256 for
// buffers of 8 MiB and more), kMinWakeBacklog to kMaxWakeBacklog: queued
// records hold queue blocks, which count as the memtable's memory, so a
// small memtable wakes the linker sooner (a 64 KiB buffer flushed 94-103
// times at 256 where it flushed 72-84 at 64). Fewer wait at most until the
// end of the linker's nap (a linker asleep until woken is woken by the
// first), or until a reader that needs them links them itself.
//
// Ordered reads beside writers. While ordered reads run (NoteOrderedRead:
// every iterator positioning, and every move to another record, which must
// see the records written before it), writers link their own new keys
// (Add), as RocksDB's skip list does, instead of queueing them. A reader
// then finds nothing queued and never does the linker's work; otherwise
// every positioning would wait for, and help link, the whole backlog of a
// writer running at full speed, with the reader, the writer and the linker
// fighting for the cores. Each writer looks at whether ordered reads ran
// once every kOrderedReadWindow new keys of its own, so writers go back to
// queueing within two such windows of the last ordered read. The mode only decides who links a record and when:
// every record is linked or queued before it becomes findable, in both.
//
// Keys in order. The queue keeps the skip list's splices of the last few
// streams of keys it linked (StreamSplices), so records of keys that arrive
// in order, or nearly, even several such streams interleaved, are linked in
// O(1) each. One linking thread at a time uses them (try_lock); another
// links its batch with a splice of its own.
//
// Thread safety: every method may be called from any number of threads at
// once. A writer whose ticket is a full ring ahead of the watermark helps
// link until it is not, which bounds the backlog. The ring is sized by the
// rep for its memtable (kMaxRingSize at most): a small write buffer must
// not be filled by the queue's own bookkeeping (RocksDB flushes, or in
// builds with assertions aborts, a memtable that is full when created).
//
// Design notes: docs/DESIGN.md §2 and §6.
#pragma once

#include <atomic>
#include <concurrentqueue/concurrentqueue.h>
#include <cstdint>
#include <memory>
#include <mutex>

#include "ordered_index.h"
#include "stream_splices.h"

namespace teksdb {

class BackgroundLinker;

class LinkQueue {
 public:
  // Registers with `linker`, which then links this queue's records in the
  // background. At most `ring_size` records wait unlinked.
  // REQUIRES: ring_size is a power of two, kMinRingSize..kMaxRingSize.
  LinkQueue(OrderedIndex* index, std::shared_ptr<BackgroundLinker> linker, uint64_t ring_size);
  // Waits until the background linker is not working on this queue.
  // Records still queued are dropped: nobody reads a dying memtable.
  ~LinkQueue();
  LinkQueue(const LinkQueue&) = delete;
  LinkQueue& operator=(const LinkQueue&) = delete;

  // Makes `record` reachable in the skip list: links it now while ordered
  // reads run (see the top of this file), else queues it for the linker.
  void Add(KeyRecord* record);

  // Says that an ordered read is about to wait for the links: writers link
  // their own new keys from now on, until ordered reads stop.
  void NoteOrderedRead();

  // Whether writers link their own new keys now.
  bool WritersLink() const { return writers_link_.load(std::memory_order_relaxed); }

  // Links up to `max` queued records; returns how many it linked.
  size_t LinkSome(size_t max);

  // Returns once every record enqueued before the call is linked.
  void WaitUntilLinked();

  bool HasPending() const {
    return watermark_.load(std::memory_order_acquire) <
           issued_.load(std::memory_order_seq_cst);
  }

  // Bytes held outside the arena: the ring and the queue's blocks (which it
  // keeps for reuse, so they follow the largest backlog seen).
  size_t MemoryUsage() const;

  // New keys a writer adds between its looks at whether ordered reads ran.
  static constexpr uint64_t kOrderedReadWindow = 256;
  static constexpr uint64_t kMinRingSize = 256;
  static constexpr uint64_t kMaxRingSize = 4096;

 private:
  static constexpr uint64_t kMinWakeBacklog = 64;
  static constexpr uint64_t kMaxWakeBacklog = 256;
  struct Task {
    KeyRecord* record;
    uint64_t ticket;
  };

  void Enqueue(KeyRecord* record);
  void MarkLinked(uint64_t ticket);
  // Moves the watermark past every contiguously linked ticket.
  void AdvanceWatermark();

  OrderedIndex* const ordered_index_;
  moodycamel::ConcurrentQueue<Task> queue_;
  std::atomic<uint64_t> issued_{0};
  std::atomic<uint64_t> watermark_{0};
  std::atomic<uint64_t> largest_backlog_{0};
  // Read by every writer, written only when the mode changes: a line of
  // their own, away from the counters every queued record bumps.
  alignas(64) std::atomic<bool> writers_link_{false};
  // Set by ordered reads, cleared by each writer's look.
  std::atomic<bool> ordered_read_seen_{false};
  // linked_ring_[t & ring_mask_] == t once ticket t is linked.
  const uint64_t ring_mask_;
  // Records waiting when a writer wakes the linker (see the top of the file).
  const uint64_t wake_backlog_;
  std::unique_ptr<std::atomic<uint64_t>[]> linked_ring_;
  std::mutex splice_mu_;
  StreamSplices splices_;  // guarded by splice_mu_
  std::shared_ptr<BackgroundLinker> linker_;
};

}  // namespace teksdb
