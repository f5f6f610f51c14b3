// Geohash: Redis's 52-bit geohash of a longitude and latitude (26 bits
// each, interleaved: latitude's on even bits, longitude's on odd), the
// score GEOADD stores a member under, so that scores agree with Redis's
// for the same coordinates; its decoding back to the centre of the cell,
// the standard geohash text GEOHASH gives, and the great-circle distance
// Redis measures. Latitudes are limited to Web Mercator's +-85.05112878
// degrees, as in Redis.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace teksdb::server::geohash {

constexpr double kLongitudeMin = -180, kLongitudeMax = 180;
constexpr double kLatitudeMin = -85.05112878, kLatitudeMax = 85.05112878;
constexpr int kStep = 26;  // bits per coordinate

// Whether Redis accepts the pair.
inline bool ValidCoordinates(double longitude, double latitude) {
  return longitude >= kLongitudeMin && longitude <= kLongitudeMax && latitude >= kLatitudeMin &&
         latitude <= kLatitudeMax;
}

// The 52-bit hash. REQUIRES ValidCoordinates.
uint64_t Encode(double longitude, double latitude);

// The centre of the cell a sorted-set score names, clamped to the limits;
// any score is read as Redis's (uint64_t) cast of it gives its bits on
// x86-64 (GEOPOS may read a set GEOADD never wrote).
void DecodeScore(double score, double* longitude, double* latitude);
// GEOHASH's 11 characters: the point re-encoded over latitudes -90..90 (the
// standard geohash), base 32, the eleventh character always '0'.
std::string StandardText(double longitude, double latitude);
// Meters between two points on Redis's sphere (haversine, radius
// 6372797.560856 m).
double Distance(double longitude1, double latitude1, double longitude2, double latitude2);

// A search area, as GEOSEARCH and GEORADIUS name it: a circle of `radius`
// or a box of `width` by `height` around a point, in a unit of
// `to_meters` meters (kept apart, as Redis multiplies them, so that what
// falls inside agrees with Redis to the last bit).
struct Shape {
  double longitude = 0, latitude = 0;
  bool box = false;
  double radius = 0, width = 0, height = 0;
  double to_meters = 1;
};
// A geohash cell of `step` bits per coordinate (step 0: none).
struct Cell {
  uint64_t bits = 0;
  int step = 0;
};
// The cells Redis searches for a shape, in its order: the centre's, then
// north, south, east, west, north-east, north-west, south-east and
// south-west (those the shape cannot reach left at step 0).
void CoveringCells(const Shape& shape, Cell cells[9]);
// The scores [*min, *max) of the points inside a cell.
void CellScores(const Cell& cell, uint64_t* min, uint64_t* max);
// Whether a point lies in the shape, and then its distance from the
// shape's centre in meters.
bool Within(const Shape& shape, double longitude, double latitude, double* distance);

}  // namespace teksdb::server::geohash
