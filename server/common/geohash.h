// Geohash: Redis's 52-bit geohash of a longitude and latitude (26 bits
// each, interleaved: latitude's on even bits, longitude's on odd), the
// score GEOADD stores a member under, so that scores agree with Redis's
// for the same coordinates. Latitudes are limited to Web Mercator's
// +-85.05112878 degrees, as in Redis.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>

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

}  // namespace teksdb::server::geohash
