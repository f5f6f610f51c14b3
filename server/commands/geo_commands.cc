// GEOADD key [NX|XX] [CH] longitude latitude member [...], as Redis 7.0
// answers it: each place a member of the sorted set `key`, scored by its
// 52-bit geohash (common/geohash.h), through ZADD's own work. GEOPOS,
// GEODIST and GEOHASH read those scores back without the key's lock (a
// missed member is checked, as every unlocked read); docs/COMMANDS.md says
// which GEO commands exist.
#include <cmath>
#include <cstdio>
#include <optional>

#include "ascii_case.h"
#include "commands.h"
#include "collection.h"
#include "geohash.h"
#include "geo_units.h"
#include "long_double_text.h"
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

using Place = std::optional<std::pair<double, double>>;  // longitude, latitude

// The places of `members` in the sorted set r.args[1] (nullopt: no such
// member, or no such key): false having replied (WRONGTYPE, storage) or set
// r.retry.
bool ReadPlaces(Request& r, const std::vector<std::string>& members, std::vector<Place>* places) {
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet)) return false;
  for (const std::string& member : members) {
    std::optional<double> score;
    if (zset.exists() && !ReadScore(r, &zset, member, false, &score)) return false;
    places->emplace_back();
    if (!score) continue;
    double longitude, latitude;
    geohash::DecodeScore(*score, &longitude, &latitude);
    places->back() = std::make_pair(longitude, latitude);
  }
  return true;
}

void GeoPos(Request& r) {
  std::vector<Place> places;
  if (!ReadPlaces(r, {r.args.begin() + 2, r.args.end()}, &places)) return;
  reply::ArrayHeader(r.out, places.size());
  for (const Place& place : places) {
    if (!place) {
      reply::NullArray(r.out, r.protocol());
      continue;
    }
    reply::ArrayHeader(r.out, 2);
    reply::Double(r.out, r.protocol(), FormatLongDouble(place->first));
    reply::Double(r.out, r.protocol(), FormatLongDouble(place->second));
  }
}

void GeoHash(Request& r) {
  std::vector<Place> places;
  if (!ReadPlaces(r, {r.args.begin() + 2, r.args.end()}, &places)) return;
  reply::ArrayHeader(r.out, places.size());
  for (const Place& place : places) {
    place ? reply::Bulk(r.out, geohash::StandardText(place->first, place->second))
          : reply::Null(r.out, r.protocol());
  }
}

void GeoDist(Request& r) {
  double meters = 1;
  if (r.args.size() == 5) {
    meters = UnitMeters(r.args[4]);
    if (meters < 0) {
      return reply::Error(r.out, kUnknownUnit);
    }
  } else if (r.args.size() > 5) {
    return reply::Error(r.out, kSyntaxError);
  }
  std::vector<Place> places;
  if (!ReadPlaces(r, {r.args[2], r.args[3]}, &places)) return;
  if (!places[0] || !places[1]) return reply::Null(r.out, r.protocol());
  reply::Bulk(r.out, FormatDistance(geohash::Distance(places[0]->first, places[0]->second,
                                                      places[1]->first, places[1]->second) /
                                    meters));
}

}  // namespace

void AddGeoCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"geoadd", -5, GeoAdd},
                               {"geopos", -2, GeoPos},
                               {"geohash", -2, GeoHash},
                               {"geodist", -4, GeoDist}});
}

}  // namespace teksdb::server
