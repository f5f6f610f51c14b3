// GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and their _RO
// forms, as Redis 7.0 answers them (its georadiusGeneric): the places of a
// GEO sorted set within a circle or a box around a point or a member,
// found as Redis finds them (the cells of common/geohash.h's
// CoveringCells, each a score range of the sorted set, in Redis's order,
// a cell equal to the one searched just before it skipped), then sorted by
// distance when asked (ASC, DESC, or ASC for COUNT without ANY), cut to
// COUNT, and replied (WITHDIST, WITHHASH, WITHCOORD) or stored as a sorted
// set (STORE: by geohash, STOREDIST: by distance; none found deletes it).
//
// Runs under the lock of the searched key (its ranges are read as one) and
// of the destination.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "ascii_case.h"
#include "collection.h"
#include "command_info.h"
#include "commands.h"
#include "geohash.h"
#include "geo_units.h"
#include "long_double_text.h"
#include "resp_reply.h"
#include "sorted_set.h"
#include "strict_integer.h"

namespace teksdb::server {
namespace {

enum Form { kRadius, kRadiusByMember, kSearch, kSearchStore };

struct Point {
  std::string member;
  double score, longitude, latitude, distance;
};

// Redis's getDoubleFromObjectOrReply, with its message when given.
bool ParseDouble(Request& r, const std::string& arg, const char* message, double* value) {
  if (ParseScore(arg, value)) return true;
  reply::Error(r.out, message != nullptr ? std::string("ERR ") + message : kNotFloat);
  return false;
}

bool ParseUnit(Request& r, const std::string& arg, double* to_meters) {
  *to_meters = UnitMeters(arg);
  if (*to_meters >= 0) return true;
  reply::Error(r.out, kUnknownUnit);
  return false;
}

bool ParseLonLat(Request& r, size_t at, geohash::Shape* shape) {
  if (!ParseDouble(r, r.args[at], nullptr, &shape->longitude) ||
      !ParseDouble(r, r.args[at + 1], nullptr, &shape->latitude)) {
    return false;
  }
  if (geohash::ValidCoordinates(shape->longitude, shape->latitude)) return true;
  char error[160];
  std::snprintf(error, sizeof(error), "ERR invalid longitude,latitude pair %f,%f",
                shape->longitude, shape->latitude);
  reply::Error(r.out, error);
  return false;
}

bool ParseRadius(Request& r, size_t at, geohash::Shape* shape) {
  if (!ParseDouble(r, r.args[at], "need numeric radius", &shape->radius)) return false;
  if (shape->radius < 0) return reply::Error(r.out, "ERR radius cannot be negative"), false;
  shape->box = false;
  return ParseUnit(r, r.args[at + 1], &shape->to_meters);
}

bool ParseBox(Request& r, size_t at, geohash::Shape* shape) {
  if (!ParseDouble(r, r.args[at], "need numeric width", &shape->width) ||
      !ParseDouble(r, r.args[at + 1], "need numeric height", &shape->height)) {
    return false;
  }
  if (shape->width < 0 || shape->height < 0) {
    return reply::Error(r.out, "ERR height or width cannot be negative"), false;
  }
  shape->box = true;
  return ParseUnit(r, r.args[at + 2], &shape->to_meters);
}

// The place of `member` in the open sorted set: false if it has none.
bool PlaceOf(Request& r, Collection* zset, const std::string& member, geohash::Shape* shape,
             bool* found) {
  std::optional<double> score;
  if (!ReadScore(r, zset, member, true, &score)) return false;
  *found = score.has_value();
  if (*found) geohash::DecodeScore(*score, &shape->longitude, &shape->latitude);
  return true;
}

// The points of the open sorted set inside the shape, as Redis collects
// them; at most `limit` (0: all).
bool Collect(Request& r, Collection* zset, const geohash::Shape& shape, size_t limit,
             std::vector<Point>* points) {
  geohash::Cell cells[9];
  geohash::CoveringCells(shape, cells);
  int last = 0;  // the cell searched last (Redis never compares with the centre's)
  for (int i = 0; i < 9; ++i) {
    if (cells[i].bits == 0 && cells[i].step == 0) continue;
    if (last != 0 && cells[i].bits == cells[last].bits && cells[i].step == cells[last].step) {
      continue;
    }
    if (limit != 0 && points->size() >= limit) break;
    uint64_t min, max;
    geohash::CellScores(cells[i], &min, &max);
    bool ok = zset->ForEachIndexEntry(
        r,
        [&](const std::string& entry) {
          const double score = EntryScore(entry);
          if (score >= static_cast<double>(max)) return false;
          Point p{std::string(EntryMember(entry)), score, 0, 0, 0};
          geohash::DecodeScore(score, &p.longitude, &p.latitude);
          if (geohash::Within(shape, p.longitude, p.latitude, &p.distance)) {
            points->push_back(std::move(p));
          }
          return limit == 0 || points->size() < limit;
        },
        IndexEntry(static_cast<double>(min), ""));
    if (!ok) return false;
    last = i;
  }
  return true;
}

// Stores the points as a sorted set at `destination` (replacing it), or
// deletes it when there are none: false having replied.
bool Store(Request& r, const std::string& destination, const std::vector<Point>& points,
           bool by_distance, double to_meters) {
  Collection stored;
  if (!stored.Replace(r, Keyspace::kZSet, destination)) return false;
  for (const Point& p : points) {
    if (!SetScore(r, &stored, p.member, by_distance ? p.distance / to_meters : p.score,
                  std::nullopt)) {
      return false;
    }
  }
  return stored.Commit(r);
}

void Search(Request& r, Form form, bool read_only) {
  const bool search = form == kSearch || form == kSearchStore;
  const size_t source_at = form == kSearchStore ? 2 : 1;
  const std::string& source = r.args[source_at];
  // GEOSEARCHSTORE's destination; GEORADIUS's STORE is found below.
  std::optional<std::string> destination;
  if (form == kSearchStore) destination = r.args[1];
  // The searched key's lock, and a STORE destination's (the request's keys,
  // as COMMAND GETKEYS names them).
  std::vector<std::string> keys;
  bool whole_keyspace = false;
  AppendRequestKeys(r.args, &keys, &whole_keyspace);
  auto locks = r.keyspace->LockKeys(keys);
  Collection zset;
  if (!zset.Open(r, Keyspace::kZSet, source)) return;
  geohash::Shape shape;
  size_t first_option;
  if (form == kRadius) {
    first_option = 6;
    if (!ParseLonLat(r, 2, &shape) || !ParseRadius(r, 4, &shape)) return;
  } else if (form == kRadiusByMember) {
    first_option = 5;
    if (zset.exists()) {
      bool found;
      if (!PlaceOf(r, &zset, r.args[2], &shape, &found)) return;
      if (!found) return reply::Error(r.out, "ERR could not decode requested zset member");
      if (!ParseRadius(r, 3, &shape)) return;
    }
  } else {
    first_option = form == kSearchStore ? 3 : 2;
  }
  bool with_dist = false, with_hash = false, with_coord = false, any = false;
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
  bool store_dist = false;
  int order = 0;  // 1 ASC, -1 DESC
  int64_t count = 0;
  const size_t n = r.args.size();
  for (size_t i = first_option; i < n; ++i) {
    const std::string option = AsciiLower(r.args[i]);
    const size_t left = n - i - 1;
    if (option == "withdist") {
      with_dist = true;
    } else if (option == "withhash") {
      with_hash = true;
    } else if (option == "withcoord") {
      with_coord = true;
    } else if (option == "any") {
      any = true;
    } else if (option == "asc") {
      order = 1;
    } else if (option == "desc") {
      order = -1;
    } else if (option == "count" && left >= 1) {
      if (!ParseStrictInt64(r.args[++i], &count)) return reply::Error(r.out, kNotInteger);
      if (count <= 0) return reply::Error(r.out, "ERR COUNT must be > 0");
    } else if ((option == "store" || option == "storedist") && left >= 1 && !read_only && !search) {
      destination = r.args[++i];
      store_dist = option == "storedist";
    } else if (option == "storedist" && form == kSearchStore) {
      store_dist = true;
    } else if (option == "frommember" && left >= 1 && search && !from_lonlat) {
      from_member = true;
      if (!zset.exists()) {
        ++i;
        continue;
      }
      bool found;
      if (!PlaceOf(r, &zset, r.args[++i], &shape, &found)) return;
      if (!found) return reply::Error(r.out, "ERR could not decode requested zset member");
    } else if (option == "fromlonlat" && left >= 2 && search && !from_member) {
      if (!ParseLonLat(r, i + 1, &shape)) return;
      from_lonlat = true;
      i += 2;
    } else if (option == "byradius" && left >= 2 && search && !by_box) {
      if (!ParseRadius(r, i + 1, &shape)) return;
      by_radius = true;
      i += 2;
    } else if (option == "bybox" && left >= 3 && search && !by_radius) {
      if (!ParseBox(r, i + 1, &shape)) return;
      by_box = true;
      i += 3;
    } else {
      return reply::Error(r.out, kSyntaxError);
    }
  }
  if (destination && (with_dist || with_hash || with_coord)) {
    return reply::Error(r.out, std::string("ERR ") +
                                   (form == kSearchStore ? "GEOSEARCHSTORE"
                                                         : "STORE option in GEORADIUS") +
                                   " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
  }
  if (search && !(from_member || from_lonlat)) {
    return reply::Error(r.out, "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                                   r.args[0]);
  }
  if (search && !(by_radius || by_box)) {
    return reply::Error(r.out, "ERR exactly one of BYRADIUS and BYBOX can be specified for " +
                                   r.args[0]);
  }
  if (any && count == 0) return reply::Error(r.out, "ERR the ANY argument requires COUNT argument");
  std::vector<Point> points;
  if (zset.exists()) {
    if (count != 0 && order == 0 && !any) order = 1;
    if (!Collect(r, &zset, shape, any ? static_cast<size_t>(count) : 0, &points)) return;
    if (order != 0) {
      std::stable_sort(points.begin(), points.end(), [&](const Point& a, const Point& b) {
        return order > 0 ? a.distance < b.distance : a.distance > b.distance;
      });
    }
    if (count != 0 && points.size() > static_cast<size_t>(count)) points.resize(static_cast<size_t>(count));
  }
  if (destination) {
    if (Store(r, *destination, points, store_dist, shape.to_meters)) {
      reply::Integer(r.out, static_cast<int64_t>(points.size()));
    }
    return;
  }
  const size_t extras = (with_dist ? 1 : 0) + (with_hash ? 1 : 0) + (with_coord ? 1 : 0);
  reply::ArrayHeader(r.out, points.size());
  for (const Point& p : points) {
    if (extras != 0) reply::ArrayHeader(r.out, extras + 1);
    reply::Bulk(r.out, p.member);
    if (with_dist) reply::Bulk(r.out, FormatDistance(p.distance / shape.to_meters));
    if (with_hash) reply::Integer(r.out, static_cast<int64_t>(p.score));
    if (with_coord) {
      reply::ArrayHeader(r.out, 2);
      reply::Double(r.out, r.protocol(), FormatLongDouble(p.longitude));
      reply::Double(r.out, r.protocol(), FormatLongDouble(p.latitude));
    }
  }
}

void GeoRadius(Request& r) { Search(r, kRadius, false); }
void GeoRadiusRo(Request& r) { Search(r, kRadius, true); }
void GeoRadiusByMember(Request& r) { Search(r, kRadiusByMember, false); }
void GeoRadiusByMemberRo(Request& r) { Search(r, kRadiusByMember, true); }
void GeoSearch(Request& r) { Search(r, kSearch, true); }
void GeoSearchStore(Request& r) { Search(r, kSearchStore, false); }

}  // namespace

void AddGeoSearchCommands(std::vector<Command>* table) {
  table->insert(table->end(), {{"georadius", -6, GeoRadius},
                               {"georadius_ro", -6, GeoRadiusRo},
                               {"georadiusbymember", -5, GeoRadiusByMember},
                               {"georadiusbymember_ro", -5, GeoRadiusByMemberRo},
                               {"geosearch", -7, GeoSearch},
                               {"geosearchstore", -8, GeoSearchStore}});
}

}  // namespace teksdb::server
