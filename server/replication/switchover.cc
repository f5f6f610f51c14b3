// Switchover (switchover.h).
#include "switchover.h"

#include <chrono>
#include <cstdio>

#include "link_frames.h"
#include "link_socket.h"
#include "monotonic_clock.h"

namespace teksdb::server {

namespace {

constexpr int kPollMs = 10;
constexpr int kConnectTimeoutMs = 5000;

// AUTH (when a password is set) and REPLICAOF NO ONE on `host`:`port`.
bool Promote(const std::string& host, int port, const PrimaryAuth& auth, std::string* error) {
  LinkSocket link;
  ROCKSDB_NAMESPACE::Status s = link.Connect(host, port, kConnectTimeoutMs);
  std::string reply;
  if (s.ok() && !auth.password.empty()) {
    s = link.WriteAll(auth.Frame(), kConnectTimeoutMs);
    if (s.ok()) s = link.ReadLine(&reply, kConnectTimeoutMs);
    if (s.ok() && reply != "+OK") s = ROCKSDB_NAMESPACE::Status::Aborted("AUTH: " + reply);
  }
  if (s.ok()) s = link.WriteAll(link_frames::Frame({"REPLICAOF", "NO", "ONE"}), kConnectTimeoutMs);
  if (s.ok()) s = link.ReadLine(&reply, kConnectTimeoutMs);
  if (s.ok() && reply != "+OK") s = ROCKSDB_NAMESPACE::Status::Aborted("REPLICAOF NO ONE: " + reply);
  if (!s.ok()) *error = s.ToString();
  return s.ok();
}

}  // namespace

Switchover::Switchover(ROCKSDB_NAMESPACE::DB* db, ReplicaFeeds* feeds,
                       std::function<bool(const std::string&, int)> follow,
                       std::function<void(bool)> hold_writers)
    : db_(db), feeds_(feeds), follow_(std::move(follow)), hold_writers_(std::move(hold_writers)) {}

Switchover::~Switchover() {
  Abort();
  if (thread_.joinable()) thread_.join();
}

bool Switchover::Start(Request request, const PrimaryAuth& auth, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_.load() != kNone) {
    *error = "ERR FAILOVER already in progress.";
    return false;
  }
  if (thread_.joinable()) thread_.join();  // the last one, finished
  abort_ = false;
  state_ = kWaitingForSync;
  if (hold_writers_) hold_writers_(true);
  std::fprintf(stderr, "teksdb-server: FAILOVER requested to %s\n",
               request.host.empty() ? "any replica"
                                    : (request.host + ":" + std::to_string(request.port)).c_str());
  thread_ = std::thread([this, request = std::move(request), auth] { Run(request, auth); });
  return true;
}

bool Switchover::Abort() {
  std::lock_guard<std::mutex> lock(mu_);
  if (state_.load() != kWaitingForSync) return false;
  abort_ = true;
  cv_.notify_all();
  return true;
}

const char* Switchover::state_name() const {
  switch (state_.load()) {
    case kWaitingForSync: return "waiting-for-sync";
    case kInProgress: return "failover-in-progress";
    default: return "no-failover";
  }
}

bool Switchover::FindInSync(const Request& request, std::string* host, int* port) const {
  const uint64_t latest = db_->GetLatestSequenceNumber();
  for (const ReplicaFeeds::ReplicaInfo& replica : feeds_->Replicas()) {
    if (replica.state != "online") continue;
    if (!request.host.empty() && (replica.ip != request.host || replica.port != request.port)) continue;
    if (replica.acked >= latest) {
      *host = replica.ip;
      *port = replica.port;
      return true;
    }
  }
  return false;
}

void Switchover::Finish() {
  state_ = kNone;
  if (hold_writers_) hold_writers_(false);
}

void Switchover::Run(Request request, PrimaryAuth auth) {
  const int64_t deadline = request.timeout_ms > 0 ? MonotonicMs() + request.timeout_ms : 0;
  std::string host;
  int port = 0;
  for (;;) {
    if (FindInSync(request, &host, &port)) break;
    std::unique_lock<std::mutex> lock(mu_);
    if (abort_) {
      std::fprintf(stderr, "teksdb-server: FAILOVER aborted\n");
      lock.unlock();
      return Finish();
    }
    if (deadline != 0 && MonotonicMs() >= deadline) {
      lock.unlock();
      if (!request.force) {
        std::fprintf(stderr, "teksdb-server: FAILOVER timed out with no replica in sync\n");
        return Finish();
      }
      host = request.host;  // FORCE: the target, in sync or not
      port = request.port;
      break;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(kPollMs));
  }
  state_ = kInProgress;
  std::string error;
  if (!Promote(host, port, auth, &error)) {
    std::fprintf(stderr, "teksdb-server: FAILOVER to %s:%d failed: %s\n", host.c_str(), port, error.c_str());
  } else if (!follow_(host, port)) {
    std::fprintf(stderr, "teksdb-server: FAILOVER: cannot follow %s:%d\n", host.c_str(), port);
  } else {
    std::fprintf(stderr, "teksdb-server: FAILOVER to %s:%d done\n", host.c_str(), port);
  }
  Finish();
}

}  // namespace teksdb::server
