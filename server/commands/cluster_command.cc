// CLUSTER (every subcommand), READONLY, READWRITE and ASKING, as a Redis
// 7.0 with cluster-enabled no answers them: "This instance has cluster
// support disabled" (an unknown CLUSTER subcommand or a wrong number of
// arguments is refused before, by SubcommandError, as Redis does).
// teksdb-server runs no cluster: scripts/cluster.sh puts several behind
// twemproxy instead (README.md, "Several servers behind twemproxy").
//
// Thread safety: a pure function of the request.

#include "commands.h"
#include "resp_reply.h"

namespace teksdb::server {
namespace {

void ClusterDisabled(Request& r) { reply::Error(r.out, "ERR This instance has cluster support disabled"); }

}  // namespace

void AddClusterCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"cluster", -2, ClusterDisabled},
                               {"readonly", 1, ClusterDisabled},
                               {"readwrite", 1, ClusterDisabled},
                               {"asking", 1, ClusterDisabled}});
}

}  // namespace teksdb::server
