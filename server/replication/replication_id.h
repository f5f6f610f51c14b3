// Random 40-hex-digit ids, as Redis's: a history's replication id
// (master_replid) and a process's run_id.
//
// Thread safety: any thread.
#pragma once

#include <string>

namespace teksdb::server {

std::string NewReplicationId();

}  // namespace teksdb::server
