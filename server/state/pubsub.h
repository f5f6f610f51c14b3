// PubSub: who is subscribed to which channel, pattern and shard channel,
// and delivery of published messages to them.
//
// A Subscriber (a connection) receives Deliver calls on the publisher's
// thread; it formats the message for its protocol and writes it on its
// own (Connection::Deliver posts to the connection's loop). The registry
// holds subscribers weakly: a connection that closed is skipped, and its
// destructor removes it (ForgetAll).
//
// Thread safety: every member may be called from any thread; one mutex
// guards the maps (PUBLISH reads them, SUBSCRIBE and friends change them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace teksdb::server {

class Subscriber {
 public:
  virtual ~Subscriber() = default;
  // A message published on `channel`; `pattern` is the pattern that
  // matched it (PSUBSCRIBE), or null; `shard`: published by SPUBLISH.
  virtual void Deliver(const std::string& channel, const std::string* pattern,
                       const std::string& message, bool shard) = 0;
  // CLIENT TRACKING (client_tracking.h): `keys` are invalid (null: every
  // key). RESP3: an "invalidate" push; RESP2, `redirected` here by another
  // client, and subscribed to __redis__:invalidate: a message there;
  // otherwise nothing.
  virtual void DeliverInvalidation(const std::vector<std::string>* keys, bool redirected) = 0;
  // The client this one redirects invalidations to is gone (RESP3 only).
  virtual void DeliverRedirectBroken(uint64_t redirect) = 0;
  // MONITOR (monitors.h): a line, sent as it is.
  virtual void DeliverMonitorLine(const std::string& line) = 0;
};

class PubSub {
 public:
  enum Kind { kChannel, kPattern, kShardChannel };

  void Add(Kind kind, const std::string& name, const std::shared_ptr<Subscriber>& subscriber);
  void Remove(Kind kind, const std::string& name, const Subscriber* subscriber);

  // Delivers to the channel's subscribers and (unless `shard`) to those of
  // every matching pattern; how many received it.
  int64_t Publish(const std::string& channel, const std::string& message, bool shard);

  // PUBSUB: active channels (of `kind`, channels or shard channels) that
  // match `pattern` (every one if null), subscribers of a channel, and how
  // many patterns are subscribed.
  std::vector<std::string> Channels(Kind kind, const std::string* pattern) const;
  int64_t Subscribers(Kind kind, const std::string& channel) const;
  int64_t PatternCount() const;
  // What `subscriber` is subscribed to of `kind` (ACL's revocations:
  // acl_command.cc).
  std::vector<std::string> SubscriptionsOf(Kind kind, const Subscriber* subscriber) const;

 private:
  struct Entry {
    const Subscriber* id;
    std::weak_ptr<Subscriber> subscriber;
  };
  using Map = std::map<std::string, std::vector<Entry>>;
  Map& MapOf(Kind kind) { return kind == kChannel ? channels_ : (kind == kPattern ? patterns_ : shards_); }
  const Map& MapOf(Kind kind) const {
    return kind == kChannel ? channels_ : (kind == kPattern ? patterns_ : shards_);
  }

  mutable std::mutex mu_;
  Map channels_, patterns_, shards_;
};

}  // namespace teksdb::server
