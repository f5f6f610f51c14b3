// ServerFlags implementation: the file's directives, then the command
// line's, each applied in order.
#include "server_flags.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "ascii_case.h"
#include "config_parameters.h"
#include "redis_args.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "teksdb-server: %s\n", why.c_str());
  std::exit(1);
}

constexpr const char* kUsage =
    "usage: teksdb-server [CONFIG_FILE] [--dir DIR] [--port 6379] [--bind 127.0.0.1] [--threads N]\n"
    "         [--memtable teks|skip_list] [--linker-nice 0-19] [--rocksdb-options FILE]\n"
    "         [--requirepass PASSWORD] [--sync] [--block-cache-mb 1024]\n"
    "         [--enable-debug-command no|yes|local] [--logfile FILE]\n"
    "         [--replicaof HOST PORT] [--masteruser USER] [--masterauth PASSWORD] [--repl-max-mbps 0]\n"
    "         [--repl-wal-retention-mb 4096] [--repl-wal-retention-s 3600]\n"
    "         [--CONFIG-PARAMETER VALUE ...]   (maxclients, protected-mode, ...: CONFIG GET *)\n"
    "CONFIG_FILE: directives in redis.conf's syntax, one a line, the flags' names without\n"
    "'--' (server/teksdb.conf is an example); flags given after it override it.\n";

// The words of the command line after the file, as directives.
std::vector<ConfigDirective> CommandLine(int argc, char** argv, int first) {
  std::vector<ConfigDirective> directives;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      Fail("unknown argument '" + arg + "' (see --help)");
    }
    ConfigDirective d{AsciiLower(arg.substr(2)), {}, "command line"};
    if (const size_t eq = d.name.find('='); eq != std::string::npos) {
      d.args.push_back(arg.substr(2 + eq + 1));
      d.name.resize(eq);
    } else {
      while (i + 1 < argc && std::string(argv[i + 1]).compare(0, 2, "--") != 0) {
        d.args.push_back(argv[++i]);
      }
    }
    directives.push_back(std::move(d));
  }
  return directives;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

class Applier {
 public:
  explicit Applier(ServerFlags* f) : f_(f) {}

  void Apply(const ConfigDirective& d) {
    d_ = &d;
    const std::string& n = d.name;
    if (n == "dir") f_->dir = One();
    else if (n == "bind") f_->bind = Bind();
    else if (n == "port") f_->port = Int(0, 65535);
    else if (n == "threads") f_->threads = Int(1, 256);
    else if (n == "memtable") f_->memtable = OneOf({"teks", "skip_list"});
    else if (n == "linker-nice") f_->linker_nice = Int(0, 19);
    else if (n == "rocksdb-options") f_->rocksdb_options = One();
    else if (n == "enable-debug-command") f_->enable_debug_command = OneOf({"no", "yes", "local"});
    else if (n == "logfile") f_->logfile = One();
    else if (n == "aclfile") f_->aclfile = One();
    else if (n == "user") User();
    else if (n == "sync") f_->sync = d.args.empty() || OneOf({"yes", "no"}) == "yes";
    else if (n == "replicaof" || n == "slaveof") ReplicaOf();
    else if (n == "masterauth") f_->masterauth = One();
    else if (n == "masteruser") f_->masteruser = One();
    else if (n == "repl-max-mbps") f_->repl_max_mbps = Int(0, 1 << 20);
    else if (n == "repl-wal-retention-mb") f_->repl_wal_retention_mb = Int(0, 1 << 30);
    else if (n == "repl-wal-retention-s") f_->repl_wal_retention_s = Int(1, 1 << 30);
    else if (n == "block-cache-mb") {
      f_->block_cache_mb = Int(1, 1 << 20);
      f_->block_cache_given = true;
    } else if (n == "daemonize") {
      if (OneOf({"yes", "no"}) == "yes") {
        Bad("teksdb-server does not daemonize; run it under a supervisor (systemd, ...)");
      }
    } else if (n == "databases") {
      if (One() != "16") Bad("teksdb-server has 16 databases, not " + d.args[0]);
    } else if (n == "replica-read-only" || n == "slave-read-only") {
      if (OneOf({"yes", "no"}) != "yes") Bad("a replica here is always read-only");
    } else {
      Parameter();
    }
  }

 private:
  [[noreturn]] void Bad(const std::string& why) {
    Fail(d_->where + ": '" + d_->name + "': " + why);
  }
  std::string One() {
    if (d_->args.size() != 1) {
      Bad("takes one value, not " + std::to_string(d_->args.size()));
    }
    return d_->args[0];
  }
  std::string OneOf(std::initializer_list<const char*> choices) {
    const std::string v = AsciiLower(One());
    std::string allowed;
    for (const char* c : choices) {
      if (v == c) return v;
      allowed += std::string(allowed.empty() ? "" : ", ") + c;
    }
    Bad("must be one of " + allowed + ", not '" + d_->args[0] + "'");
  }
  int Int(int lo, int hi) {
    int64_t v;
    const std::string text = One();
    if (!ParseStrictInt64(text, &v) || v < lo || v > hi) {
      Bad("must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
          "], not '" + text + "'");
    }
    return static_cast<int>(v);
  }
  std::string Bind() {
    // (Redis's "-" marks an address it may fail to bind: one is needed here.)
    if (d_->args.size() != 1) {
      Bad("teksdb-server listens on one address, not " + std::to_string(d_->args.size()));
    }
    const std::string& a = d_->args[0];
    return a.size() > 1 && a[0] == '-' ? a.substr(1) : a;
  }
  // "user NAME RULES...": one line, or one quoted word ("--user 'bob on
  // >pw'").
  void User() {
    std::vector<std::string> words = d_->args;
    if (words.size() == 1) {
      words.clear();
      if (!SplitRedisArgs(d_->args[0], &words)) Bad("unbalanced quotes");
    }
    if (words.empty()) Bad("needs a user name");
    for (const std::vector<std::string>& user : f_->users) {
      if (user[0] == words[0]) {
        Bad("Duplicate user found. A user can only be defined once in config files");
      }
    }
    f_->users.push_back(std::move(words));
  }
  void ReplicaOf() {
    // "HOST PORT" as two words, or as one (the older flag's form).
    std::vector<std::string> words = d_->args;
    if (words.size() == 1) SplitRedisArgs(d_->args[0], &words);
    if (words.size() != 2) Bad("takes a host and a port");
    if (AsciiLower(words[0]) == "no" && AsciiLower(words[1]) == "one") {
      f_->replicaof_host.clear();
      f_->replicaof_port = 0;
      return;
    }
    int64_t port;
    if (!ParseStrictInt64(words[1], &port) || port < 0 || port > 65535) {
      Bad("the port must be an integer in [0, 65535], not '" + words[1] + "'");
    }
    f_->replicaof_host = words[0];
    f_->replicaof_port = static_cast<int>(port);
  }
  void Parameter() {
    if (FindConfigParameter(d_->name) == nullptr) {
      Fail(d_->where + ": unknown directive '" + d_->name + "'" +
           (d_->where == "command line" ? " (see --help)" : ""));
    }
    const std::string value = Joined(d_->args);
    if (const std::string complaint = CheckConfigAtStart(d_->name, value); !complaint.empty()) {
      Bad(complaint);
    }
    if (d_->name == "maxclients") ParseStrictInt64(value, &f_->maxclients);
    f_->parameters.push_back(*d_);
  }

  ServerFlags* f_;
  const ConfigDirective* d_ = nullptr;
};

}  // namespace

ServerFlags ParseServerFlags(int argc, char** argv) {
  ServerFlags f;
  f.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<ConfigDirective> directives;
  int first_flag = 1;
  if (argc > 1 && std::string(argv[1]).compare(0, 1, "-") != 0) {
    std::error_code ec;
    f.config_file = std::filesystem::absolute(argv[1], ec).string();
    if (ec) f.config_file = argv[1];
    std::string error;
    if (!ReadConfigFile(f.config_file, &directives, &error)) Fail(error);
    first_flag = 2;
  }
  for (ConfigDirective& d : CommandLine(argc, argv, first_flag)) directives.push_back(std::move(d));
  Applier applier(&f);
  for (const ConfigDirective& d : directives) applier.Apply(d);

  if (f.dir.empty()) Fail("a data directory is required: --dir DIR, or 'dir DIR' in the config file");
  // (Replication keeps DIR.sync, DIR.checkpoints and DIR.old beside DIR.)
  while (f.dir.size() > 1 && f.dir.back() == '/') f.dir.pop_back();
  if (f.block_cache_given && !f.rocksdb_options.empty()) {
    Fail("--block-cache-mb applies to the server's defaults only; with --rocksdb-options set "
         "the block cache in the OPTIONS file ([TableOptions/BlockBasedTable \"default\"])");
  }
  return f;
}

void ApplyConfigParameters(const ServerFlags& flags, ServerState* server) {
  for (const ConfigDirective& d : flags.parameters) SetConfigAtStart(*server, d.name, Joined(d.args));
}

}  // namespace teksdb::server
