// Redis's glob patterns (KEYS, SCAN MATCH, CONFIG GET): '*' any run of
// bytes, '?' one byte, "[abc]", "[^a]", "[a-z]" a set, '\' quotes the next
// byte; byte-wise and case-sensitive, as Redis's stringmatchlen.
// Backtracking is bounded: '*' runs collapse, and each '*' retries at most
// once per subject byte, so a match costs O(pattern x subject).
#pragma once

#include <string_view>

namespace teksdb::server {

bool GlobMatch(std::string_view pattern, std::string_view subject);

}  // namespace teksdb::server
