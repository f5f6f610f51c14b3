// ClientTracking: CLIENT TRACKING, Redis 7.0's server-assisted client-side
// caching. A tracking client in the default mode is remembered for the
// keys its read commands read (Remember, before they read); the first
// write of such a key after that sends it an invalidation and forgets it.
// In BCAST mode a client is told of every key written that starts with
// one of its prefixes (every key without one), one message per prefix
// and write. Invalidations go to the client itself (RESP3 pushes) or to
// the client it redirects them to; NOLOOP leaves out the client's own
// writes; OPTIN / OPTOUT with CLIENT CACHING choose which reads count.
// FLUSHDB, FLUSHALL and SWAPDB invalidate everything (a null message).
//
// Invalidations are sent once the write is in the database
// (key_write_listener.h), and a read is remembered before it reads, so a
// client never keeps a value some write replaced without being told.
// Keys are named without their database, as in Redis.
//
// Thread safety: every member may be called from any thread; one mutex
// guards the tables (readers that track, and every write while anyone
// tracks, take it); delivery posts to the connections' loops.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "client_registry.h"
#include "key_write_listener.h"

namespace teksdb::server {

class ClientTracking : public KeyWriteListener {
 public:
  struct Options {
    bool bcast = false, optin = false, optout = false, noloop = false;
    uint64_t redirect = 0;  // 0: the client itself
    std::vector<std::string> prefixes;
  };
  // What CLIENT TRACKINGINFO reports.
  struct State {
    Options options;
    bool broken_redirect = false;
  };

  explicit ClientTracking(const ClientRegistry* clients) : clients_(clients) {}

  // CLIENT TRACKING on: Redis's error for options that clash with each
  // other or with the client's tracking so far, or empty (then on, its
  // prefixes added to those it had).
  std::string Enable(uint64_t id, const Options& options, const std::weak_ptr<Subscriber>& self);
  void Disable(uint64_t id);
  // Whether `id` tracks, and how.
  bool Get(uint64_t id, State* state) const;
  // A read of `keys` by `id` (a tracking client in the default mode):
  // remembered unless OPTIN without CLIENT CACHING yes, or OPTOUT with
  // CLIENT CACHING no (`caching_given`).
  void Remember(uint64_t id, const std::vector<std::string>& keys, bool caching_given);

  // tracking-table-max-keys: past it, keys are forgotten (their readers
  // told, as if they were written), oldest first; 0: no limit.
  void SetMaxKeys(size_t n);
  size_t max_keys() const { return max_keys_.load(std::memory_order_relaxed); }

  size_t clients() const { return tracking_.load(std::memory_order_relaxed); }
  size_t keys() const;
  size_t items() const;
  size_t prefixes() const;

  bool listening() const override { return clients() > 0; }
  void Written(const std::vector<std::string>& keys, uint64_t writer) override;
  void Cleared(uint64_t writer) override;
  void Read(const std::vector<std::string>& keys, uint64_t reader, bool caching_given) override {
    Remember(reader, keys, caching_given);
  }

 private:
  struct Client {
    Options options;
    std::weak_ptr<Subscriber> self;
    bool broken_redirect = false;
  };
  // Sends `keys` (null: all) to the client's receiver. REQUIRES mu_.
  void Send(Client& client, const std::vector<std::string>* keys);
  // Tells the readers of `key` it is invalid, and forgets it (`writer`:
  // left out if it asked NOLOOP; 0: none). REQUIRES mu_.
  void Invalidate(const std::string& key, uint64_t writer);
  // Forgets the oldest keys past max_keys_. REQUIRES mu_.
  void EvictOverLimit();

  const ClientRegistry* const clients_;
  mutable std::mutex mu_;
  std::map<uint64_t, Client> tracking_clients_;
  std::unordered_map<std::string, std::set<uint64_t>> remembered_;  // key: who read it
  std::deque<std::string> remembered_order_;  // keys as first remembered (may hold forgotten ones)
  size_t remembered_items_ = 0;
  std::atomic<size_t> max_keys_{1000000};  // Redis's default
  std::atomic<size_t> tracking_{0};
};

}  // namespace teksdb::server
