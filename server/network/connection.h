// Connection: one client's socket, read, parsed and answered in order.
//
// A connection lives on one I/O thread's loop, which one thread runs, and
// its handlers all run there, one at a time (Serialized): other threads
// post to the loop (Post). The one way a handler could start inside
// another is a busy script's hook, which polls the loop from inside a
// handler (running_script.h); a handler of the script's own connection
// then waits (deferred_) until the running one returns. (An Asio strand
// did the same, with a mutex and reference counts on every completion:
// docs/DESIGN.md §13.) It reads, runs every whole
// command that arrived (pipelining) while its pending replies stay under
// kReplyBatchBytes, writes those replies and reads on while they go out
// (so commands run in the order clients sent them, as Redis's event loop
// runs them); what it reads then runs, its replies held until the write
// is done, and it reads no more while replies wait. So a client that stops
// reading stalls only itself, and the server holds at most two batches of
// its replies (plus the one reply that crossed the mark) and the command
// being parsed (RespParser's limits) for it.
// A protocol error is replied, then the connection closes, as in Redis.
//
// Limits (client_limits.h): before the client authenticates it parses one
// command at a time under Redis's unauthenticated limits; a command being
// read that outgrows client-query-buffer-limit closes the connection, as
// does output not yet written (replies, pushes, MONITOR lines, in flight
// or not) past its class's client-output-buffer-limit: checked after each
// command, each push, and by the server's cron for soft limits held too
// long (CheckLimits). Closed so, it writes nothing more; Redis's words go
// to the log. CLIENT LIST's qbuf and omem are kept as they change, and
// with them all it holds, for client eviction (PublishMemory: after each
// read, command, push and write; the registry may then evict this or
// other connections, client_registry.h).
//
// Pub/Sub messages (pubsub.h) arrive on the publisher's thread: Deliver
// formats them for the connection's protocol on the connection's loop, and
// queues them in pushes_; they are written between whole replies, while a
// read may be outstanding (one write at a time: writing_), in the order
// they came: the pushes that waited when replies began go out before those
// replies (pushes_ahead_). MONITOR lines are queued on the feeding thread
// (monitor_lines_, under monitor_mu_) and taken on the loop, so that a
// monitor gets them in the order the commands were fed, whichever threads
// ran them.
//
// A blocking command that found nothing (BLPOP ...) leaves ClientState::
// block set: the connection registers as a waiter of its keys (key_waiters.h)
// before its write group lets go of their stripes, stops running commands,
// and keeps one read outstanding (to notice the client leaving; what it
// reads meanwhile waits, up to kReadBytes * 4). Woken, it runs the command
// again; at the deadline it replies a null array, as Redis does.
//
// The commands run between two writes form a pipeline whose writes go to
// the database together (write_group.h): they are staged in the
// connection's WriteGroup as they run, and flushed in one DB::Write before
// their replies are written. Commands are parsed ahead of running (up to
// kLookahead), so that a run of GETs, HGETs and HMGETs reads its keys' meta
// records in one MultiGet (Keyspace::Prefetch) before they run.
#pragma once

#include <asio.hpp>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "commands.h"
#include "keyspace.h"
#include "resp_parser.h"
#include "write_group.h"

namespace teksdb::server {

class Connection : public Subscriber,
                   public KeyWaiters::Waiter,
                   public ClientRegistry::Closer,
                   public std::enable_shared_from_this<Connection> {
 public:
  // A socket on one I/O thread's loop, by the loop's own executor type (no
  // type-erased executor between a completion and its handler).
  using LoopSocket = asio::basic_stream_socket<asio::ip::tcp, asio::io_context::executor_type>;

  Connection(LoopSocket socket, ServerState* server);
  ~Connection() override;
  void Start();

  void Deliver(const std::string& channel, const std::string* pattern, const std::string& message,
               bool shard) override;
  void DeliverInvalidation(const std::vector<std::string>* keys, bool redirected) override;
  void DeliverRedirectBroken(uint64_t redirect) override;
  void DeliverMonitorLine(const std::string& line) override;
  bool TryWake(const std::string& key) override;
  // CLIENT KILL: closes the socket (on the connection's loop).
  void Close() override;
  // CLIENT UNBLOCK: ends a blocked command as its timeout would, or with
  // Redis's UNBLOCKED error.
  bool Unblock(bool with_error) override;
  // The server's cron: closes the connection if its output is past its
  // soft limit for too long (on the connection's loop).
  void CheckLimits() override;
  // Client eviction: closes the connection (on its loop).
  void Evict() override;

 private:
  static constexpr size_t kReadBytes = 16 * 1024;
  static constexpr size_t kReadAtOnceBytes = 1024 * 1024;
  static constexpr size_t kReplyBatchBytes = 64 * 1024;
  static constexpr size_t kLookahead = 64;
  static constexpr size_t kPushChunkBytes = 16 * 1024;

  // Runs `handler` now, or, if a handler of this connection runs now
  // (nested in it by a busy script's poll of the loop), after it returns.
  // On the loop's thread. `handler` may hold the connection by a plain
  // pointer: whoever calls this holds it, and a deferred handler runs
  // before the running one's caller lets go.
  template <typename Handler>
  void Serialized(Handler&& handler);
  // Runs `handler` on the connection's loop, serialized; any thread.
  template <typename Handler>
  void Post(Handler&& handler);

  void Read();
  void ReadDone(const asio::error_code& error, size_t n);
  // After a read that filled read_buffer_: appends what else the socket
  // holds now (up to kReadAtOnceBytes; authenticated clients only), so
  // that a large request is read in one turn of the loop rather than 16
  // KiB a turn, other clients' commands running between (Redis reads a
  // large argument whole). Never waits.
  void ReadAvailable();
  // Runs the commands in unparsed_ until it is used up or a batch of
  // replies is due; then writes or reads.
  void Process();
  // Parses what unparsed_ holds into ready_ (up to kLookahead commands);
  // false after a protocol error (replied; the connection then closes) or
  // when a limit closed the connection (query buffer, eviction).
  bool ParseAhead();
  // Runs ready_.front(), first prefetching a run of point reads it starts.
  void RunNext();
  // Takes ready_'s front out (done with: run, or ended blocked).
  std::vector<std::string> TakeReady();
  // After a command set client_.block: waits (registered, with a timer).
  void EnterBlock();
  // Leaves the block (woken, timed out, or closing): unregisters.
  void LeaveBlock();
  // A blocked command's end without a wake: timed out (`error` null) or
  // unblocked with `error`.
  void EndBlock(const char* error);
  // Writes replies_ and pushes_ (REQUIRES !writing_); when it completes,
  // writes what came meanwhile, then resumes Process if it asked to.
  void Write();
  void WriteDone(const asio::error_code& error);
  // After PSYNC's replies: gives the socket to the replica feeds
  // (replica_feeds.h); the connection then ends.
  void HandOver();
  // Output not yet written: replies, pushes and the write in flight.
  size_t OutputBytes() const { return replies_.size() + pushes_bytes_ + outgoing_bytes_; }
  // Where a push of about `bytes` is to be appended: the last chunk of
  // pushes_, or a new one (so that what waits is held in chunks of at most
  // kPushChunkBytes, or one message each, never in one string that doubles).
  std::string& PushBuffer(size_t bytes);
  // Replies are about to be added to an empty replies_: the pushes waiting
  // now came first (pushes_ahead_), and a later push starts a chunk of its
  // own.
  void MarkPushesAhead();
  // Appends the MONITOR lines fed so far to pushes_, in the order fed.
  void TakeMonitorLines();
  // After a push was appended to `chunk` (which held `size_before` bytes):
  // counts it, checks the limit, and writes.
  void PushWritten(const std::string& chunk, size_t size_before);
  // Publishes qbuf and omem (CLIENT LIST, INFO), then closes the
  // connection if its output is past its limit; then PublishMemory. True
  // if it closed.
  bool CheckOutputLimit();
  // Publishes all the connection holds (tot-mem) for client eviction, and
  // evicts clients if that reached maxmemory-clients: true if this one was
  // evicted (then closed).
  bool PublishMemory();
  // Closes the connection at once for a limit, writing nothing more;
  // Redis's log line to the log: `before`, the client's CLIENT LIST line,
  // `after`.
  void CloseForLimit(const std::string& before, const std::string& after);

  LoopSocket socket_;
  const asio::io_context::executor_type loop_;
  bool in_handler_ = false;                     // a handler runs (Serialized)
  std::deque<std::function<void()>> deferred_;  // handlers that came meanwhile
  ServerState* const server_;
  ClientState client_;
  RespParser parser_;
  char read_buffer_[kReadBytes];
  std::string unparsed_;  // bytes read but not yet consumed by the parser
  size_t unparsed_pos_ = 0;
  // What the request being read holds (the parser's command, its argument
  // being read at its declared length, and unparsed_), as of the last
  // ParseAhead.
  int64_t query_memory_ = 0;
  std::deque<std::vector<std::string>> ready_;  // parsed, not yet run (or running: the front)
  int64_t ready_bytes_ = 0;                     // their ArgumentsBytes
  size_t prefetched_run_ = 0;  // reads of ready_'s front that a prefetch covers
  std::vector<ROCKSDB_NAMESPACE::Slice> prefetch_keys_;  // their keys (a buffer reused)
  std::string replies_;
  std::deque<std::string> pushes_;  // Pub/Sub messages, ... not yet written
  size_t pushes_bytes_ = 0;         // their bytes
  size_t pushes_ahead_ = 0;         // pushes_'s first chunks, due before replies_
  bool push_chunk_closed_ = false;  // the next push starts a new chunk
  // What the write in flight holds: pushes ahead, replies, then pushes.
  std::string outgoing_replies_;
  std::vector<std::string> outgoing_pushes_;
  std::vector<asio::const_buffer> outgoing_buffers_;
  size_t outgoing_bytes_ = 0;
  bool writing_ = false;
  bool reading_ = false;
  bool blocked_ = false;
  bool closed_for_limit_ = false;  // CloseForLimit ran: nothing more runs or is written
  int64_t output_soft_since_ms_ = 0;  // when omem went past the soft limit (0: under it)
  // The deadline of the front command's first block: running again after a
  // wake does not extend it (-1: not blocked yet).
  int64_t block_deadline_ms_ = -1;
  asio::steady_timer block_timer_;
  std::atomic<bool> wake_pending_{false};  // a TryWake's rerun is posted
  std::vector<std::string> rerun_keys_;    // the keys of the block a wake ended
  bool process_after_write_ = false;  // Process stopped to write its replies
  std::mutex monitor_mu_;
  std::vector<std::string> monitor_lines_;  // fed, not yet taken (monitor_mu_)
  WriteGroup group_{&replies_};
  Keyspace keyspace_;  // the server's, in group_'s view
};

template <typename Handler>
void Connection::Serialized(Handler&& handler) {
  if (in_handler_) {
    deferred_.emplace_back(std::forward<Handler>(handler));
    return;
  }
  in_handler_ = true;
  // (A handler that throws leaves the connection able to run the next.)
  struct Leave {
    bool* in_handler;
    ~Leave() { *in_handler = false; }
  } leave{&in_handler_};
  handler();
  while (!deferred_.empty()) {
    std::function<void()> next = std::move(deferred_.front());
    deferred_.pop_front();
    next();
  }
}

template <typename Handler>
void Connection::Post(Handler&& handler) {
  asio::post(loop_, [self = shared_from_this(), handler = std::forward<Handler>(handler)]() mutable {
    self->Serialized(std::move(handler));
  });
}

}  // namespace teksdb::server
