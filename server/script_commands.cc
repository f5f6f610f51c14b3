// Scripting commands: EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT (LOAD EXISTS
// FLUSH KILL), as Redis 7.0 answers them; the Lua side is
// script_engine.h. A script runs holding the whole keyspace (every gate,
// Keyspace::BeginTransaction), or, inside EXEC, within EXEC's (which takes
// the whole keyspace when a script is queued: command_info.h).
#include "ascii_case.h"
#include "commands.h"
#include "resp_reply.h"
#include "script_engine.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

// EVAL / EVALSHA script-or-sha numkeys key... arg...
void Eval(Request& r, bool by_sha, bool read_only) {
  int64_t numkeys;
  if (!ParseStrictInt64(r.args[2], &numkeys)) return reply::Error(r.out, kNotInteger);
  if (numkeys > static_cast<int64_t>(r.args.size()) - 3) {
    return reply::Error(r.out, "ERR Number of keys can't be greater than number of args");
  }
  if (numkeys < 0) return reply::Error(r.out, "ERR Number of keys can't be negative");
  ScriptEngine& engine = r.server.scripts;
  std::string sha;
  if (by_sha) {
    sha = AsciiLower(r.args[1]);
    if (sha.size() != 40 || !engine.Exists(sha)) {
      return reply::Error(r.out, "NOSCRIPT No matching script. Please use EVAL.");
    }
  } else {
    std::string error;
    if (!engine.Load(r.args[1], &sha, &error)) return reply::Error(r.out, error);
  }
  const std::vector<std::string> keys(r.args.begin() + 3, r.args.begin() + 3 + numkeys);
  const std::vector<std::string> argv(r.args.begin() + 3 + numkeys, r.args.end());
  const bool within_exec = r.keyspace->InTransaction();
  if (!within_exec) r.keyspace->BeginTransaction({}, /*whole_keyspace=*/true);
  r.client.may_block = false;
  engine.Run(r, sha, keys, argv, read_only);
  r.client.may_block = !within_exec;
  if (engine.running().stopped_for_shutdown()) {
    // SHUTDOWN NOSAVE or a signal stopped it: none of its writes (nor of
    // the EXEC around it) reach the database.
    r.keyspace->DiscardGroup();
    r.client.close_after_reply = true;
  }
  if (!within_exec) r.keyspace->EndTransaction();
}
void EvalCommand(Request& r) { Eval(r, false, false); }
void EvalSha(Request& r) { Eval(r, true, false); }
void EvalRo(Request& r) { Eval(r, false, true); }
void EvalShaRo(Request& r) { Eval(r, true, true); }

// SCRIPT LOAD body | EXISTS sha... | FLUSH [ASYNC|SYNC] | KILL
// (SubcommandError has checked the subcommand and its arity.)
void Script(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  ScriptEngine& engine = r.server.scripts;
  if (sub == "load") {
    std::string sha, error;
    return engine.Load(r.args[2], &sha, &error) ? reply::Bulk(r.out, sha)
                                                : reply::Error(r.out, error);
  }
  if (sub == "exists") {
    reply::ArrayHeader(r.out, r.args.size() - 2);
    for (size_t i = 2; i < r.args.size(); ++i) reply::Integer(r.out, engine.Exists(r.args[i]) ? 1 : 0);
    return;
  }
  if (sub == "flush") {
    if (r.args.size() == 3 && AsciiLower(r.args[2]) != "sync" && AsciiLower(r.args[2]) != "async") {
      return reply::Error(r.out, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    }
    if (r.args.size() > 3) return reply::Error(r.out, kSyntaxError);
    engine.Flush();
    return reply::Ok(r.out);
  }
  switch (engine.running().Kill()) {
    case RunningScript::KillResult::kKilled:
      return reply::Ok(r.out);
    case RunningScript::KillResult::kNotBusy:
      return reply::Error(r.out, "NOTBUSY No scripts in execution right now.");
    case RunningScript::KillResult::kUnkillable:
      return reply::Error(r.out,
                          "UNKILLABLE Sorry the script already executed write commands against the "
                          "dataset. You can either wait the script termination or kill the server in "
                          "a hard way using the SHUTDOWN NOSAVE command.");
  }
}

}  // namespace

void AddScriptCommands(std::vector<Command>* table) {
  table->insert(table->end(), {
      {"eval", -3, EvalCommand},  {"evalsha", -3, EvalSha},     {"eval_ro", -3, EvalRo},
      {"evalsha_ro", -3, EvalShaRo}, {"script", -2, Script},
  });
}

}  // namespace teksdb::server
