// teksdb-server: a Redis-protocol server on TeksDB (the paper's Ardb role).
//
//   teksdb-server [CONFIG_FILE] --dir DIR [--port 6379] [--bind 127.0.0.1] [--threads N]
//                 [--memtable teks|skip_list] [--linker-nice 0-19] [--rocksdb-options FILE]
//                 [--requirepass PASSWORD] [--sync] [--block-cache-mb N]
//                 [--replicaof "HOST PORT"] [--masteruser USER] [--masterauth PASSWORD]
//                 [--repl-max-mbps N] [--repl-wal-retention-mb N] [--repl-wal-retention-s N]
//                 [--CONFIG-PARAMETER VALUE ...]
//
// The configuration file and the flags: server_flags.h. The process's file
// descriptors are shared between clients and RocksDB's table files
// (descriptor_budget.h); RocksDB's background errors are cleared by the
// server as their cause goes (storage_health.h, retryable_open_errors.h),
// and its info log is the server's (rocksdb_info_log.h).
//
// Storage is the TeksDB layer with TeksTable (the default), or plain RocksDB
// with its skip list (--memtable skip_list) for comparison; both encode keys
// the same way (keyspace.h). --rocksdb-options loads a RocksDB OPTIONS file
// (its DBOptions and default column family); the memtable flag still
// decides the memtable. Without an OPTIONS file the server runs RocksDB's
// defaults plus what a Redis-protocol server on RocksDB keeps its point
// reads off the disk with (as Apache Kvrocks does): a whole-key bloom
// filter of 10 bits per key in every table file, and a block cache of
// --block-cache-mb MiB (1024; filled only as blocks are read). --sync makes
// every write wait for the WAL on disk, so no acknowledged write is lost to
// a crash. Logs one line at start (address, memtable in use) and one at
// stop, on stderr; refuses to start, naming why, on bad flags, when the
// memtable asked for did not load, or when the database holds data of
// another format (storage_format.h). The server installs its own
// compaction filter (stale_member_filter.h); an OPTIONS file that names one
// is refused.
//
// Replication (replication/README.md): --replicaof starts as a replica of
// that primary (REPLICAOF does the same at run time; the role is kept in
// the data directory's REPLICATION file, so a restart keeps it). The WAL
// stays archived for replicas up to --repl-wal-retention-mb MiB (0: no
// bound by size) and --repl-wal-retention-s seconds, whichever ends first
// (RocksDB checks the size bound every 10 minutes, the time bound every
// half of it when there is no size bound); a replica further behind gets a
// full sync, at most --repl-max-mbps MiB/s (0: unlimited).
// A replica swaps a full sync's copy in by closing its database and
// opening the copy (Serve below runs again; clients reconnect).
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "acl_catalog.h"
#include "ascii_case.h"
#include "commands.h"
#include "compact_puts_merge.h"
#include "config_parameters.h"
#include "descriptor_budget.h"
#include "expiry_sweeper.h"
#include "function_store.h"
#include "keyspace.h"
#include "keyspace_events.h"
#include "replication.h"
#include "replication_id.h"
#include "retryable_open_errors.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "rocksdb_info_log.h"
#include "script_command_runner.h"
#include "script_engine.h"
#include "server.h"
#include "server_flags.h"
#include "stale_member_filter.h"
#include "storage_format.h"
#include "storage_health.h"
#include "strict_integer.h"
#include "teksdb/teks_db.h"
#include "teksdb/open_db.h"
#include "teksdb/teks_table.h"

namespace {

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "teksdb-server: %s\n", why.c_str());
  std::exit(1);
}

using Flags = teksdb::server::ServerFlags;

// The Env of every database the server opens (it outlives them all).
ROCKSDB_NAMESPACE::Env* FileSystemEnv() {
  static const std::shared_ptr<ROCKSDB_NAMESPACE::Env> env =
      teksdb::server::RetryableOpenErrors::NewEnv();
  return env.get();
}

ROCKSDB_NAMESPACE::Options MakeOptions(
    const Flags& f, const std::shared_ptr<teksdb::server::StaleMemberFilterFactory>& filter,
    const std::shared_ptr<teksdb::server::StorageHealth>& health,
    teksdb::server::DescriptorBudget* descriptors) {
  ROCKSDB_NAMESPACE::Options options;
  if (!f.rocksdb_options.empty()) {
    ROCKSDB_NAMESPACE::ConfigOptions config;
    config.ignore_unknown_options = false;
    ROCKSDB_NAMESPACE::DBOptions db_options;
    std::vector<ROCKSDB_NAMESPACE::ColumnFamilyDescriptor> families;
    const auto s = ROCKSDB_NAMESPACE::LoadOptionsFromFile(config, f.rocksdb_options, &db_options,
                                                          &families);
    if (!s.ok()) Fail("--rocksdb-options " + f.rocksdb_options + ": " + s.ToString());
    ROCKSDB_NAMESPACE::ColumnFamilyOptions cf_options;
    for (const auto& family : families) {
      if (family.name == ROCKSDB_NAMESPACE::kDefaultColumnFamilyName) cf_options = family.options;
    }
    options = ROCKSDB_NAMESPACE::Options(db_options, cf_options);
    if (options.compaction_filter != nullptr || options.compaction_filter_factory != nullptr) {
      Fail("--rocksdb-options " + f.rocksdb_options +
           ": names a compaction filter; teksdb-server sets its own (stale member removal)");
    }
    if (options.merge_operator != nullptr) {
      Fail("--rocksdb-options " + f.rocksdb_options +
           ": names a merge operator; teksdb-server sets its own (compact collections' puts)");
    }
  } else {
    ROCKSDB_NAMESPACE::BlockBasedTableOptions table;
    table.block_cache = ROCKSDB_NAMESPACE::NewLRUCache(static_cast<size_t>(f.block_cache_mb) << 20);
    table.filter_policy.reset(ROCKSDB_NAMESPACE::NewBloomFilterPolicy(10));
    options.table_factory.reset(ROCKSDB_NAMESPACE::NewBlockBasedTableFactory(table));
  }
  options.create_if_missing = true;
  options.compaction_filter_factory = filter;
  // Replicas continue from the WAL: flushed WAL files stay in the archive
  // until both bounds pass (an OPTIONS file that sets them keeps its own).
  if (options.WAL_ttl_seconds == 0 && options.WAL_size_limit_MB == 0) {
    options.WAL_ttl_seconds = static_cast<uint64_t>(f.repl_wal_retention_s);
    options.WAL_size_limit_MB = static_cast<uint64_t>(f.repl_wal_retention_mb);
  }
  // Compact collections' member puts (compact_puts_merge.h), folded
  // into their records after kMaxSuccessiveMerges (an OPTIONS file may
  // set its own bound).
  options.merge_operator = teksdb::server::NewCompactPutsMerge();
  if (options.max_successive_merges == 0) {
    options.max_successive_merges = teksdb::server::kMaxSuccessiveMerges;
  }
  teksdb::TeksTableOptions teks;
  teks.linker_nice = static_cast<uint32_t>(f.linker_nice);
  options.memtable_factory = f.memtable == "teks"
                                 ? teksdb::NewTeksTableFactory(teks)
                                 : std::make_shared<ROCKSDB_NAMESPACE::SkipListFactory>();
  // A background error is cleared by the server, as soon as its cause
  // goes (storage_health.h); running out of descriptors is such a cause
  // (retryable_open_errors.h). An OPTIONS file's own Env is kept.
  options.listeners.push_back(health);
  options.max_bgerror_resume_count = 0;  // (the server's own retries, not RocksDB's 1 s ones)
  if (options.env == ROCKSDB_NAMESPACE::Env::Default()) options.env = FileSystemEnv();
  // The info log is the server's: RocksDB's aborts on a full disk
  // (rocksdb_info_log.h). An OPTIONS file's db_log_dir is kept.
  if (options.db_log_dir.empty()) {
    std::string error;
    options.info_log = teksdb::server::RocksDbInfoLog::Open(f.dir, &error);
    if (options.info_log == nullptr) Fail(error);
  }
  // Clients and table files share the descriptors (descriptor_budget.h).
  std::string error;
  if (!teksdb::server::DescriptorBudget::Plan(f.maxclients, options.max_open_files, descriptors,
                                              &error)) {
    Fail(error);
  }
  options.max_open_files = descriptors->rocksdb_open_files;
  return options;
}

// aclfile as opened: relative to dir (Redis reads it there, having moved
// into dir).
std::string AclFilePath(const Flags& flags) {
  if (flags.aclfile.empty() || flags.aclfile[0] == '/') return flags.aclfile;
  return (std::filesystem::path(flags.dir) / flags.aclfile).string();
}

// The ACL's users at start, as Redis loads them: acl-pubsub-default (users
// start with it) and requirepass (the default user's password) first, then
// the "user" lines, or the aclfile, which may give the default user other
// passwords (the parameters' setting later sets the same requirepass
// again: no change); an error stops the start.
void LoadUsersAtStart(const Flags& flags, teksdb::server::AclUsers* users) {
  for (const teksdb::server::ConfigDirective& d : flags.parameters) {
    if (d.name == "acl-pubsub-default") {
      users->set_all_channels_default(teksdb::server::AsciiLower(d.args.at(0)) == "allchannels");
    } else if (d.name == "requirepass" && d.args.size() == 1) {
      users->SetRequirePass(d.args[0]);
    }
  }
  if (!flags.aclfile.empty() && !flags.users.empty()) {
    Fail("Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
         "path is invalid. This setup is very likely to lead to configuration errors and "
         "security holes, please define either an ACL file or declare users directly in your "
         "redis.conf, but not both.");
  }
  if (const std::string error = users->LoadConfigured(flags.users); !error.empty()) {
    Fail(error + ". Critical error while loading ACLs. Exiting.");
  }
  if (flags.aclfile.empty()) return;
  std::ifstream file(AclFilePath(flags), std::ios::binary);
  if (!file) {
    Fail("Aborting Redis startup because of ACL errors: Error loading ACLs, opening file '" +
         flags.aclfile + "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  std::vector<std::string> replaced;
  if (const std::string errors = users->Load(text.str(), flags.aclfile, &replaced); !errors.empty()) {
    Fail("Aborting Redis startup because of ACL errors: " + errors);
  }
}

// How one life of the database ended: stopped (SHUTDOWN, a signal), or a
// full sync's copy waits to be swapped in.
enum class Ending { kStopped, kCopyReady };

// Opens the database, serves it, closes it; *exit_code for kStopped.
// `carried`: the CONFIG parameters as the last life of the database left
// them (a full sync's reopen keeps what CONFIG SET changed: a password,
// masterauth, ...), applied after the flags'; set again at the end.
Ending Serve(const Flags& flags, const std::string& run_id, teksdb::server::AclUsers& acl_users,
             int* exit_code, std::map<std::string, std::string>* carried) {
  const auto filter = std::make_shared<teksdb::server::StaleMemberFilterFactory>();
  const auto health = std::make_shared<teksdb::server::StorageHealth>();
  teksdb::server::DescriptorBudget descriptors;
  const ROCKSDB_NAMESPACE::Options options = MakeOptions(flags, filter, health, &descriptors);
  std::unique_ptr<ROCKSDB_NAMESPACE::DB> db;
  ROCKSDB_NAMESPACE::Status s;
  if (flags.memtable == "teks") {
    std::unique_ptr<teksdb::TeksDB> teks_db;
    s = teksdb::TeksDB::Open(options, flags.dir, &teks_db);
    db = std::move(teks_db);
  } else {
    std::unique_ptr<ROCKSDB_NAMESPACE::DB> plain;
    s = teksdb::OpenDB(options, flags.dir, &plain);
    db = std::move(plain);
  }
  if (!s.ok()) Fail("cannot open " + flags.dir + ": " + s.ToString());
  const std::string memtable = db->GetOptions().memtable_factory->Name();
  const std::string wanted = flags.memtable == "teks" ? "TeksTableFactory" : "SkipListFactory";
  if (memtable != wanted) Fail("asked for " + wanted + " but the DB runs " + memtable);
  s = teksdb::server::storage_format::Prepare(db.get());
  if (!s.ok()) Fail(flags.dir + ": " + s.ToString());
  filter->Attach(db.get());
  health->Start(db.get());

  teksdb::server::Keyspace keyspace(db.get(), flags.sync);
  s = keyspace.LoadDatabases();
  if (!s.ok()) Fail(flags.dir + ": " + s.ToString());
  teksdb::server::ServerState state(teksdb::server::CommandCount(), acl_users);
  keyspace.SetWriteListener(&state.tracking);
  auto sweeper = std::make_unique<teksdb::server::ExpirySweeper>(
      &keyspace,
      [&state](int database, const std::string& key) {
        teksdb::server::NotifyExpired(state, database, key);
      },
      [&state](int database, const std::string& key, bool key_deleted) {
        teksdb::server::NotifyFieldExpired(state, database, key, key_deleted);
      });
  const teksdb::server::ScriptCommandRunner script_commands;
  teksdb::server::ScriptEngine scripts(script_commands);
  state.scripts = &scripts;
  state.keyspace = &keyspace;
  state.sweeper = sweeper.get();
  // CLIENT PAUSE and FAILOVER's hold: the commands a pause held run again
  // as it eases; nothing expires while writes are paused.
  state.pause.set_changed([&sweeper, &keyspace](teksdb::server::ClientPause::Kind kind) {
    sweeper->HoldForClientPause(kind != teksdb::server::ClientPause::kNone);
    keyspace.waiters().TouchAll(teksdb::server::ClientPause::kWakeKey);
  });
  state.db = db.get();
  state.stale_filter = filter.get();
  state.storage_health = health.get();
  state.config_file = flags.config_file;
  state.acl_file = flags.aclfile;
  state.acl_file_path = AclFilePath(flags);
  state.dir = flags.dir;
  state.enable_debug_command = flags.enable_debug_command;
  state.memtable = memtable;
  state.run_id = run_id;
  state.started_ms = teksdb::server::Keyspace::NowMs();
  state.last_save_s = state.started_ms / 1000;
  s = teksdb::server::function_store::LoadAll(db.get(), &scripts);
  if (!s.ok()) Fail(flags.dir + ": " + s.ToString());
  std::atomic<bool> copy_ready{false};
  {
    std::string error;
    // (Where CONFIG SET moved it, after a full sync's reopen.)
    const std::string bind = carried->count("bind") > 0 ? (*carried)["bind"] : flags.bind;
    int64_t port = flags.port;
    if (carried->count("port") > 0) teksdb::server::ParseStrictInt64((*carried)["port"], &port);
    teksdb::server::Server server(&state, bind, static_cast<uint16_t>(port), flags.threads,
                                  &error);
    if (!error.empty()) Fail(error);
    state.shutdown = [&server] { server.Stop(); };
    state.client_limits.maxclients_possible = descriptors.most_clients;
    teksdb::server::Replication::Options replication_options;
    replication_options.dir = flags.dir;
    replication_options.format = teksdb::server::storage_format::FormatName();
    replication_options.run_id = run_id;
    state.listen.Set(bind, server.port());
    state.listen.set_mover(
        [&server](const std::string& bind, uint16_t port) { return server.Listen(bind, port); });
    replication_options.listening_port = server.port();
    replication_options.sync_writes = flags.sync;
    teksdb::server::Replication::Hooks hooks;
    // A replica writes only what its primary ships: no expiry sweep.
    hooks.role_changed = [&sweeper, &state](bool replica) {
      sweeper->Pause(replica);
      state.oom_score.Apply(replica);  // (its score is the replica's now, or the primary's)
    };
    hooks.copy_ready = [&copy_ready, &server] {
      copy_ready = true;
      server.Stop();
    };
    // What the primary changed reaches the keyspace (SWAPDB, watchers,
    // blocked clients) and the script engine (function libraries).
    hooks.applied = [&db, &scripts, &keyspace](const std::string& batch) {
      keyspace.Applied(ROCKSDB_NAMESPACE::WriteBatch(batch));
      if (!teksdb::server::function_store::TouchesLibraries(batch)) return;
      const ROCKSDB_NAMESPACE::Status reloaded =
          teksdb::server::function_store::ReloadAll(db.get(), &scripts);
      if (!reloaded.ok()) {
        std::fprintf(stderr, "teksdb-server: replication: %s\n", reloaded.ToString().c_str());
      }
    };
    hooks.progress = [&keyspace] { keyspace.waiters().TouchAll(teksdb::server::ReplicationWakeKey()); };
    hooks.hold_writers = [&state](bool held) {
      const int64_t now_ms = teksdb::server::Keyspace::NowMs();
      if (held) {
        state.pause.Pause(teksdb::server::ClientPause::kFailover, teksdb::server::ClientPause::kWrite,
                          teksdb::server::ClientPause::kNoDeadline, now_ms);
      } else {
        state.pause.Unpause(teksdb::server::ClientPause::kFailover, now_ms);
      }
    };
    replication_options.auth = {flags.masteruser, flags.masterauth};
    replication_options.max_bytes_per_second = int64_t{flags.repl_max_mbps} << 20;
    teksdb::server::Replication replication(db.get(), replication_options, hooks);
    state.replication = &replication;
    s = replication.Start();
    if (!s.ok()) Fail(flags.dir + ": replication: " + s.ToString());
    // CONFIG's parameters: the defaults first (CONFIG REWRITE leaves out
    // what still has its default), then the file's and the flags'.
    for (const auto& parameter : teksdb::server::ConfigParameters()) {
      state.config_defaults[parameter.name] = parameter.get(state);
    }
    teksdb::server::ApplyConfigParameters(flags, &state);
    state.client_limits.maxclients = descriptors.maxclients;
    for (const auto& [name, value] : *carried) {
      teksdb::server::SetConfigAtStart(state, name, value);
    }
    if (!flags.replicaof_host.empty()) {
      bool already = false;
      s = replication.Follow(flags.replicaof_host, flags.replicaof_port, &already);
      if (!s.ok()) Fail(flags.dir + ": replication: " + s.ToString());
    }
    std::fprintf(stderr, "teksdb-server: listening on %s:%u, %d I/O threads, memtable %s, dir %s%s%s\n",
                 bind.c_str(), server.port(), flags.threads, memtable.c_str(),
                 flags.dir.c_str(), flags.sync ? ", sync writes" : "",
                 replication.replica() ? ", a replica" : "");
    // (Redis's words, which its test harnesses wait for: 7.4's for the
    // first, 7.0's for the second.)
    std::fprintf(stderr, "teksdb-server: Server initialized\n");
    std::fprintf(stderr, "teksdb-server: Ready to accept connections tcp\n");
    server.Run();
    state.listen.set_mover(nullptr);
    carried->clear();
    for (const auto& parameter : teksdb::server::ConfigParameters()) {
      if (parameter.set && parameter.alias_of == nullptr) {
        (*carried)[parameter.name] = parameter.get(state);
      }
    }
    state.replication = nullptr;
  }
  state.sweeper = nullptr;
  state.pause.set_changed(nullptr);
  sweeper.reset();  // joins the sweep before the database closes
  health->Stop();
  keyspace.SetWriteListener(nullptr);
  s = db->Close();
  filter->Detach();
  std::fprintf(stderr, "teksdb-server: %s after %llu commands%s\n",
               copy_ready ? "closed for a full sync's copy" : "stopped",
               static_cast<unsigned long long>(state.commands.load()),
               s.ok() ? "" : (", close failed: " + s.ToString()).c_str());
  *exit_code = s.ok() ? 0 : 1;
  return copy_ready ? Ending::kCopyReady : Ending::kStopped;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = teksdb::server::ParseServerFlags(argc, argv);
  if (!flags.logfile.empty() && std::freopen(flags.logfile.c_str(), "a", stderr) == nullptr) {
    Fail("cannot open the logfile " + flags.logfile + ": " + std::strerror(errno));
  }
  // Unbuffered, so that the log is whole when the process is killed.
  std::setvbuf(stderr, nullptr, _IONBF, 0);
  std::fprintf(stderr, "teksdb-server: starting, PID: %d%s%s\n", static_cast<int>(::getpid()),
               flags.config_file.empty() ? "" : ", config file ", flags.config_file.c_str());
  ROCKSDB_NAMESPACE::Status s = teksdb::server::Replication::FinishCutOffSwap(flags.dir);
  if (!s.ok()) Fail(s.ToString());
  const std::string run_id = teksdb::server::NewReplicationId();
  std::map<std::string, std::string> carried;
  teksdb::server::AclUsers acl_users(teksdb::server::AclCommands());
  LoadUsersAtStart(flags, &acl_users);
  for (;;) {
    int exit_code = 0;
    if (Serve(flags, run_id, acl_users, &exit_code, &carried) == Ending::kStopped) return exit_code;
    s = teksdb::server::Replication::SwapInCopy(flags.dir);
    if (!s.ok()) Fail("full sync: " + s.ToString());
    std::fprintf(stderr, "teksdb-server: a full sync's copy swapped in; opening it\n");
  }
}
