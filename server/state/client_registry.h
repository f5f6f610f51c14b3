// ClientRegistry: the connections the server has open, for CLIENT LIST,
// CLIENT INFO and CLIENT KILL, and their eviction (maxmemory-clients).
//
// Each connection shares an Info with the registry: what it was born with
// (id, addresses, start), and what it changes as it runs, kept in relaxed
// atomics (its last command and when, protocol, subscriptions, MULTI
// state, blocked) or, for its name, under the Info's mutex; so a listing
// costs the connections nothing but a few stores.
//
// Client eviction, as Redis 7.0's: each connection publishes what it holds
// (PublishMemory: CLIENT LIST's tot-mem); while a limit is set the
// registry keeps their sum, and once the sum reaches the limit it closes
// the largest clients until it is below (EvictOverLimit; the exact largest
// first, where Redis goes by powers of two). A client marked CLIENT
// NO-EVICT is neither evicted nor counted (Redis counts it as its cron
// last sampled it, up to a second late: so what such a client holds
// for a moment, its own reply, never evicts another). The sum is kept
// only while a limit is set (SetEvictionLimit counts every connection
// then), so that without one a request writes no line that other threads
// write. Each Info's counted_bytes is what it adds to
// the sum, changed by exchange only, so the sum stays the total of those
// whatever the threads' order; a connection evicted or closed is
// forgotten (its counted_bytes out of the sum, and no more added: gone).
//
// Thread safety: every member may be called from any thread; the
// registry's mutex guards the map; Close and Evict are asked outside it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pubsub.h"

namespace teksdb::server {

class ClientRegistry {
 public:
  struct Info {
    uint64_t id = 0;
    std::string address, local_address;  // "ip:port"
    int64_t created_ms = 0;              // steady clock
    std::atomic<int64_t> last_command_ms{0};
    // The last command's id in AclCommands() (its subcommand's, as CLIENT
    // LIST names it: "client|list") + 1; 0: none yet.
    std::atomic<int> last_command{0};
    std::atomic<int> protocol{2};
    std::atomic<int> channels{0}, patterns{0}, shard_channels{0};
    std::atomic<int> multi{-1};  // commands queued in MULTI, -1 outside
    std::atomic<int> db{0};      // the database SELECTed
    std::atomic<bool> blocked{false};
    // Its blocked command is held by a pause (CLIENT UNBLOCK leaves it, as
    // Redis 7.2 does; 7.0 crashes).
    std::atomic<bool> paused{false};
    std::atomic<bool> monitor{false};  // MONITOR ran (flag O)
    std::atomic<bool> no_touch{false};  // CLIENT NO-TOUCH ON (flag T)
    // The bytes the connection holds of requests not yet run (qbuf) and
    // of output not yet written (omem), as of its last change.
    std::atomic<int64_t> query_bytes{0}, output_bytes{0};
    // All it holds (tot-mem; PublishMemory), what of it the eviction sum
    // has, and whether it was evicted or closed (forgotten: no more
    // counted).
    std::atomic<int64_t> memory_bytes{0}, counted_bytes{0};
    std::atomic<bool> gone{false};
    std::atomic<bool> no_evict{false};  // CLIENT NO-EVICT ON (flag e)

    std::string name() const {
      std::lock_guard<std::mutex> lock(name_mu_);
      return name_;
    }
    void set_name(std::string name) {
      std::lock_guard<std::mutex> lock(name_mu_);
      name_ = std::move(name);
    }
    // The ACL user it runs as (CLIENT LIST's user=, CLIENT KILL USER).
    std::string user() const {
      std::lock_guard<std::mutex> lock(name_mu_);
      return user_;
    }
    void set_user(std::string user) {
      std::lock_guard<std::mutex> lock(name_mu_);
      user_ = std::move(user);
    }

    // CLIENT SETINFO's lib-name and lib-ver (empty: not set).
    std::string lib_name() const {
      std::lock_guard<std::mutex> lock(name_mu_);
      return lib_name_;
    }
    std::string lib_ver() const {
      std::lock_guard<std::mutex> lock(name_mu_);
      return lib_ver_;
    }
    void set_lib_name(std::string value) {
      std::lock_guard<std::mutex> lock(name_mu_);
      lib_name_ = std::move(value);
    }
    void set_lib_ver(std::string value) {
      std::lock_guard<std::mutex> lock(name_mu_);
      lib_ver_ = std::move(value);
    }

   private:
    mutable std::mutex name_mu_;  // guards name_, user_, lib_name_ and lib_ver_
    std::string name_, user_ = "default", lib_name_, lib_ver_;
  };

  // What closes a connection, or ends its blocked command (the connection
  // itself), from any thread.
  class Closer {
   public:
    virtual ~Closer() = default;
    virtual void Close() = 0;
    // CLIENT UNBLOCK: false if it is not blocked.
    virtual bool Unblock(bool with_error) = 0;
    // Closes the connection if its output is past its soft limit for too
    // long (client_limits.h).
    virtual void CheckLimits() = 0;
    // Closes the connection, evicted (EvictOverLimit), logging why.
    virtual void Evict() = 0;
  };

  // `subscriber`: where CLIENT TRACKING's redirected invalidations to this
  // connection go (client_tracking.h).
  void Add(const std::shared_ptr<Info>& info, const std::shared_ptr<Closer>& closer,
           const std::shared_ptr<Subscriber>& subscriber);
  // The open connection `id` as a subscriber, or null.
  std::shared_ptr<Subscriber> SubscriberOf(uint64_t id) const;
  // CLIENT UNBLOCK of connection `id`: whether it was blocked.
  bool Unblock(uint64_t id, bool with_error) const;
  void Remove(uint64_t id);
  // Every open connection's Info, by id.
  std::vector<std::shared_ptr<Info>> List() const;
  // Closes the connections `match` picks; how many. They leave the
  // registry at once (CLIENT LIST no longer shows them).
  int64_t Close(const std::function<bool(const Info&)>& match);
  // Asks each connection holding output not yet written to check its
  // limits (the server's cron: soft limits end by time).
  void CheckOutputLimits() const;

  // The eviction limit in bytes (0: none; ClientLimits::EvictionLimit).
  // Set, it counts every connection, then evicts down to it.
  void SetEvictionLimit(int64_t bytes);
  // `info` holds `bytes` in all now (or its NO-EVICT mark changed); true
  // if the sum reached the limit with it (then EvictOverLimit).
  bool PublishMemory(Info& info, int64_t bytes);
  // Takes the connection's memory out of the sum for good (closed).
  void ForgetMemory(Info& info);
  // Evicts the largest evictable clients until the sum is below the
  // limit; how many. They leave the registry at once.
  int64_t EvictOverLimit();
  // INFO's evicted_clients, and what CONFIG RESETSTAT clears.
  int64_t evicted() const { return evicted_.load(std::memory_order_relaxed); }
  void ResetEvicted() { evicted_.store(0, std::memory_order_relaxed); }

 private:
  struct Entry {
    std::shared_ptr<Info> info;
    std::weak_ptr<Closer> closer;
    std::weak_ptr<Subscriber> subscriber;
  };
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> clients_;
  // (Lines of their own: every request reads the limit; the sum is
  // written by every thread while a limit is set.)
  alignas(64) std::atomic<int64_t> eviction_limit_{0};
  alignas(64) std::atomic<int64_t> counted_total_{0};  // the sum of counted_bytes
  std::atomic<int64_t> evicted_{0};
};

}  // namespace teksdb::server
