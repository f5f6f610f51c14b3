// MODULE as Redis 7.0 answers it with no module loaded: teksdb-server loads
// none (no module API). LIST is an empty list; LOAD, LOADEX and UNLOAD are
// "protected" as in Redis: refused unless enable-module-command (a kept,
// startup-only parameter, "no" by default) allows the client, and then
// refused as Redis refuses a library it cannot load or a module it does
// not have.
//
// Thread safety: a pure function of the request and a CONFIG parameter.

#include "ascii_case.h"
#include "commands.h"
#include "config_parameters.h"
#include "protected_command.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

void ModuleHelp(Request& r) {
  static const char* const kLines[] = {
      "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LIST",
      "    Return a list of loaded modules.",
      "LOAD <path> [<arg> ...]",
      "    Load a module library from <path>, passing to it any optional arguments.",
      "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
      "    Load a module library from <path>, while passing it module configurations and "
      "optional arguments.",
      "UNLOAD <name>",
      "    Unload a module.",
      "HELP",
      "    Prints this help."};
  reply::StatusLines(r.out, kLines);
}

// MODULE HELP | LIST | LOAD path [arg...] | LOADEX path ... | UNLOAD name
// (SubcommandError has checked the subcommand and its arity).
void Module(Request& r) {
  const std::string sub = AsciiLower(r.args[1]);
  if (sub == "help") return ModuleHelp(r);
  if (sub == "list") return reply::ArrayHeader(r.out, 0);
  const std::string setting = FindConfigParameter("enable-module-command")->get(r.server);
  if (!ProtectedCommandAllowed(setting, r.client)) {
    return reply::Error(r.out, ProtectedCommandRefusal("MODULE", "enable-module-command"));
  }
  if (sub == "unload") {
    return reply::Error(r.out, "ERR Error unloading module: no such module with that name");
  }
  reply::Error(r.out, "ERR Error loading the extension. Please check the server logs.");
}

}  // namespace

void AddModuleCommand(std::vector<Command>* table) { table->push_back({"module", -2, Module}); }

}  // namespace teksdb::server
