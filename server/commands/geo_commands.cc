// GEOADD key [NX|XX] [CH] longitude latitude member [...], as Redis 7.0
// answers it: each place a member of the sorted set `key`, scored by its
// 52-bit geohash (common/geohash.h), through ZADD's own work. The other
// GEO commands read those scores back (docs/COMMANDS.md says which exist).
#include <cstdio>

#include "ascii_case.h"
#include "commands.h"
#include "geohash.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "zset_add.h"

namespace teksdb::server {
namespace {

void GeoAdd(Request& r) {
  ZAddFlags flags;
  size_t first = 2;
  for (; first < r.args.size(); ++first) {
    const std::string option = AsciiLower(r.args[first]);
    if (option == "nx") {
      flags.nx = true;
    } else if (option == "xx") {
      flags.xx = true;
    } else if (option == "ch") {
      flags.ch = true;
    } else {
      break;
    }
  }
  const size_t rest = r.args.size() - first;
  if (rest == 0 || rest % 3 != 0 || (flags.nx && flags.xx)) return reply::Error(r.out, kSyntaxError);
  // ZADD's arguments: the options, then a score and member per place.
  std::vector<std::string> zadd(r.args.begin(), r.args.begin() + first);
  for (size_t i = first; i < r.args.size(); i += 3) {
    double longitude, latitude;
    if (!ParseScore(r.args[i], &longitude) || !ParseScore(r.args[i + 1], &latitude)) {
      return reply::Error(r.out, kNotFloat);
    }
    if (!geohash::ValidCoordinates(longitude, latitude)) {
      char error[128];
      std::snprintf(error, sizeof(error), "ERR invalid longitude,latitude pair %f,%f", longitude,
                    latitude);
      return reply::Error(r.out, error);
    }
    zadd.push_back(std::to_string(geohash::Encode(longitude, latitude)));
    zadd.push_back(r.args[i + 2]);
  }
  Request as_zadd{r.server, r.client, zadd, r.out, r.keyspace};
  ZAddPairs(as_zadd, first, flags);
  r.retry = as_zadd.retry;
}

}  // namespace

void AddGeoCommands(std::vector<Command>* table) { table->push_back({"geoadd", -5, GeoAdd}); }

}  // namespace teksdb::server
