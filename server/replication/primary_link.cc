// PrimaryLink (primary_link.h).
#include "primary_link.h"

#define XXH_INLINE_ALL
#include <unistd.h>
#include <xxhash.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <vector>

#include "link_frames.h"
#include "monotonic_clock.h"
#include "strict_integer.h"
#include "sync_files.h"
#include "wal_applier.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr int kConnectTimeoutMs = 5000;
constexpr int kReplyTimeoutMs = 60000;  // a PSYNC may wait for a checkpoint
constexpr int64_t kAckEveryMs = 1000;
constexpr int kRetryPauseMs = 1000;

// A file being received: where it is written and its checksum so far.
struct IncomingFile {
  std::string name;
  std::FILE* file = nullptr;
  uint64_t size = 0;
  XXH64_state_t state;
};

}  // namespace

PrimaryLink::PrimaryLink(ROCKSDB_NAMESPACE::DB* db, HistoryKeeper* history, Options options,
                         std::function<void()> on_copy_ready,
                         std::function<void(const std::string&)> on_applied)
    : db_(db),
      history_(history),
      options_(std::move(options)),
      on_copy_ready_(std::move(on_copy_ready)),
      on_applied_(std::move(on_applied)) {
  info_.down_since_ms = MonotonicMs();
  thread_ = std::thread([this] { Run(); });
}

PrimaryLink::~PrimaryLink() {
  Stop();
  thread_.join();
}

void PrimaryLink::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  if (link_ != nullptr) link_->Shutdown();
  stop_cv_.notify_all();
}

PrimaryLink::Info PrimaryLink::info() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_;
}

void PrimaryLink::SetError(const std::string& error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error == info_.last_error) return;  // logged once while it lasts
  info_.last_error = error;
  std::fprintf(stderr, "teksdb-server: replication: %s\n", error.c_str());
}

void PrimaryLink::Pause(int ms) {
  std::unique_lock<std::mutex> lock(mu_);
  stop_cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stop_; });
}

void PrimaryLink::Run() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    if (Session()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (info_.up) info_.down_since_ms = MonotonicMs();
      info_.up = false;
      info_.syncing = false;
    }
    Pause(kRetryPauseMs);
  }
}

bool PrimaryLink::Session() {
  const ReplicationHistory history = history_->Get();
  if (!history.replica()) return true;
  auto link = std::make_unique<LinkSocket>();
  Status s = link->Connect(history.primary_host, history.primary_port, kConnectTimeoutMs,
                           options_.bind_source_addr);
  if (!s.ok()) {
    SetError("cannot reach the primary: " + s.ToString());
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return true;
    link_ = link.get();
  }
  std::string reply;
  bool ready = false;
  s = Handshake(link.get(), &reply);
  if (s.ok()) {
    std::istringstream words(reply);
    std::string word, replid, sequence_text;
    words >> word >> replid >> sequence_text;
    int64_t sequence = 0;
    if (word == "+CONTINUE" && replid.size() == 40) {
      s = history_->Update([&](ReplicationHistory* h) { h->replid = replid; });
      if (s.ok()) s = Stream(link.get());
    } else if (word == "+FULLRESYNC" && replid.size() == 40 &&
               ParseStrictInt64(sequence_text, &sequence) && sequence >= 0) {
      s = ReceiveCopy(link.get(), replid, static_cast<uint64_t>(sequence), &ready);
    } else {
      s = Status::Aborted("the primary answered PSYNC with '" + reply.substr(0, 200) + "'");
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    link_ = nullptr;
    if (stop_) return true;
  }
  if (ready) {
    on_copy_ready_();
    return true;
  }
  if (!s.ok()) SetError(s.ToString());
  return false;
}

Status PrimaryLink::Handshake(LinkSocket* link, std::string* reply) {
  // Each step's reply must start with `expected`.
  auto step = [&](const std::string& command, const char* expected,
                  const std::string& refusal) -> Status {
    Status s = link->WriteAll(command, kConnectTimeoutMs);
    if (s.ok()) s = link->ReadLine(reply, kReplyTimeoutMs);
    if (!s.ok()) return s;
    if (reply->rfind(expected, 0) != 0) return Status::Aborted(refusal + " (" + reply->substr(0, 200) + ")");
    return Status::OK();
  };
  Status s;
  if (const std::string auth = options_.auth.Frame(); !auth.empty()) {
    s = step(auth, "+OK", "Unable to AUTH to MASTER: the primary refused masteruser and masterauth");
    if (!s.ok()) return s;
  }
  s = step(link_frames::Frame({"PING"}), "+PONG", "the primary refused PING (does it need masterauth?)");
  if (s.ok()) {
    s = step(link_frames::Frame({"REPLCONF", "listening-port", std::to_string(options_.listening_port)}), "+OK",
             "the primary refused REPLCONF");
  }
  if (s.ok()) {
    s = step(link_frames::Frame({"REPLCONF", "teksdb-format", options_.format}), "+OK",
             "the primary is not a teksdb-server speaking WAL shipping, or its data is in another "
             "format");
  }
  if (s.ok()) {
    s = step(link_frames::Frame({"REPLCONF", "teksdb-runid", options_.run_id}), "+OK",
             "the primary refused this replica");
  }
  if (s.ok() && options_.sync_writes) {  // (a capability: a primary may ignore it)
    s = step(link_frames::Frame({"REPLCONF", "capa", "teksdb-acks-on-disk"}), "+OK",
             "the primary refused REPLCONF capa");
  }
  if (!s.ok()) return s;
  // The files of a sync cut off before, that the primary need not send again.
  std::map<std::string, sync_files::FileSum> held;
  s = sync_files::SumAll(options_.sync_dir, &held);
  if (!s.ok()) return s;
  std::string listed;  // one "name size checksum" line per file
  for (const auto& [name, sum] : held) {
    listed += name + " " + std::to_string(sum.size) + " " + link_frames::ChecksumText(sum.checksum) + "\n";
  }
  s = step(link_frames::Frame({"REPLCONF", "teksdb-held", listed}), "+OK",
           "the primary refused REPLCONF teksdb-held");
  if (!s.ok()) return s;
  const ReplicationHistory history = history_->Get();
  const uint64_t latest = db_->GetLatestSequenceNumber();
  // Nothing written since this history began (a primary restarted, or
  // promoted, then made a replica at once): the data is exactly the
  // history before it, up to replid2_end, which its new primary may share.
  const bool nothing_since = history.replid2 != ReplicationHistory::kNoId &&
                             latest == history.replid2_end;
  s = link->WriteAll(link_frames::Frame({"PSYNC", nothing_since ? history.replid2 : history.replid,
                                         std::to_string(latest + 1)}),
                     kConnectTimeoutMs);
  if (s.ok()) s = link->ReadLine(reply, kReplyTimeoutMs);
  return s;
}

Status PrimaryLink::Stream(LinkSocket* link) {
  WalApplier applier(db_, options_.sync_writes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    info_.up = true;
    info_.synced_once = true;
    info_.last_io_ms = MonotonicMs();
    info_.last_error.clear();
  }
  uint64_t acked = 0;
  int64_t last_ack_ms = 0;
  int wait_ms = 0;
  std::vector<std::string> frame;
  for (;;) {
    Status s = link->ReadFrame(&frame, wait_ms);
    const int64_t now = MonotonicMs();
    if (s.IsTimedOut()) {
      const uint64_t applied = applier.applied();
      if (applied != acked || now - last_ack_ms >= kAckEveryMs) {
        s = link->WriteAll(link_frames::Frame({"REPLCONF", "ACK", std::to_string(applied)}), kConnectTimeoutMs);
        if (!s.ok()) return s;
        acked = applied;
        last_ack_ms = now;
      }
      if (now - info().last_io_ms > options_.timeout_ms) {
        return Status::TimedOut("the primary sent nothing for " + std::to_string(options_.timeout_ms) + " ms");
      }
      wait_ms = 100;
      continue;
    }
    if (!s.ok()) return s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      info_.last_io_ms = now;
    }
    wait_ms = 0;
    int64_t sequence = 0;
    if (frame.size() == 3 && frame[0] == "BATCH" && ParseStrictInt64(frame[1], &sequence) && sequence > 0) {
      const ShippedBatch batch{static_cast<uint64_t>(sequence), std::move(frame[2])};
      s = applier.Apply(batch);
      if (s.ok() && on_applied_) on_applied_(batch.data);
      if (s.IsIncomplete()) {
        // The replica's sequence is not where its primary's stream is: a
        // write of its own got in. Its copy is no longer the primary's
        // history: the next PSYNC asks for a full sync.
        history_->Update([](ReplicationHistory* h) { h->replid = ReplicationHistory::kNoId; });
      }
      if (!s.ok()) return s;
    } else if (!(frame.size() == 1 && frame[0] == "PING")) {
      return Status::Aborted("the primary sent '" + frame[0].substr(0, 200) + "'");
    }
  }
}

Status PrimaryLink::ReceiveCopy(LinkSocket* link, const std::string& replid, uint64_t sequence,
                                bool* ready) {
  std::error_code error;
  std::filesystem::create_directories(options_.sync_dir, error);
  if (error) return Status::IOError("cannot create " + options_.sync_dir, error.message());
  std::map<std::string, sync_files::FileSum> held;
  Status s = sync_files::SumAll(options_.sync_dir, &held);
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(mu_);
    info_.syncing = true;
    info_.sync_bytes = 0;
    info_.last_io_ms = MonotonicMs();
  }
  std::set<std::string> in_copy;
  IncomingFile incoming;
  auto close_incoming = [&] {
    if (incoming.file != nullptr) std::fclose(incoming.file);
    incoming.file = nullptr;
    incoming.name.clear();
  };
  std::vector<std::string> frame;
  for (;;) {
    s = link->ReadFrame(&frame, static_cast<int>(options_.timeout_ms));
    if (!s.ok()) break;
    {
      std::lock_guard<std::mutex> lock(mu_);
      info_.last_io_ms = MonotonicMs();
    }
    int64_t number = 0;
    if (frame.size() == 4 && frame[0] == "CHUNK" && sync_files::PlainName(frame[1]) &&
        ParseStrictInt64(frame[2], &number) && number >= 0) {
      if (incoming.name != frame[1]) {
        close_incoming();
        if (number != 0) {
          s = Status::Corruption("a chunk of " + frame[1] + " at " + frame[2] + " first");
          break;
        }
        incoming.name = frame[1];
        incoming.size = 0;
        XXH64_reset(&incoming.state, 0);
        incoming.file = std::fopen((options_.sync_dir + "/" + frame[1]).c_str(), "wb");
        if (incoming.file == nullptr) {
          s = Status::IOError("cannot write " + options_.sync_dir + "/" + frame[1]);
          break;
        }
      }
      if (static_cast<uint64_t>(number) != incoming.size) {
        s = Status::Corruption("a chunk of " + frame[1] + " at " + frame[2] + ", expected at " +
                               std::to_string(incoming.size));
        break;
      }
      if (std::fwrite(frame[3].data(), 1, frame[3].size(), incoming.file) != frame[3].size()) {
        s = Status::IOError("cannot write " + frame[1]);
        break;
      }
      XXH64_update(&incoming.state, frame[3].data(), frame[3].size());
      incoming.size += frame[3].size();
      std::lock_guard<std::mutex> lock(mu_);
      info_.sync_bytes += frame[3].size();
    } else if (frame.size() == 4 && frame[0] == "FILEEND" && sync_files::PlainName(frame[1]) &&
               ParseStrictInt64(frame[2], &number) && number >= 0) {
      sync_files::FileSum sum;
      if (incoming.name == frame[1]) {
        const bool flushed = std::fflush(incoming.file) == 0 && ::fsync(fileno(incoming.file)) == 0;
        sum = sync_files::FileSum{incoming.size, XXH64_digest(&incoming.state)};
        close_incoming();
        if (!flushed) {
          s = Status::IOError("cannot write " + frame[1]);
          break;
        }
      } else if (number == 0) {
        // An empty file sends no chunk.
        std::FILE* empty = std::fopen((options_.sync_dir + "/" + frame[1]).c_str(), "wb");
        if (empty == nullptr) {
          s = Status::IOError("cannot write " + frame[1]);
          break;
        }
        std::fclose(empty);
        sum = sync_files::FileSum{0, XXH64(nullptr, 0, 0)};
      } else {
        const auto found = held.find(frame[1]);
        if (found != held.end()) sum = found->second;
      }
      if (sum.size != static_cast<uint64_t>(number) || link_frames::ChecksumText(sum.checksum) != frame[3]) {
        s = Status::Corruption("the copy of " + frame[1] + " does not match the primary's (size " +
                               std::to_string(sum.size) + ", checksum " +
                               link_frames::ChecksumText(sum.checksum) + ")");
        std::filesystem::remove(options_.sync_dir + "/" + frame[1], error);
        break;
      }
      in_copy.insert(frame[1]);
    } else if (frame.size() == 2 && frame[0] == "SYNCEND" && frame[1] == std::to_string(sequence)) {
      break;
    } else {
      s = Status::Aborted("the primary sent '" + frame[0].substr(0, 200) + "' during a full sync");
      break;
    }
  }
  close_incoming();
  if (!s.ok()) return s;
  // Whole: files of older syncs go, and the copy carries its history.
  for (const auto& entry : std::filesystem::directory_iterator(options_.sync_dir, error)) {
    if (in_copy.count(entry.path().filename().string()) == 0) std::filesystem::remove_all(entry.path(), error);
  }
  // The copy is history `replid` up to `sequence`, and nothing else: what
  // this server's data was before (replid2) no longer holds.
  ReplicationHistory copied = history_->Get();
  copied.replid = replid;
  copied.replid2 = ReplicationHistory::kNoId;
  copied.replid2_end = 0;
  s = copied.Save(options_.sync_dir);
  if (!s.ok()) return s;
  std::fprintf(stderr, "teksdb-server: replication: full sync of %zu files received, at sequence %llu\n",
               in_copy.size(), static_cast<unsigned long long>(sequence));
  *ready = true;
  return Status::OK();
}

}  // namespace teksdb::server
