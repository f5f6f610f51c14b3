// KeyWaiters: connections blocked on keys (BLPOP and friends), woken when
// a write stores one of those keys.
//
// Keyspace::Commit wakes a waiter of every key whose meta record a batch
// writes (a push, ZADD, RENAME onto it, ...): the first that blocked and
// still waits, as Redis serves blocked clients in the order they blocked.
// A deletion wakes only the waiters that asked for it (XREADGROUP, whose
// group goes with the key), all of them.
// A woken connection runs its blocking command again, which either serves
// it or blocks it again (at the back); one that ran to its reply, served
// or refused (a WRONGTYPE destination), wakes the next waiter of its keys
// in turn, and a wake that finds its waiter gone on is passed on. A
// blocking command registers while it still holds its keys' stripes (the
// connection's write group keeps them until it flushes), and writers wake
// under those stripes, so no write can fall between a command finding its
// keys empty and its registration.
//
// Thread safety: every member may be called from any thread; one mutex
// guards the map; TryWake is called outside it. Waiters are held weakly.
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace teksdb::server {

class KeyWaiters {
 public:
  class Waiter {
   public:
    virtual ~Waiter() = default;
    // `key`, one of those it waits on, was written (any thread): true if it
    // takes the wake (it will run again, and pass the wake on if it no
    // longer waits by then), false if it no longer waits.
    virtual bool TryWake(const std::string& key) = 0;
  };

  void Add(const std::string& key, const std::shared_ptr<Waiter>& waiter,
           bool wake_on_delete = false);
  void Remove(const std::string& key, const Waiter* waiter);
  bool any() const { return waiting_.load(std::memory_order_relaxed) != 0; }
  // Wakes the first waiter of `key` that takes the wake.
  void Touch(const std::string& key);
  // Wakes every waiter of `key` (WAIT's key: replication's progress).
  void TouchAll(const std::string& key);
  // `key` was deleted: wakes every waiter that asked to be.
  void TouchDeleted(const std::string& key);
  // Every key waited on (SWAPDB wakes those of its databases).
  std::vector<std::string> Keys() const;

 private:
  struct Entry {
    const Waiter* id;
    std::weak_ptr<Waiter> waiter;
    bool wake_on_delete;
  };
  // The live waiters of `entries` (only those woken by a deletion, if
  // `deleted`), in the order they came.
  static std::vector<std::shared_ptr<Waiter>> InOrder(const std::vector<Entry>& entries,
                                                      bool deleted = false);
  mutable std::mutex mu_;
  std::map<std::string, std::vector<Entry>> by_key_;
  std::atomic<size_t> waiting_{0};
};

}  // namespace teksdb::server
