// OomScore implementation.
#include "oom_score.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ascii_case.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

constexpr const char* kProcFile = "/proc/self/oom_score_adj";

// Each logs its failure in Redis's words.
bool ReadScore(int* score) {
  std::ifstream in(kProcFile);
  if (in >> *score) return true;
  std::fprintf(stderr, "teksdb-server: Unable to read oom_score_adj: %s\n", std::strerror(errno));
  return false;
}

bool WriteScore(int score) {
  FILE* f = std::fopen(kProcFile, "w");
  bool written = f != nullptr && std::fprintf(f, "%d\n", score) > 0;
  if (f != nullptr && std::fclose(f) != 0) written = false;
  if (!written) {
    std::fprintf(stderr, "teksdb-server: Unable to write oom_score_adj: %s\n", std::strerror(errno));
  }
  return written;
}

}  // namespace

bool OomScore::ParseMode(const std::string& text, Mode* mode) {
  const std::string word = AsciiLower(text);
  if (word == "no") {
    *mode = kNo;
  } else if (word == "yes" || word == "relative") {
    *mode = kRelative;
  } else if (word == "absolute") {
    *mode = kAbsolute;
  } else {
    return false;
  }
  return true;
}

std::string OomScore::ParseValues(const std::string& text, std::array<int, 3>* values) {
  std::istringstream in(text);
  std::string word;
  size_t n = 0;
  while (in >> word) {
    int64_t v;
    if (n == values->size()) return "wrong number of arguments";
    if (!ParseStrictInt64(word, &v) || v < -2000 || v > 2000) {
      return "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
    }
    (*values)[n++] = static_cast<int>(v);
  }
  return n == values->size() ? "" : "wrong number of arguments";
}

std::string OomScore::mode_text() const {
  std::lock_guard<std::mutex> lock(mu_);
  // ("relative" shows as "yes", its first name, as in Redis.)
  return mode_ == kNo ? "no" : mode_ == kRelative ? "yes" : "absolute";
}

std::string OomScore::values_text() const {
  std::lock_guard<std::mutex> lock(mu_);
  return std::to_string(values_[0]) + " " + std::to_string(values_[1]) + " " +
         std::to_string(values_[2]);
}

std::string OomScore::Write(Mode mode, const std::array<int, 3>& values, bool replica) {
  const std::string failed = "Failed to set current oom_score_adj. Check server logs.";
  if (mode == kNo) {
    if (!adjusted_) return "";
    if (!WriteScore(base_)) return failed;
    adjusted_ = false;
    return "";
  }
  if (!adjusted_ && !ReadScore(&base_)) return failed;
  int score = values[replica ? 1 : 0] + (mode == kRelative ? base_ : 0);
  score = std::clamp(score, -1000, 1000);
  if (!WriteScore(score)) return failed;
  adjusted_ = true;
  return "";
}

std::string OomScore::SetMode(Mode mode, bool replica) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string error = Write(mode, values_, replica);
  if (error.empty()) mode_ = mode;
  return error;
}

std::string OomScore::SetValues(const std::array<int, 3>& values, bool replica) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string error = Write(mode_, values, replica);
  if (error.empty()) values_ = values;
  return error;
}

void OomScore::Apply(bool replica) {
  std::lock_guard<std::mutex> lock(mu_);
  Write(mode_, values_, replica);  // (a failure is logged)
}

}  // namespace teksdb::server
