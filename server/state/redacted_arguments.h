// The arguments Redis shows as "(redacted)" in MONITOR and SLOWLOG
// (redactClientCommandArgument): every argument of AUTH, HELLO's AUTH
// username and password, MIGRATE's AUTH password and AUTH2 username and
// password, ACL SETUSER's user name and rules, CONFIG SET's values of the
// parameters Redis calls sensitive (masterauth, masteruser, requirepass).
//
// Thread safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "ascii_case.h"

namespace teksdb::server {

inline bool IsRedactedArgument(const std::vector<std::string>& args, size_t i) {
  const std::string name = AsciiLower(args[0]);
  if (name == "auth") return i > 0;
  if (name == "acl") return i > 1 && AsciiLower(args[1]) == "setuser";
  if (name == "config") {
    if (i < 3 || i % 2 == 0 || AsciiLower(args[1]) != "set") return false;
    const std::string parameter = AsciiLower(args[i - 1]);
    return parameter == "masterauth" || parameter == "masteruser" || parameter == "requirepass";
  }
  if (name == "migrate") {
    // MIGRATE host port key db timeout [COPY] [REPLACE] [AUTH pw]
    // [AUTH2 user pw] [KEYS ...], read as migrateCommand reads it.
    for (size_t j = 6; j < args.size(); ++j) {
      const std::string option = AsciiLower(args[j]);
      if (option == "auth" && j + 1 < args.size()) {
        if (i == j + 1) return true;
        ++j;
      } else if (option == "auth2" && j + 2 < args.size()) {
        if (i == j + 1 || i == j + 2) return true;
        j += 2;
      } else if (option == "keys") {
        break;
      }
    }
    return false;
  }
  if (name != "hello") return false;
  // HELLO [protover [AUTH username password] [SETNAME name]], read as
  // Redis reads its options.
  for (size_t j = 2; j < args.size(); ++j) {
    const std::string option = AsciiLower(args[j]);
    if (option == "auth" && j + 2 < args.size()) {
      if (i == j + 1 || i == j + 2) return true;
      j += 2;
    } else if (option == "setname" && j + 1 < args.size()) {
      ++j;
    } else {
      break;
    }
  }
  return false;
}

}  // namespace teksdb::server
