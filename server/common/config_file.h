// ConfigFile: a configuration file in redis.conf's syntax, read into its
// directives: one a line, "name arg arg ...", words split and quoted as
// Redis splits them (redis_args.h); blank lines and lines starting with
// '#' skipped; names in any case (kept in lower case); "include PATH"
// reads PATH there (a relative path from the working directory, as
// Redis), at most kMaxIncludeDepth deep. Each directive keeps where it
// came from ("FILE:LINE"), for the error that stops a start. What a
// directive means is the caller's (main.cc).
//
// Thread safety: pure functions over the files.
#pragma once

#include <string>
#include <vector>

namespace teksdb::server {

struct ConfigDirective {
  std::string name;               // lower case
  std::vector<std::string> args;  // after the name
  std::string where;              // "FILE:LINE", or "command line"
};

constexpr int kMaxIncludeDepth = 16;

// Appends the directives of `path` (and of what it includes) to *out;
// false with *error ("FILE:LINE: why", or "FILE: why") on a file that
// cannot be read, unbalanced quotes, or includes too deep.
bool ReadConfigFile(const std::string& path, std::vector<ConfigDirective>* out, std::string* error);

}  // namespace teksdb::server
