// link_frames.h's encoders, through the protocol's reply writers.
#include "link_frames.h"

#include <cstdio>

#include "resp_reply.h"

namespace teksdb::server::link_frames {

std::string Frame(std::initializer_list<std::string_view> parts) {
  std::string out;
  reply::ArrayHeader(&out, parts.size());
  for (std::string_view part : parts) reply::Bulk(&out, part);
  return out;
}

std::string Frame(const std::vector<std::string>& parts) {
  std::string out;
  reply::ArrayHeader(&out, parts.size());
  for (const std::string& part : parts) reply::Bulk(&out, part);
  return out;
}

std::string ChecksumText(uint64_t checksum) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(checksum));
  return text;
}

}  // namespace teksdb::server::link_frames
