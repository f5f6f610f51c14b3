// Geohash (geohash.h): each coordinate scaled to 26 bits of its range,
// then the two interleaved.
#include "geohash.h"

namespace teksdb::server::geohash {
namespace {

// The 32 bits of `v` spread to the even bits of a 64-bit word.
uint64_t SpreadBits(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

uint32_t Scaled(double value, double min, double max) {
  const double offset = (value - min) / (max - min);
  return static_cast<uint32_t>(offset * static_cast<double>(1ULL << kStep));
}

}  // namespace

uint64_t Encode(double longitude, double latitude) {
  const uint32_t lat = Scaled(latitude, kLatitudeMin, kLatitudeMax);
  const uint32_t lon = Scaled(longitude, kLongitudeMin, kLongitudeMax);
  return SpreadBits(lat) | (SpreadBits(lon) << 1);
}

}  // namespace teksdb::server::geohash
