// WatchedKeys: which connections WATCH which keys, and whether a watched
// key was modified since (Redis's "dirty CAS"), for EXEC to abort.
//
// Keyspace::Commit touches every key whose meta record a batch writes (a
// collection's member writes always rewrite its meta record), the expiry
// sweep's deletes included, and FLUSHALL touches every watched key it
// removes. As in Redis 7.0, a key that was already expired when it was
// watched is not made dirty by the delete that removes it (logically
// nothing changed); EXEC itself aborts when a key that was live at WATCH
// has expired since (ExecAborts in transaction_commands.cc).
//
// Thread safety: every member may be called from any thread. When nothing
// is watched, Touch's caller pays one relaxed atomic load (any()). WATCH
// registers a key while holding the key's stripe (Keyspace::LockKeys), and
// writers touch under that stripe, so no write of the key can fall between
// a writer's check of any() and the registration. A Watcher's fields are
// guarded by the registry's mutex; its owner keeps it alive until
// UnwatchAll.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace teksdb::server {

class WatchedKeys {
 public:
  // One connection's watch.
  struct Watcher {
    bool dirty = false;
    std::vector<std::string> keys;
  };

  // `expired`: the key is stored but expired (Redis's expired-at-watch).
  void Watch(Watcher* watcher, const std::string& key, bool expired);
  void UnwatchAll(Watcher* watcher);
  // Whether a key `watcher` watches was modified; *live_at_watch gets the
  // keys that were not expired when watched.
  bool Dirty(const Watcher* watcher, std::vector<std::string>* live_at_watch) const;

  bool any() const { return watches_.load(std::memory_order_relaxed) != 0; }
  // `key` was written; `deleted`: it is absent after the write.
  void Touch(const std::string& key, bool deleted);
  // SWAPDB put another database's key in place of `key`: `existed` (stored,
  // expired or not) before, `replacement_exists` (and
  // `replacement_expired`) after. As Redis 7.0: modified unless an expired
  // key gives way to none or to another expired one, or none gives way to
  // an expired one (then it counts as expired at watch).
  void Replace(const std::string& key, bool existed, bool replacement_exists,
               bool replacement_expired);
  // Every watched key (for FLUSHALL, which touches those it removes).
  std::vector<std::string> Keys() const;

 private:
  struct Entry {
    Watcher* watcher;
    bool expired;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<Entry>> by_key_;
  std::atomic<size_t> watches_{0};
};

}  // namespace teksdb::server
