// ReadConfigFile implementation: line by line, includes recursively.
#include "config_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "ascii_case.h"
#include "redis_args.h"

namespace teksdb::server {
namespace {

bool Read(const std::string& path, int depth, std::vector<ConfigDirective>* out,
          std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot read it: " + std::strerror(errno);
    return false;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = path + ":" + std::to_string(number);
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    std::vector<std::string> words;
    if (!SplitRedisArgs(line, &words)) {
      *error = where + ": unbalanced quotes in '" + line + "'";
      return false;
    }
    if (words.empty()) continue;
    const std::string name = AsciiLower(words[0]);
    words.erase(words.begin());
    if (name == "include") {
      if (words.size() != 1) {
        *error = where + ": include takes one file, not " + std::to_string(words.size());
        return false;
      }
      if (depth == kMaxIncludeDepth) {
        *error = where + ": includes nested deeper than " + std::to_string(kMaxIncludeDepth) +
                 " (a file that includes itself?)";
        return false;
      }
      if (!Read(words[0], depth + 1, out, error)) return false;
      continue;
    }
    out->push_back({name, std::move(words), where});
  }
  if (in.bad()) {
    *error = path + ": cannot read it: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace

bool ReadConfigFile(const std::string& path, std::vector<ConfigDirective>* out,
                    std::string* error) {
  return Read(path, 0, out, error);
}

}  // namespace teksdb::server
