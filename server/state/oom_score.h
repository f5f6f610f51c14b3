// OomScore: oom-score-adj and oom-score-adj-values, applied to the
// process's /proc/self/oom_score_adj as Redis 7.0 applies them
// (setOOMScoreAdj): "no" leaves it (and puts back what it was before the
// server first changed it); "yes" or "relative" writes the value of the
// server's role (primary or replica) added to that base, "absolute" the
// value itself, clamped to the kernel's -1000..1000. (The third value is
// Redis's for its fork children: this server forks none.)
//
// Thread safety: every member may be called from any thread (a mutex).
#pragma once

#include <array>
#include <mutex>
#include <string>

namespace teksdb::server {

class OomScore {
 public:
  enum Mode { kNo, kRelative, kAbsolute };

  // "no", "yes", "relative", "absolute" (any case); false for another.
  static bool ParseMode(const std::string& text, Mode* mode);
  // Three integers from -2000 to 2000 ("0 200 800"); Redis's complaint,
  // or empty.
  static std::string ParseValues(const std::string& text, std::array<int, 3>* values);

  std::string mode_text() const;
  std::string values_text() const;

  // Sets the mode or the values and applies them for the role `replica`:
  // empty, or Redis's error (nothing changed then: the kernel refused).
  std::string SetMode(Mode mode, bool replica);
  std::string SetValues(const std::array<int, 3>& values, bool replica);
  // After a change of role (REPLICAOF).
  void Apply(bool replica);

 private:
  // Writes what `mode` and `values` give for the role: empty, or Redis's
  // error (the cause logged). REQUIRES mu_.
  std::string Write(Mode mode, const std::array<int, 3>& values, bool replica);

  mutable std::mutex mu_;
  Mode mode_ = kNo;
  std::array<int, 3> values_ = {0, 200, 800};  // Redis's defaults
  bool adjusted_ = false;  // the server changed the score: base_ is what it was
  int base_ = 0;
};

}  // namespace teksdb::server
