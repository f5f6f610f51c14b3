// ReplicationHistory (replication_history.h): the rules and the file, one
// "name value" line per field.
#include "replication_history.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "replication_id.h"
#include "strict_integer.h"

namespace teksdb::server {

using ROCKSDB_NAMESPACE::Status;

bool ReplicationHistory::MayContinue(const std::string& id, uint64_t latest,
                                     uint64_t own_latest) const {
  if (id == kNoId) return false;
  if (id == replid) return latest <= own_latest;
  return id == replid2 && latest <= replid2_end;
}

void ReplicationHistory::StartNew(uint64_t latest) {
  replid2 = replid;
  replid2_end = latest;
  replid = NewReplicationId();
}

Status ReplicationHistory::Load(const std::string& dir, ReplicationHistory* history) {
  const std::string path = dir + "/" + kFileName;
  std::ifstream in(path);
  if (!in) return Status::NotFound(path);
  ReplicationHistory read;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, value;
    fields >> name >> value;
    int64_t number = 0;
    const bool numeric = ParseStrictInt64(value, &number) && number >= 0;
    if (name == "primary-host") {
      read.primary_host = value;
    } else if (name == "primary-port" && numeric && number <= 65535) {
      read.primary_port = static_cast<int>(number);
    } else if (name == "replid" && value.size() == 40) {
      read.replid = value;
    } else if (name == "replid2" && value.size() == 40) {
      read.replid2 = value;
    } else if (name == "replid2-end" && numeric) {
      read.replid2_end = static_cast<uint64_t>(number);
    } else if (!name.empty()) {
      return Status::Corruption(path + ": cannot read the line '" + line + "'");
    }
  }
  *history = read;
  return Status::OK();
}

Status ReplicationHistory::Save(const std::string& dir) const {
  const std::string path = dir + "/" + kFileName;
  const std::string temporary = path + ".tmp";
  std::ostringstream text;
  if (replica()) text << "primary-host " << primary_host << "\nprimary-port " << primary_port << "\n";
  text << "replid " << replid << "\nreplid2 " << replid2 << "\nreplid2-end " << replid2_end << "\n";
  const std::string bytes = text.str();
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(temporary, std::strerror(errno));
  const bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()) &&
                       ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  if (!written) return Status::IOError(temporary, std::strerror(error));
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    return Status::IOError(path, std::strerror(errno));
  }
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::OK();
}

}  // namespace teksdb::server
