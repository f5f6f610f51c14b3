// Connection implementation: the read -> process -> write cycle.
#include "connection.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "ascii_case.h"
#include "link_socket.h"
#include "monotonic_clock.h"
#include "printable_text.h"
#include "replication.h"
#include "resp_reply.h"

namespace teksdb::server {

Connection::Connection(LoopSocket socket, ServerState* server)
    : socket_(std::move(socket)),
      loop_(socket_.get_executor()),
      server_(server),
      block_timer_(loop_),
      keyspace_(server->keyspace->InGroup(&group_)) {
  client_.keyspace = &keyspace_;
  client_.id = server_->connections.fetch_add(1, std::memory_order_relaxed) + 1;
  keyspace_.set_writer(client_.id);
  client_.info = std::make_shared<ClientRegistry::Info>();
  client_.info->id = client_.id;
  client_.info->created_ms = MonotonicMs();
  SetClientDefaultUser(*server_, client_);
  asio::error_code error;
  const asio::ip::tcp::endpoint peer = socket_.remote_endpoint(error);
  if (!error) client_.address = peer.address().to_string() + ":" + std::to_string(peer.port());
  client_.info->address = client_.address;
  const asio::ip::tcp::endpoint local = socket_.local_endpoint(error);
  if (!error) {
    client_.info->local_address = local.address().to_string() + ":" + std::to_string(local.port());
  }
  server_->connected.fetch_add(1, std::memory_order_relaxed);
}

Connection::~Connection() {
  server_->clients.Remove(client_.id);
  server_->clients.ForgetMemory(*client_.info);
  server_->tracking.Disable(client_.id);
  server_->monitors.Remove(client_.id);
  LeaveBlock();
  keyspace_.watched().UnwatchAll(&client_.watcher);
  for (const std::string& c : client_.channels) server_->pubsub.Remove(PubSub::kChannel, c, this);
  for (const std::string& p : client_.patterns) server_->pubsub.Remove(PubSub::kPattern, p, this);
  for (const std::string& c : client_.shard_channels) {
    server_->pubsub.Remove(PubSub::kShardChannel, c, this);
  }
  server_->connected.fetch_sub(1, std::memory_order_relaxed);
  if (closed_for_limit_) {
    // What it held goes back to the system (glibc keeps freed blocks in
    // its arenas otherwise); a closing for a limit is rare.
    outgoing_pushes_ = {};
    std::string().swap(outgoing_replies_);
    ::malloc_trim(0);
  }
}

void Connection::Start() {
  client_.subscriber = shared_from_this();
  server_->clients.Add(client_.info, shared_from_this(), shared_from_this());
  Post([self = shared_from_this()] { self->Read(); });
}

void Connection::Read() {
  reading_ = true;
  socket_.async_read_some(
      asio::buffer(read_buffer_, kReadBytes),
      [self = shared_from_this()](const asio::error_code& error, size_t n) {
        self->Serialized([c = self.get(), error, n] { c->ReadDone(error, n); });
      });
}

void Connection::ReadDone(const asio::error_code& error, size_t n) {
  reading_ = false;
  if (error || closed_for_limit_) {  // closed or reset: drop the connection
    LeaveBlock();
    block_timer_.cancel();
    return;
  }
  unparsed_.erase(0, unparsed_pos_);
  unparsed_pos_ = 0;
  // (A buffer that grew for one large request is not kept.)
  if (unparsed_.size() < kReadBytes && unparsed_.capacity() > 4 * kReadBytes) unparsed_.shrink_to_fit();
  unparsed_.append(read_buffer_, n);
  // (A full read, or a command spread over reads: the rest is likely there.)
  if ((n == kReadBytes || parser_.held_bytes() > 0) && client_.authenticated && !blocked_) {
    ReadAvailable();
  }
  if (!blocked_) return Process();
  // Blocked: keep what came, and listen on while it stays small.
  if (unparsed_.size() < 4 * kReadBytes) Read();
}

void Connection::ReadAvailable() {
  // (Each read opens the TCP window, and the sender's next bytes may then
  // be there at once: read on while they come.)
  for (size_t taken = 0; taken < kReadAtOnceBytes;) {
    asio::error_code error;
    const size_t available = std::min(socket_.available(error), kReadAtOnceBytes - taken);
    if (error || available == 0) return;
    const size_t before = unparsed_.size();
    unparsed_.resize(before + available);
    const size_t got = socket_.read_some(asio::buffer(&unparsed_[before], available), error);
    unparsed_.resize(before + (error ? 0 : got));  // (an error shows in the next read)
    if (error) return;
    taken += got;
  }
}

void Connection::CheckLimits() {
  Post([self = shared_from_this()] {
    if (!self->closed_for_limit_) self->CheckOutputLimit();
  });
}

void Connection::Evict() {
  Post([self = shared_from_this()] {
    if (!self->closed_for_limit_) self->CloseForLimit("Evicting client: ", "");
  });
}

bool Connection::CheckOutputLimit() {
  const int64_t bytes = static_cast<int64_t>(OutputBytes());
  const int64_t now_ms = CoarseMonotonicMs();
  client_.info->output_bytes.store(bytes, std::memory_order_relaxed);
  server_->recent_max_output.Record(bytes, now_ms / 1000);
  if (bytes == 0) {
    output_soft_since_ms_ = 0;
    return PublishMemory();
  }
  // (MONITOR clients are normal ones, as in Redis.)
  const ClientLimits::Class type =
      client_.subscriptions() > 0 ? ClientLimits::kPubSub : ClientLimits::kNormal;
  if (!server_->client_limits.OutputOverLimit(type, bytes, now_ms, &output_soft_since_ms_)) {
    return PublishMemory();
  }
  // (Before eviction, as in Redis: a client past its own limit goes alone.)
  CloseForLimit("Client ", " closed for overcoming of output buffer limits.");
  return true;
}

bool Connection::PublishMemory() {
  // (The command at the front runs now or next: CLIENT LIST counts it
  // while it runs, client eviction does not, as Redis frees a command's
  // arguments once it ran.)
  const int64_t waiting = ready_.empty() ? 0 : ready_bytes_ - ArgumentsBytes(ready_.front());
  const int64_t bytes =
      query_memory_ + waiting + static_cast<int64_t>(OutputBytes()) + client_.held_bytes();
  ClientRegistry& clients = server_->clients;
  if (!clients.PublishMemory(*client_.info, bytes)) return false;
  clients.EvictOverLimit();
  if (!client_.info->gone.load(std::memory_order_relaxed)) return false;
  CloseForLimit("Evicting client: ", "");
  return true;
}

void Connection::CloseForLimit(const std::string& before, const std::string& after) {
  std::string line = ClientListLine(*client_.info);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  std::fprintf(stderr, "teksdb-server: %s%s%s\n", before.c_str(), line.c_str(), after.c_str());
  closed_for_limit_ = true;
  server_->clients.Remove(client_.id);
  server_->clients.ForgetMemory(*client_.info);
  LeaveBlock();
  block_timer_.cancel();
  replies_.clear();
  replies_.shrink_to_fit();
  pushes_.clear();
  pushes_bytes_ = 0;
  pushes_ahead_ = 0;
  ready_.clear();
  ready_bytes_ = 0;
  unparsed_.clear();
  unparsed_.shrink_to_fit();
  unparsed_pos_ = 0;
  parser_ = RespParser();
  client_.info->output_bytes.store(0, std::memory_order_relaxed);
  client_.info->query_bytes.store(0, std::memory_order_relaxed);
  client_.info->memory_bytes.store(0, std::memory_order_relaxed);
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

bool Connection::TryWake(const std::string& key) {
  if (!client_.info->blocked.load(std::memory_order_acquire)) return false;
  if (wake_pending_.exchange(true, std::memory_order_acq_rel)) return true;
  Post([self = shared_from_this(), key] {
    self->wake_pending_.store(false, std::memory_order_release);
    // Unblocked meanwhile (timed out, unblocked, closed): the next waiter.
    if (!self->blocked_) return self->keyspace_.waiters().Touch(key);
    // A command a pause held runs as if it had just arrived (a blocking
    // one's timeout starts then); every held one is woken, none passes a
    // turn on.
    const bool held_by_pause = self->client_.block->paused_by != ClientPause::kNone;
    if (!held_by_pause) self->rerun_keys_ = self->client_.block->keys;
    self->LeaveBlock();
    self->block_timer_.cancel();
    if (held_by_pause) {
      self->block_deadline_ms_ = -1;
    } else {
      self->client_.block_rerun = true;
    }
    self->Process();
  });
  return true;
}

void Connection::Close() {
  Post([self = shared_from_this()] {
    asio::error_code ignored;
    self->socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    self->socket_.close(ignored);
  });
}

void Connection::EnterBlock() {
  blocked_ = true;
  client_.info->blocked.store(true, std::memory_order_relaxed);
  if (block_deadline_ms_ < 0) {
    block_deadline_ms_ = client_.block->deadline_ms;
  } else {
    client_.block->deadline_ms = block_deadline_ms_;
  }
  for (const std::string& key : client_.block->keys) {
    keyspace_.waiters().Add(key, shared_from_this(), client_.block->wake_on_delete);
  }
  if (client_.block->paused_by != ClientPause::kNone) {
    client_.info->paused.store(true, std::memory_order_relaxed);
    // Eased before it was registered (its wake went to nobody): at once.
    if (server_->pause.kind() < client_.block->paused_by) TryWake(ClientPause::kWakeKey);
    return;
  }
  if (client_.block->deadline_ms == 0) return;
  block_timer_.expires_after(std::chrono::milliseconds(
      std::max<int64_t>(0, client_.block->deadline_ms - Keyspace::NowMs())));
  block_timer_.async_wait([self = shared_from_this()](const asio::error_code& error) {
    self->Serialized([c = self.get(), error] {
      if (error || !c->blocked_) return;  // cancelled: woken or closed
      c->EndBlock(nullptr);
    });
  });
}

void Connection::EndBlock(const char* error) {
  block_timer_.cancel();
  if (error == nullptr && client_.block->rerun_at_deadline) {  // it replies itself
    LeaveBlock();
    client_.block_rerun = true;
    client_.block_timed_out = true;
    return Process();
  }
  LeaveBlock();
  // The null array (or the error), and on with the commands after it.
  MarkPushesAhead();
  error != nullptr ? reply::Error(&replies_, error) : reply::NullArray(&replies_, client_.protocol);
  CountBlockedEnd(*server_, ready_.front(), error != nullptr ? error : "");
  parser_.Recycle(TakeReady());
  block_deadline_ms_ = -1;
  Process();
}

bool Connection::Unblock(bool with_error) {
  if (!client_.info->blocked.load(std::memory_order_relaxed) ||
      client_.info->paused.load(std::memory_order_relaxed)) {
    return false;
  }
  Post([self = shared_from_this(), with_error] {
    if (!self->blocked_ || self->client_.block->paused_by != ClientPause::kNone) return;
    self->EndBlock(with_error ? "UNBLOCKED client unblocked via CLIENT UNBLOCK" : nullptr);
  });
  return true;
}

void Connection::LeaveBlock() {
  if (!blocked_) return;
  blocked_ = false;
  client_.info->blocked.store(false, std::memory_order_relaxed);
  client_.info->paused.store(false, std::memory_order_relaxed);
  for (const std::string& key : client_.block->keys) keyspace_.waiters().Remove(key, this);
  client_.block.reset();
}

std::string& Connection::PushBuffer(size_t bytes) {
  if (pushes_.empty() || push_chunk_closed_ || pushes_.back().size() + bytes > kPushChunkBytes) {
    pushes_.emplace_back();
    pushes_.back().reserve(bytes);
    push_chunk_closed_ = false;
  }
  return pushes_.back();
}

void Connection::MarkPushesAhead() {
  if (!replies_.empty() || pushes_.empty()) return;
  pushes_ahead_ = pushes_.size();
  push_chunk_closed_ = true;
}

void Connection::PushWritten(const std::string& chunk, size_t size_before) {
  pushes_bytes_ += chunk.size() - size_before;
  if (CheckOutputLimit()) return;
  if (!writing_) Write();
}

void Connection::Deliver(const std::string& channel, const std::string* pattern,
                         const std::string& message, bool shard) {
  Post([self = shared_from_this(), channel, message, shard,
                       pattern = pattern ? std::optional<std::string>(*pattern) : std::nullopt] {
    if (self->closed_for_limit_) return;
    std::string& out =
        self->PushBuffer(message.size() + channel.size() + (pattern ? pattern->size() : 0) + 64);
    const size_t before = out.size();
    // RESP3: a push; RESP2: an array ("message", "pmessage", "smessage").
    const size_t n = pattern ? 4 : 3;
    if (self->client_.protocol == 3) {
      out += ">" + std::to_string(n) + "\r\n";
    } else {
      reply::ArrayHeader(&out, n);
    }
    reply::Bulk(&out, pattern ? "pmessage" : (shard ? "smessage" : "message"));
    if (pattern) reply::Bulk(&out, *pattern);
    reply::Bulk(&out, channel);
    reply::Bulk(&out, message);
    self->PushWritten(out, before);
  });
}

void Connection::DeliverInvalidation(const std::vector<std::string>* keys, bool redirected) {
  Post([self = shared_from_this(), redirected,
                       keys = keys ? std::optional<std::vector<std::string>>(*keys) : std::nullopt] {
    if (self->closed_for_limit_) return;
    const bool resp3 = self->client_.protocol == 3;
    // A RESP2 client gets invalidations only redirected, subscribed.
    if (!resp3 && !(redirected && self->client_.channels.count("__redis__:invalidate") > 0)) return;
    size_t bytes = 64;
    if (keys) {
      for (const std::string& key : *keys) bytes += key.size() + 16;
    }
    std::string& out = self->PushBuffer(bytes);
    const size_t before = out.size();
    if (resp3) {
      out += ">2\r\n";
      reply::Bulk(&out, "invalidate");
    } else {
      reply::ArrayHeader(&out, 3);
      reply::Bulk(&out, "message");
      reply::Bulk(&out, "__redis__:invalidate");
    }
    if (keys) {
      reply::ArrayHeader(&out, keys->size());
      for (const std::string& key : *keys) reply::Bulk(&out, key);
    } else {
      reply::Null(&out, self->client_.protocol);
    }
    self->PushWritten(out, before);
  });
}

void Connection::DeliverRedirectBroken(uint64_t redirect) {
  Post([self = shared_from_this(), redirect] {
    if (self->closed_for_limit_ || self->client_.protocol != 3) return;
    std::string& out = self->PushBuffer(64);
    const size_t before = out.size();
    out += ">2\r\n";
    reply::Bulk(&out, "tracking-redir-broken");
    reply::Integer(&out, static_cast<int64_t>(redirect));
    self->PushWritten(out, before);
  });
}

void Connection::DeliverMonitorLine(const std::string& line) {
  // Queued here, on the feeding thread, so that lines keep the order the
  // commands were fed in (a post from a thread of this loop would wait
  // until that thread's handler returns, behind posts from other threads).
  {
    std::lock_guard<std::mutex> lock(monitor_mu_);
    monitor_lines_.push_back(line);
    if (monitor_lines_.size() > 1) return;  // a take is posted already
  }
  Post([self = shared_from_this()] { self->TakeMonitorLines(); });
}

void Connection::TakeMonitorLines() {
  std::vector<std::string> lines;
  {
    std::lock_guard<std::mutex> lock(monitor_mu_);
    lines.swap(monitor_lines_);
  }
  for (const std::string& line : lines) {
    if (closed_for_limit_) return;
    std::string& out = PushBuffer(line.size());
    const size_t before = out.size();
    out += line;
    PushWritten(out, before);
  }
}

void Connection::Process() {
  if (closed_for_limit_) return;
  client_.last_command_end.reset();  // (what ran before this batch is not this batch's start)
  MarkPushesAhead();
  while (replies_.size() < kReplyBatchBytes && !client_.close_after_reply && !blocked_ &&
         !client_.hand_over_to_feeds) {
    if (ready_.empty() && !ParseAhead()) break;
    if (ready_.empty()) break;  // everything read is run: read more
    RunNext();
    if (CheckOutputLimit()) break;  // (its writes are still flushed below)
  }
  // Every reply above is sent only once the writes it reports are in the
  // database (a failed write has rewritten them).
  keyspace_.FlushGroup();
  if (!client_.expired_reads.empty()) ReclaimExpiredReads(*server_, client_);
  if (closed_for_limit_) return;
  if (!replies_.empty() || !pushes_.empty()) {
    // (Blocked, the writes's completion resumes nothing: the wake does.)
    process_after_write_ = !blocked_;
    // A write of pushes in flight writes the replies when it completes.
    if (!writing_) Write();
    // Listen on while they go out, as Redis's event loop always listens: a
    // client that sent its next command before another client's (one that
    // read these replies, then sent) has it run first. At most this batch
    // in flight and one more pending: no read while replies wait.
    if (!blocked_ && !reading_ && replies_.empty() && !client_.close_after_reply &&
        !client_.hand_over_to_feeds) {
      Read();
    }
    if (!blocked_ || reading_) return;
  }
  if (client_.hand_over_to_feeds && !writing_) return HandOver();
  if (client_.close_after_reply || client_.hand_over_to_feeds || reading_) return;
  Read();
}

void Connection::HandOver() {
  // The feeds' link is a blocking socket of its own: a duplicate of this
  // one, which closes (what was read past PSYNC is dropped: a replica
  // sends nothing before PSYNC's answer).
  const int fd = ::dup(socket_.native_handle());
  asio::error_code ignored;
  socket_.close(ignored);
  if (fd < 0) return;
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  server_->replication->feeds().Serve(std::make_unique<LinkSocket>(fd),
                                      std::move(client_.replica_request));
}

bool Connection::ParseAhead() {
  client_.last_command_end.reset();  // (the parse is no command's time)
  // Not yet authenticated: one command at a time under Redis's limits for
  // it, so that what follows an AUTH is read as the authenticated client's.
  const bool authenticated = client_.authenticated;
  const ClientLimits& limits = server_->client_limits;
  parser_.set_limits(static_cast<size_t>(limits.proto_max_bulk_len.load(std::memory_order_relaxed)),
                     !authenticated);
  const size_t lookahead = authenticated ? kLookahead : 1;
  int64_t most_held = 0;  // (INFO's recent peak, recorded once)
  while (ready_.size() < lookahead) {
    if (parser_.HasCommand()) {
      ready_.push_back(parser_.TakeCommand());
      ready_bytes_ += ArgumentsBytes(ready_.back());
      continue;
    }
    if (!parser_.error().empty()) {
      if (!ready_.empty()) return true;  // run what came before the error first
      reply::Error(&replies_, "ERR " + parser_.error());
      client_.close_after_reply = true;
      return false;
    }
    if (unparsed_pos_ == unparsed_.size()) break;
    unparsed_pos_ += parser_.Consume(unparsed_.data() + unparsed_pos_,
                                     unparsed_.size() - unparsed_pos_);
    const int64_t held =
        static_cast<int64_t>(parser_.held_bytes() + unparsed_.size() - unparsed_pos_);
    most_held = std::max(most_held, held);
    if (held > limits.query_buffer_limit.load(std::memory_order_relaxed)) {
      CloseForLimit("Closing client that reached max query buffer length: ",
                    " (qbuf initial bytes: \"" + PrintableText(parser_.first_bytes(), 64) + "\")");
      return false;
    }
  }
  if (most_held > 0) server_->recent_max_input.Record(most_held, CoarseMonotonicMs() / 1000);
  // (What a command taken holds is counted no more: it is about to run.)
  const bool reading = !parser_.HasCommand();
  const size_t unconsumed = unparsed_.size() - unparsed_pos_;
  client_.info->query_bytes.store(
      static_cast<int64_t>((reading ? parser_.sent_bytes() : 0) + unconsumed),
      std::memory_order_relaxed);
  query_memory_ = static_cast<int64_t>((reading ? parser_.claimed_bytes() : 0) + unconsumed);
  return !PublishMemory();
}

namespace {
// GET key, HGET key field, HMGET key field..., and the whole-collection
// reads (HGETALL, SMEMBERS, ...): reads of one key's meta record (all of a
// compact collection), then of named members at most.
bool IsPointRead(const std::vector<std::string>& args) {
  switch (args.size()) {
    case 0:
    case 1: return false;
    case 2:
      for (const char* name : {"get", "hgetall", "hkeys", "hvals", "hlen", "smembers", "scard"}) {
        if (AsciiEqualsLower(args[0], name)) return true;
      }
      return false;
    case 3:
      for (const char* name : {"hget", "hmget", "hexists", "sismember", "zscore"}) {
        if (AsciiEqualsLower(args[0], name)) return true;
      }
      return false;
    default: return AsciiEqualsLower(args[0], "hmget");
  }
}
}  // namespace

std::vector<std::string> Connection::TakeReady() {
  ready_bytes_ -= ArgumentsBytes(ready_.front());
  std::vector<std::string> args = std::move(ready_.front());
  ready_.pop_front();
  return args;
}

void Connection::RunNext() {
  // (Inside MULTI, reads are queued, not run: nothing to read ahead.)
  if (prefetched_run_ == 0 && !client_.in_multi && IsPointRead(ready_.front())) {
    prefetch_keys_.clear();
    for (size_t i = 0; i < ready_.size() && IsPointRead(ready_[i]); ++i) {
      prefetch_keys_.emplace_back(ready_[i][1]);
    }
    if (prefetch_keys_.size() > 1) {
      keyspace_.Prefetch(prefetch_keys_);
      prefetched_run_ = prefetch_keys_.size();
    }
  }
  group_.BeginCommand();
  Execute(*server_, client_, ready_.front(), &replies_);
  group_.EndCommand();
  client_.block_rerun = false;
  client_.block_timed_out = false;
  // Woken and run to its reply (served, or refused): the next waiter of
  // its keys gets its turn (key_waiters.h).
  if (!rerun_keys_.empty()) {
    if (!client_.block) {
      for (const std::string& key : rerun_keys_) keyspace_.waiters().Touch(key);
    }
    rerun_keys_.clear();
  }
  // A command that blocks stays at the front, to run again when woken; it
  // registers now, while the group still holds its keys' stripes.
  if (client_.block) return EnterBlock();
  parser_.Recycle(TakeReady());
  block_deadline_ms_ = -1;
  if (prefetched_run_ > 0 && --prefetched_run_ == 0) keyspace_.Prefetch({});
}

void Connection::Write() {
  writing_ = true;
  // A closing client leaves the registry before its last reply goes out:
  // whoever has read that reply finds it gone (CLIENT LIST, a tracking
  // redirect to it, which then breaks).
  if (client_.close_after_reply) server_->clients.Remove(client_.id);
  // The pushes that came before the replies, the replies, then the other
  // pushes, as they are (no copy into one buffer).
  outgoing_replies_.clear();
  outgoing_replies_.swap(replies_);
  outgoing_pushes_.clear();
  for (std::string& chunk : pushes_) outgoing_pushes_.push_back(std::move(chunk));
  pushes_.clear();
  outgoing_bytes_ = outgoing_replies_.size() + pushes_bytes_;
  pushes_bytes_ = 0;
  const size_t ahead = std::min(pushes_ahead_, outgoing_pushes_.size());
  pushes_ahead_ = 0;
  push_chunk_closed_ = false;
  auto done = [self = shared_from_this()](const asio::error_code& error, size_t) {
    self->Serialized([c = self.get(), error] { c->WriteDone(error); });
  };
  // Replies alone (most writes): one buffer, which the write holds without
  // copying a sequence of them.
  if (outgoing_pushes_.empty()) return asio::async_write(socket_, asio::buffer(outgoing_replies_), done);
  outgoing_buffers_.clear();
  for (size_t i = 0; i < ahead; ++i) outgoing_buffers_.push_back(asio::buffer(outgoing_pushes_[i]));
  outgoing_buffers_.push_back(asio::buffer(outgoing_replies_));
  for (size_t i = ahead; i < outgoing_pushes_.size(); ++i) {
    outgoing_buffers_.push_back(asio::buffer(outgoing_pushes_[i]));
  }
  asio::async_write(socket_, outgoing_buffers_, done);
}

void Connection::WriteDone(const asio::error_code& error) {
  writing_ = false;
  outgoing_pushes_.clear();
  outgoing_buffers_.clear();
  outgoing_bytes_ = 0;
  // (A buffer that grew for one large reply is not kept.)
  outgoing_replies_.clear();
  if (outgoing_replies_.capacity() > 4 * kReplyBatchBytes) std::string().swap(outgoing_replies_);
  if (error || closed_for_limit_) return;
  client_.info->output_bytes.store(static_cast<int64_t>(OutputBytes()), std::memory_order_relaxed);
  if (PublishMemory()) return;
  if (client_.close_after_reply) {
    asio::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    return;
  }
  if (client_.hand_over_to_feeds) return HandOver();
  if (!replies_.empty() || !pushes_.empty()) return Write();
  // Commands already read run before anything more is read; without them,
  // a read is outstanding (this was a write of pushes).
  if (process_after_write_) {
    process_after_write_ = false;
    Process();
  }
}

}  // namespace teksdb::server
