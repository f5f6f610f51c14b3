// NewReplicationId (replication_id.h): from std::random_device.
#include "replication_id.h"

#include <random>

namespace teksdb::server {

std::string NewReplicationId() {
  static const char kHex[] = "0123456789abcdef";
  std::random_device device;
  std::string id(40, '0');
  for (char& c : id) c = kHex[device() & 15];
  return id;
}

}  // namespace teksdb::server
