// KeyWaiters: connections blocked on keys (BLPOP and friends), woken when
// a write stores one of those keys.
//
// Keyspace::Commit wakes the waiters of every key whose meta record a batch
// writes (a push, ZADD, RENAME onto it, ...). A woken connection runs its
// blocking command again, which either serves it or blocks it again. A
// blocking command registers while it still holds its keys' stripes (the
// connection's write group keeps them until it flushes), and writers wake
// under those stripes, so no write can fall between a command finding its
// keys empty and its registration.
//
// Thread safety: every member may be called from any thread; one mutex
// guards the map; Wake is called outside it. Waiters are held weakly.
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
    // One of the keys it waits on was written (any thread).
    virtual void Wake() = 0;
  };

  void Add(const std::string& key, const std::shared_ptr<Waiter>& waiter);
  void Remove(const std::string& key, const Waiter* waiter);
  bool any() const { return waiting_.load(std::memory_order_relaxed) != 0; }
  // Wakes the waiters of `key`.
  void Touch(const std::string& key);
  // Every key waited on (SWAPDB wakes those of its databases).
  std::vector<std::string> Keys() const;

 private:
  struct Entry {
    const Waiter* id;
    std::weak_ptr<Waiter> waiter;
  };
  mutable std::mutex mu_;
  std::map<std::string, std::vector<Entry>> by_key_;
  std::atomic<size_t> waiting_{0};
};

}  // namespace teksdb::server
