// Replication (replication.h).
#include "replication.h"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "sync_files.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;
namespace fs = std::filesystem;

Replication::Replication(ROCKSDB_NAMESPACE::DB* db, Options options, Hooks hooks)
    : db_(db), options_(std::move(options)), hooks_(std::move(hooks)), auth_(options_.auth) {}

Replication::~Replication() {
  switchover_.reset();
  {
    std::lock_guard<std::mutex> lock(role_mu_);
    StopLinkLocked();
  }
  feeds_.reset();
}

Status Replication::Start() {
  ReplicationHistory history;
  Status s = ReplicationHistory::Load(options_.dir, &history);
  if (!s.ok() && !s.IsNotFound()) return s;
  history_ = std::make_unique<HistoryKeeper>(options_.dir, history);
  if (!history.replica()) {
    s = history_->Update([&](ReplicationHistory* h) { h->StartNew(db_->GetLatestSequenceNumber()); });
    if (!s.ok()) return s;
  }
  ReplicaFeeds::Options feed_options;
  feed_options.format = options_.format;
  feed_options.checkpoint_dir = options_.dir + ".checkpoints";
  feed_options.timeout_ms = options_.timeout_ms;
  feed_options.max_bytes_per_second = options_.max_bytes_per_second;
  feeds_ = std::make_unique<ReplicaFeeds>(db_, history_.get(), feed_options, hooks_.progress);
  switchover_ = std::make_unique<Switchover>(
      db_, feeds_.get(),
      [this](const std::string& host, int port) {
        bool already = false;
        return Follow(host, port, &already).ok();
      },
      hooks_.hold_writers);
  sync_files::RemoveTree(feed_options.checkpoint_dir);  // a crash's leftovers
  std::lock_guard<std::mutex> lock(role_mu_);
  replica_ = history.replica();
  if (replica_) StartLinkLocked();
  if (hooks_.role_changed) hooks_.role_changed(replica_);
  return Status::OK();
}

void Replication::StartLinkLocked() {
  PrimaryLink::Options link_options;
  link_options.format = options_.format;
  link_options.run_id = options_.run_id;
  link_options.listening_port = options_.listening_port;
  link_options.sync_dir = SyncDir(options_.dir);
  link_options.auth = auth_;
  link_options.bind_source_addr = bind_source_addr_;
  link_options.sync_writes = options_.sync_writes;
  link_options.timeout_ms = options_.timeout_ms;
  link_ = std::make_unique<PrimaryLink>(db_, history_.get(), link_options, hooks_.copy_ready,
                                       hooks_.applied);
}

void Replication::StopLinkLocked() {
  if (link_ == nullptr) return;
  link_->Stop();
  link_.reset();
}

Status Replication::Follow(const std::string& host, int port, bool* already) {
  std::lock_guard<std::mutex> lock(role_mu_);
  const ReplicationHistory now = history_->Get();
  *already = now.replica() && now.primary_host == host && now.primary_port == port;
  if (*already) return Status::OK();
  Status s = history_->Update([&](ReplicationHistory* h) {
    h->primary_host = host;
    h->primary_port = port;
  });
  if (!s.ok()) return s;
  StopLinkLocked();
  const bool was_replica = replica_.exchange(true);
  // Replicas of this server follow it to its new primary's history.
  feeds_->DisconnectAll();
  if (!was_replica && hooks_.role_changed) hooks_.role_changed(true);
  StartLinkLocked();
  return Status::OK();
}

Status Replication::Promote() {
  std::lock_guard<std::mutex> lock(role_mu_);
  if (!replica_) return Status::OK();
  StopLinkLocked();  // no batch lands after the history starts anew
  Status s = history_->Update([&](ReplicationHistory* h) {
    h->primary_host.clear();
    h->primary_port = 0;
    h->StartNew(db_->GetLatestSequenceNumber());
  });
  if (!s.ok()) {
    StartLinkLocked();
    return s;
  }
  replica_ = false;
  feeds_->DisconnectAll();  // sub-replicas come back to the new history
  if (hooks_.role_changed) hooks_.role_changed(false);
  return Status::OK();
}

PrimaryLink::Info Replication::link_info() const {
  std::lock_guard<std::mutex> lock(role_mu_);
  return link_ != nullptr ? link_->info() : PrimaryLink::Info{};
}

bool Replication::promotable() const {
  const PrimaryLink::Info info = link_info();
  return info.synced_once && !info.syncing;
}

void Replication::set_masterauth(const std::string& password) {
  std::lock_guard<std::mutex> lock(role_mu_);
  auth_.password = password;
  RestartLinkLocked();
}

void Replication::set_masteruser(const std::string& user) {
  std::lock_guard<std::mutex> lock(role_mu_);
  auth_.user = user;
  RestartLinkLocked();
}

void Replication::RestartLinkLocked() {
  if (link_ == nullptr) return;  // the next connection uses the new login
  StopLinkLocked();
  StartLinkLocked();
}

PrimaryAuth Replication::auth() const {
  std::lock_guard<std::mutex> lock(role_mu_);
  return auth_;
}

void Replication::set_bind_source_addr(const std::string& address) {
  std::lock_guard<std::mutex> lock(role_mu_);
  bind_source_addr_ = address;
  if (link_ != nullptr) {  // the next connection leaves from it
    StopLinkLocked();
    StartLinkLocked();
  }
}

std::string Replication::bind_source_addr() const {
  std::lock_guard<std::mutex> lock(role_mu_);
  return bind_source_addr_;
}

bool Replication::EnoughReplicas() const {
  const int needed = settings_.min_replicas_to_write.load();
  return needed <= 0 || replica() ||
         feeds_->CountInReach(settings_.min_replicas_max_lag.load()) >= needed;
}

Status Replication::SwapInCopy(const std::string& dir) {
  const std::string old = dir + ".old";
  Status s = sync_files::RemoveTree(old);
  if (!s.ok()) return s;
  std::error_code error;
  fs::rename(dir, old, error);
  if (error) return Status::IOError("cannot move " + dir + " aside", error.message());
  fs::rename(SyncDir(dir), dir, error);
  if (error) {
    fs::rename(old, dir, error);
    return Status::IOError("cannot move the copy into " + dir, error.message());
  }
  return sync_files::RemoveTree(old);
}

Status Replication::FinishCutOffSwap(const std::string& dir) {
  const std::string old = dir + ".old";
  std::error_code error;
  if (!fs::exists(old, error)) return Status::OK();
  if (!fs::exists(dir, error)) {  // cut off between the two renames: the old data back
    fs::rename(old, dir, error);
    if (error) return Status::IOError("cannot put " + old + " back", error.message());
    return Status::OK();
  }
  return sync_files::RemoveTree(old);
}

}  // namespace teksdb::server
