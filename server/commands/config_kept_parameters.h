// The CONFIG parameters of Redis 7.0 that mean nothing to teksdb-server (its
// memory is RocksDB's, it writes no RDB or AOF, it has no cluster, TLS,
// modules or ACL files): CONFIG SET accepts and keeps each as Redis would
// (the same checks, the value CONFIG GET shows afterwards), so that tools
// and test set-ups that set them run, and nothing acts on them.
// docs/COMMANDS.md lists them. The parameters that act are in
// config_parameters.cc.
//
// Thread safety: the table is constant; CheckKeptValue is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace teksdb::server {

struct KeptParameter {
  enum Kind { kBool, kEnum, kInteger, kOctal, kMemory, kMemoryOrPercent, kString };
  const char* name;   // lower case
  const char* alias;  // Redis's older name, or null
  Kind kind;
  const char* default_value;  // as CONFIG GET shows it
  int64_t min, max;           // kInteger, kMemory, kMemoryOrPercent (a percent: -percent)
  const char* choices;        // kEnum: the words allowed, by spaces
  bool immutable;             // CONFIG SET refuses it, as Redis does
  bool hidden;                // CONFIG GET shows it only by its exact name
};

const std::vector<KeptParameter>& KeptParameters();

// Redis's memory values: a number of bytes, or one with a unit (k = 1000,
// kb = 1024, m, mb, g, gb), any case; false if `text` is none.
bool ParseMemory(const std::string& text, int64_t* bytes);

// Redis's complaint about `value` for `parameter` ("argument must be 'yes'
// or 'no'", ...), or empty, with the value as CONFIG GET would show it then
// in *shown (memory values in bytes, words in lower case).
std::string CheckKeptValue(const KeptParameter& parameter, const std::string& value,
                           std::string* shown);

}  // namespace teksdb::server
