// SplitRedisArgs: a line split into words as Redis splits an inline request
// or a line of redis.conf (sdssplitargs): words split by spaces; "..."
// with C escapes (\n \r \t \b \a \\ \" \xHH), '...' with \' only; a
// closing quote must be followed by a space or the end. QuoteRedisArg
// writes a word so that SplitRedisArgs reads it back.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace teksdb::server {

// The words of `line` in *args; false on unbalanced quotes.
bool SplitRedisArgs(std::string_view line, std::vector<std::string>* args);

// `word` as it is when SplitRedisArgs reads it as one word, else in
// double quotes with escapes.
std::string QuoteRedisArg(std::string_view word);

}  // namespace teksdb::server
