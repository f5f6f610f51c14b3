// GeoUnits: what the GEO commands share of Redis's units and distance
// text: meters per unit (m, km, ft, mi, any case) and a distance written
// with 4 decimals, rounded (Redis's fixedpoint_d2string).
//
// Thread safety: pure functions.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ascii_case.h"

namespace teksdb::server {

constexpr const char* kUnknownUnit = "ERR unsupported unit provided. please use M, KM, FT, MI";

// Meters per unit, or a negative number for a unit Redis does not know.
inline double UnitMeters(const std::string& unit) {
  const std::string u = AsciiLower(unit);
  if (u == "m") return 1;
  if (u == "km") return 1000;
  if (u == "ft") return 0.3048;
  if (u == "mi") return 1609.34;
  return -1;
}

inline std::string FormatDistance(double d) {
  const long long scaled = std::llrint(d * 10000.0);
  char text[64];
  std::snprintf(text, sizeof(text), "%s%lld.%04lld", scaled < 0 ? "-" : "",
                std::llabs(scaled / 10000), std::llabs(scaled % 10000));
  return text;
}

}  // namespace teksdb::server
