// ReplicaFeeds (replica_feeds.h).
#include "replica_feeds.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "link_frames.h"
#include "monotonic_clock.h"
#include "rocksdb/utilities/checkpoint.h"
#include "strict_integer.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

namespace {

constexpr size_t kBurstBytes = 256 * 1024;  // batches per write to the link
constexpr size_t kChunkBytes = 1 << 20;     // a CHUNK frame's bytes at most
constexpr int64_t kPingMs = 1000;
constexpr int kWriteTimeoutMs = 10000;
constexpr int kBurstPauseUs = 500;

}  // namespace

bool PsyncRequest::ParseHeld(const std::string& listed) {
  std::istringstream lines(listed);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string name, size_text, checksum_text, extra;
    words >> name >> size_text >> checksum_text;
    int64_t size = 0;
    if (!sync_files::PlainName(name) || !ParseStrictInt64(size_text, &size) || size < 0 ||
        checksum_text.size() != 16 || (words >> extra)) {
      return false;
    }
    char* end = nullptr;
    const uint64_t checksum = std::strtoull(checksum_text.c_str(), &end, 16);
    if (end != checksum_text.c_str() + 16) return false;
    held[name] = sync_files::FileSum{static_cast<uint64_t>(size), checksum};
  }
  return true;
}

ReplicaFeeds::ReplicaFeeds(ROCKSDB_NAMESPACE::DB* db, HistoryKeeper* history, Options options,
                           std::function<void()> on_ack)
    : db_(db),
      history_(history),
      options_(std::move(options)),
      on_ack_(std::move(on_ack)),
      max_bytes_per_second_(options_.max_bytes_per_second) {}

ReplicaFeeds::~ReplicaFeeds() {
  std::list<std::unique_ptr<Feed>> feeds;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    for (auto& feed : feeds_) feed->socket->Shutdown();
    feeds.swap(feeds_);
  }
  for (auto& feed : feeds) feed->thread.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < holds_.size(); ++i) db_->EnableFileDeletions(false);
  holds_.clear();
}

void ReplicaFeeds::Serve(std::unique_ptr<LinkSocket> socket, PsyncRequest request) {
  ReleaseHolds(nullptr, 0);  // those whose time is up
  std::lock_guard<std::mutex> lock(mu_);
  ReapLocked();
  if (stopping_) return;
  auto feed = std::make_unique<Feed>();
  feed->id = ++next_id_;
  feed->ip = socket->PeerAddress();
  feed->port = request.listening_port;
  feed->acks_on_disk = request.acks_on_disk;
  feed->socket = std::move(socket);
  feed->last_ack_ms = MonotonicMs();
  Feed* raw = feed.get();
  feeds_.push_back(std::move(feed));
  raw->thread = std::thread([this, raw, request = std::move(request)]() mutable {
    Run(raw, std::move(request));
    raw->socket->Shutdown();
    raw->done = true;
  });
}

size_t ReplicaFeeds::Count() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t live = 0;
  for (const auto& feed : feeds_) live += feed->done ? 0 : 1;
  return live;
}

void ReplicaFeeds::ReapLocked() {
  for (auto it = feeds_.begin(); it != feeds_.end();) {
    if ((*it)->done) {
      (*it)->thread.join();
      it = feeds_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<ReplicaFeeds::ReplicaInfo> ReplicaFeeds::Replicas() const {
  static const char* const kStates[] = {"wait_bgsave", "send_bulk", "online"};
  std::vector<ReplicaInfo> infos;
  const int64_t now = MonotonicMs();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& feed : feeds_) {
    if (feed->done) continue;
    infos.push_back(ReplicaInfo{feed->id, feed->ip, feed->port, kStates[feed->state.load()],
                                feed->acked.load(), (now - feed->last_ack_ms.load()) / 1000});
  }
  return infos;
}

int ReplicaFeeds::CountAcked(uint64_t sequence, bool on_disk) const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(std::count_if(feeds_.begin(), feeds_.end(), [&](const auto& feed) {
    return !feed->done && feed->state == 2 && (!on_disk || feed->acks_on_disk) &&
           feed->acked >= sequence;
  }));
}

int ReplicaFeeds::CountInReach(int64_t max_lag_s) const {
  const int64_t now = MonotonicMs();
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(std::count_if(feeds_.begin(), feeds_.end(), [&](const auto& feed) {
    return !feed->done && feed->state == 2 && (now - feed->last_ack_ms) / 1000 <= max_lag_s;
  }));
}

void ReplicaFeeds::DisconnectAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& feed : feeds_) feed->socket->Shutdown();
}

void ReplicaFeeds::ReleaseHolds(const Feed* feed, uint64_t acked) {
  const int64_t now = MonotonicMs();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = holds_.begin(); it != holds_.end();) {
    const bool its_replica = feed != nullptr && feed->ip == it->ip && feed->port == it->port;
    if ((its_replica && acked >= it->sequence) || now >= it->deadline_ms) {
      db_->EnableFileDeletions(false);
      it = holds_.erase(it);
    } else {
      ++it;
    }
  }
}

void ReplicaFeeds::Run(Feed* feed, PsyncRequest request) {
  LinkSocket& link = *feed->socket;
  if (request.format != options_.format) {
    link.WriteAll("-ERR this primary's data is in format '" + options_.format +
                      "'; the replica reads '" + request.format + "'\r\n",
                  kWriteTimeoutMs);
    return;
  }
  const ReplicationHistory history = history_->Get();
  const uint64_t latest = db_->GetLatestSequenceNumber();
  WalReader reader(db_, request.next);
  std::vector<ShippedBatch> batches;
  bool resume = request.next > 0 && history.MayContinue(request.replid, request.next - 1, latest);
  if (resume) {
    Status s = reader.Read(kBurstBytes, &batches);
    if (!s.ok() && !s.IsIncomplete()) {
      link.WriteAll("-ERR " + s.ToString() + "\r\n", kWriteTimeoutMs);
      return;
    }
    resume = s.ok();  // Incomplete: the WAL no longer holds it, a full sync
  }
  const std::string who = feed->ip + ":" + std::to_string(feed->port);
  if (resume) {
    std::fprintf(stderr, "teksdb-server: replica %s continues history %s from sequence %llu\n",
                 who.c_str(), request.replid.c_str(), static_cast<unsigned long long>(request.next));
  } else {
    std::fprintf(stderr,
                 "teksdb-server: full sync for replica %s: it asked for history %s from sequence "
                 "%llu; here history %s to %llu, and %s up to %llu%s\n",
                 who.c_str(), request.replid.c_str(), static_cast<unsigned long long>(request.next),
                 history.replid.c_str(), static_cast<unsigned long long>(latest), history.replid2.c_str(),
                 static_cast<unsigned long long>(history.replid2_end),
                 history.MayContinue(request.replid, request.next - 1, latest)
                     ? " (the WAL no longer holds it)"
                     : "");
  }
  if (!resume) {
    Status s = FullSync(feed, request);
    if (!s.ok()) link.WriteAll("-ERR full sync: " + s.ToString() + "\r\n", kWriteTimeoutMs);
    return;  // the replica swaps its copy in, then comes back to continue
  }
  if (!link.WriteAll("+CONTINUE " + history.replid + "\r\n", kWriteTimeoutMs).ok()) return;
  feed->state = 2;
  feed->acked = request.next - 1;
  Stream(feed, &reader, std::move(batches));
}

Status ReplicaFeeds::FullSync(Feed* feed, const PsyncRequest& request) {
  const std::string dir = options_.checkpoint_dir + "/feed-" + std::to_string(feed->id);
  Status s = sync_files::RemoveTree(dir);
  if (!s.ok()) return s;
  std::error_code error;
  std::filesystem::create_directories(options_.checkpoint_dir, error);
  if (error) return Status::IOError("cannot create " + options_.checkpoint_dir, error.message());
  // Deletions stop before the checkpoint: its sequence's WAL stays.
  s = db_->DisableFileDeletions();
  if (!s.ok()) return s;
  ROCKSDB_NAMESPACE::Checkpoint* raw = nullptr;
  s = ROCKSDB_NAMESPACE::Checkpoint::Create(db_, &raw);
  std::unique_ptr<ROCKSDB_NAMESPACE::Checkpoint> checkpoint(raw);
  uint64_t sequence = 0;
  if (s.ok()) s = checkpoint->CreateCheckpoint(dir, 0, &sequence);
  if (!s.ok()) {
    db_->EnableFileDeletions(false);
    sync_files::RemoveTree(dir);
    return s;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    holds_.push_back(Hold{sequence, MonotonicMs() + options_.sync_retention_ms, feed->ip, feed->port});
  }
  const std::string replid = history_->Get().replid;
  s = feed->socket->WriteAll("+FULLRESYNC " + replid + " " + std::to_string(sequence) + "\r\n",
                             kWriteTimeoutMs);
  feed->state = 1;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  uint64_t sent = 0;
  const int64_t started_ms = MonotonicMs();
  for (const std::string& name : names) {
    if (!s.ok()) break;
    const auto held = request.held.find(name);
    s = SendFile(feed, dir, name, held == request.held.end() ? nullptr : &held->second, &sent,
                 started_ms);
  }
  if (s.ok()) {
    s = feed->socket->WriteAll(link_frames::Frame({"SYNCEND", std::to_string(sequence)}),
                               kWriteTimeoutMs);
  }
  sync_files::RemoveTree(dir);
  // Wait for the replica to close the link (it swaps the copy in).
  std::vector<std::string> frame;
  while (s.ok()) s = feed->socket->ReadFrame(&frame, static_cast<int>(options_.timeout_ms));
  return Status::OK();
}

Status ReplicaFeeds::SendFile(Feed* feed, const std::string& dir, const std::string& name,
                              const sync_files::FileSum* held, uint64_t* sent_bytes,
                              int64_t started_ms) {
  const std::string path = dir + "/" + name;
  sync_files::FileSum sum;
  if (held != nullptr) {
    Status s = sync_files::Sum(path, &sum);
    if (!s.ok()) return s;
    if (sum == *held) {  // the replica has it whole: only its end
      return feed->socket->WriteAll(
          link_frames::Frame({"FILEEND", name, std::to_string(sum.size),
                              link_frames::ChecksumText(sum.checksum)}),
          kWriteTimeoutMs);
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read " + path);
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  std::string chunk(kChunkBytes, '\0');
  uint64_t offset = 0;
  for (;;) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const size_t n = static_cast<size_t>(in.gcount());
    if (n == 0) break;
    XXH64_update(&state, chunk.data(), n);
    Status s = feed->socket->WriteAll(
        link_frames::Frame({"CHUNK", name, std::to_string(offset), std::string_view(chunk.data(), n)}),
        kWriteTimeoutMs);
    if (!s.ok()) return s;
    offset += n;
    *sent_bytes += n;
    // At most max_bytes_per_second on average since the sync began.
    const int64_t rate = max_bytes_per_second_.load();
    if (rate > 0) {
      const int64_t due_ms = static_cast<int64_t>(*sent_bytes * 1000 / static_cast<uint64_t>(rate));
      const int64_t ahead_ms = due_ms - (MonotonicMs() - started_ms);
      if (ahead_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ahead_ms));
    }
  }
  if (in.bad()) return Status::IOError("cannot read " + path);
  return feed->socket->WriteAll(
      link_frames::Frame({"FILEEND", name, std::to_string(offset),
                          link_frames::ChecksumText(XXH64_digest(&state))}),
      kWriteTimeoutMs);
}

Status ReplicaFeeds::Stream(Feed* feed, WalReader* reader, std::vector<ShippedBatch> batches) {
  LinkSocket& link = *feed->socket;
  int64_t last_write_ms = MonotonicMs();
  std::string out;
  for (;;) {
    if (batches.empty()) {
      Status s = reader->Read(kBurstBytes, &batches);
      if (s.IsIncomplete()) {  // purged while the replica lagged: it must resync
        link.WriteAll("-ERR the replica fell behind the WAL's retention: " + s.ToString() + "\r\n",
                      kWriteTimeoutMs);
        return s;
      }
      if (!s.ok()) return s;
    }
    out.clear();
    for (const ShippedBatch& batch : batches) {
      out += link_frames::Frame({"BATCH", std::to_string(batch.sequence), batch.data});
    }
    const bool sent = !batches.empty();
    batches.clear();
    const int64_t now = MonotonicMs();
    if (!sent && now - last_write_ms >= kPingMs) {
      out = link_frames::Frame({"PING"});
      ReleaseHolds(nullptr, 0);  // those whose time is up
    }
    if (!out.empty()) {
      Status s = link.WriteAll(out, kWriteTimeoutMs);
      if (!s.ok()) return s;
      last_write_ms = now;
    }
    // Paced: after a burst, the writes of the next kBurstPauseUs go out
    // together (a syscall or two a burst, not a batch); idle, the wait for
    // acknowledgements is the wait for new writes.
    if (sent) std::this_thread::sleep_for(std::chrono::microseconds(kBurstPauseUs));
    Status s = ReadAcks(feed, sent ? 0 : 1);
    if (!s.ok()) return s;
    if (MonotonicMs() - feed->last_ack_ms.load() > options_.timeout_ms) {
      return Status::TimedOut("the replica acknowledged nothing for " +
                              std::to_string(options_.timeout_ms) + " ms");
    }
  }
}

Status ReplicaFeeds::ReadAcks(Feed* feed, int wait_ms) {
  std::vector<std::string> frame;
  for (;;) {
    Status s = feed->socket->ReadFrame(&frame, wait_ms);
    if (s.IsTimedOut()) return Status::OK();
    if (!s.ok()) return s;
    int64_t acked = 0;
    if (frame.size() == 3 && frame[1] == "ACK" && ParseStrictInt64(frame[2], &acked) && acked >= 0) {
      feed->acked = static_cast<uint64_t>(acked);
      feed->last_ack_ms = MonotonicMs();
      ReleaseHolds(feed, static_cast<uint64_t>(acked));
      if (on_ack_) on_ack_();
    }
    wait_ms = 0;
  }
}

}  // namespace teksdb::server
