// WriteGroup: the writes of one connection's pipeline, committed together.
//
// A connection runs every command it has already received before it sends
// any reply (connection.h). Through a WriteGroup, the writes of those
// commands are staged together (staged_writes.h) instead of each going to
// the database on its own, and the group goes to the database in one
// DB::Write, one WAL append, before any of their replies is sent
// (Connection::Process calls Flush first). Each command still sees every
// earlier write of its connection: reads go through the staged batch
// (Keyspace, in the group's view), and a command's writes are staged
// whole or not at all (Keyspace::Commit stages a command's batch at once).
//
// Key locks. A command that writes locks its keys' stripes as before
// (Keyspace::LockKeys), but the group keeps them until it flushes, so no
// other client sees, or writes between, the staged writes. The group takes
// a stripe it lacks only if it is free (try_lock); when one is taken, it
// flushes first (committing what it staged and releasing every stripe)
// and only then waits, in stripe order, holding nothing: a thread never
// waits while holding a stripe another one waits for, so groups cannot
// deadlock.
//
// Gates. Besides stripes, a writer holds one of a few gates (Keyspace's
// kGates shared mutexes) shared, the group until it flushes: a command
// that must see the whole keyspace still (FLUSHALL or KEYS inside EXEC, a
// script) takes every gate exclusively instead of every stripe, so no
// other writer holds any stripe meanwhile. Gates are taken, like stripes,
// only when the group holds nothing (or by try-lock).
//
// Failure. If the group's write fails, the replies of every command from
// the first one that staged a write on (later ones may have read the
// staged writes) are replaced by the storage error, in place: nothing is
// acknowledged, and no read answered, from writes that never reached the
// database.
//
// Thread safety: one connection's, on one thread at a time (its commands
// run in order). The stripes it holds are the shared keyspace's mutexes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <iterator>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/write_batch.h"
#include "staged_writes.h"

namespace teksdb::server {

class WriteGroup {
 public:
  // `out`: the connection's replies, which Flush rewrites on failure.
  explicit WriteGroup(std::string* out);

  // Writes staged and not yet flushed.
  bool staged() const { return !staged_.empty(); }
  // What reads in the group's view go through.
  StagedWrites& writes() { return staged_; }

  // Around each command: the group notes the replies its flush vouches for
  // (those of commands run while it had writes staged).
  void BeginCommand() { command_reply_start_ = out_->size(); }
  void EndCommand();

  // Adds a command's writes (REQUIRES: the group holds their keys' stripes;
  // `writes` and `merged_values` are what StagedWrites::Add takes).
  ROCKSDB_NAMESPACE::Status Stage(const ROCKSDB_NAMESPACE::WriteBatch& writes,
                                  std::vector<std::string> merged_values,
                                  bool sets_expiry);

  // Whether the group holds stripe `s`; takes it if it is free.
  bool Holds(size_t s) const;
  bool TryTake(std::mutex& stripe, size_t s);
  // Takes `stripes` (sorted), waiting. REQUIRES: the group holds none.
  void Take(std::mutex* stripes, const std::vector<size_t>& sorted);

  // The gate (see Gates above): held shared, or every gate exclusively.
  bool holds_gate() const { return gate_.owns_lock() || whole_keyspace(); }
  bool whole_keyspace() const { return !all_gates_.empty(); }
  void TakeGate(std::shared_lock<std::shared_mutex> gate) { gate_ = std::move(gate); }
  void TakeAllGates(std::vector<std::unique_lock<std::shared_mutex>> gates) {
    all_gates_ = std::move(gates);
  }

  // In a transaction (Keyspace::BeginTransaction) Flush keeps the stripes.
  // Keys the staged writes write, for the KeyWriteListener once they are
  // flushed (Keyspace::FlushGroup takes them).
  void AddWritten(std::vector<std::string> keys) {
    written_.insert(written_.end(), std::make_move_iterator(keys.begin()),
                    std::make_move_iterator(keys.end()));
  }
  std::vector<std::string> TakeWritten() { return std::move(written_); }
  bool Wrote(const std::string& key) const {
    return std::find(written_.begin(), written_.end(), key) != written_.end();
  }
  // Reads of keys the staged writes write, told to the listener after them.
  struct DeferredRead {
    std::vector<std::string> keys;
    bool caching_given;
  };
  void DeferRead(DeferredRead read) { deferred_reads_.push_back(std::move(read)); }
  std::vector<DeferredRead> TakeDeferredReads() { return std::move(deferred_reads_); }
  bool in_transaction() const { return in_transaction_; }
  void set_in_transaction(bool on) { in_transaction_ = on; }

  // A script stopped by a shutdown: drops what is staged, unwritten, and
  // replaces the replies it vouched for, the running command's and every
  // later one's by `error`; later writes are refused. The stripes and
  // gates stay held until Flush. For good: the connection is closing.
  void Abandon(const std::string& error);

  // Writes what is staged (if anything) in one DB::Write, releases every
  // stripe and gate (unless in a transaction); on failure rewrites the replies it vouched for. Returns the
  // write's status; *set_expiry says whether a write it committed set an
  // expiry (for the expiry sweep).
  ROCKSDB_NAMESPACE::Status Flush(ROCKSDB_NAMESPACE::DB* db,
                                  const ROCKSDB_NAMESPACE::WriteOptions& options,
                                  bool* set_expiry);

 private:
  std::string* const out_;
  StagedWrites staged_;
  std::vector<std::string> written_;  // AddWritten's
  std::vector<DeferredRead> deferred_reads_;
  bool sets_expiry_ = false;
  std::vector<std::pair<size_t, std::unique_lock<std::mutex>>> held_;
  std::shared_lock<std::shared_mutex> gate_;
  std::vector<std::unique_lock<std::shared_mutex>> all_gates_;
  // Replaces the vouched replies by `reply`, in place, and forgets them.
  void ReplaceVouched(const std::string& reply);

  // Replies [start, end) of the commands run while writes were staged.
  std::vector<std::pair<size_t, size_t>> vouched_replies_;
  size_t command_reply_start_ = 0;
  bool in_transaction_ = false;
  std::string abandoned_;  // the error reply of an abandoned group
};

}  // namespace teksdb::server
