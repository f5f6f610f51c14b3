// Geohash (geohash.h): each coordinate scaled to 26 bits of its range,
// then the two interleaved; decoding undoes both.
#include "geohash.h"

#include <cmath>
#include <initializer_list>

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

// The even bits of `x` gathered into 32 bits.
uint32_t GatherBits(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

uint32_t Scaled(double value, double min, double max, int step) {
  const double offset = (value - min) / (max - min);
  return static_cast<uint32_t>(offset * static_cast<double>(1ULL << step));
}

uint64_t EncodeIn(double longitude, double latitude, double latitude_min, double latitude_max,
                  int step = kStep) {
  const uint32_t lat = Scaled(latitude, latitude_min, latitude_max, step);
  const uint32_t lon = Scaled(longitude, kLongitudeMin, kLongitudeMax, step);
  return SpreadBits(lat) | (SpreadBits(lon) << 1);
}

// A cell's bound along one coordinate: `index` of 2^step steps of the range.
double Bound(uint32_t index, double min, double max, int step = kStep) {
  return min + (index * 1.0 / static_cast<double>(1ULL << step)) * (max - min);
}

// A cell's bounds.
struct Area {
  double longitude_min, longitude_max, latitude_min, latitude_max;
};
Area AreaOf(const Cell& cell) {
  const uint32_t lat = GatherBits(cell.bits), lon = GatherBits(cell.bits >> 1);
  return {Bound(lon, kLongitudeMin, kLongitudeMax, cell.step),
          Bound(lon + 1, kLongitudeMin, kLongitudeMax, cell.step),
          Bound(lat, kLatitudeMin, kLatitudeMax, cell.step),
          Bound(lat + 1, kLatitudeMin, kLatitudeMax, cell.step)};
}

// The cell `dx` cells east and `dy` north of `cell` (Redis's
// geohash_move_x / _y: longitude on the odd bits, latitude on the even).
Cell Moved(Cell cell, int dx, int dy) {
  const int shift = 64 - cell.step * 2;
  const auto move = [&](uint64_t mask, int d) {
    uint64_t mine = cell.bits & mask, other = cell.bits & ~mask;
    const uint64_t zz = (~mask) >> shift;  // the other coordinate's bits of the cell
    if (d > 0) {
      mine = mine + (zz + 1);
    } else {
      mine = (mine | zz) - (zz + 1);
    }
    mine &= mask >> shift;
    cell.bits = mine | other;
  };
  if (dx != 0) move(0xaaaaaaaaaaaaaaaaULL, dx);
  if (dy != 0) move(0x5555555555555555ULL, dy);
  return cell;
}

// Redis's step for a search of `meters` around `latitude`.
int StepFor(double meters, double latitude) {
  constexpr double kMercatorMax = 20037726.37;
  if (meters == 0) return kStep;
  int step = 1;
  while (meters < kMercatorMax) {
    meters *= 2;
    step++;
  }
  step -= 2;
  if (latitude > 66 || latitude < -66) {
    step--;
    if (latitude > 80 || latitude < -80) step--;
  }
  return step < 1 ? 1 : step > kStep ? kStep : step;
}

double Clamp(double v, double min, double max) { return v > max ? max : v < min ? min : v; }

constexpr double kDegreesToRadians = M_PI / 180.0;
constexpr double kEarthRadiusMeters = 6372797.560856;

// The hash bits of a score, as x86-64's (uint64_t) cast gives them.
uint64_t BitsOfScore(double score) {
  constexpr double k2To63 = 9223372036854775808.0;
  if (std::isnan(score) || score >= 2 * k2To63) return 0;
  if (score < -k2To63) return 0x8000000000000000ULL;
  if (score < 0) return static_cast<uint64_t>(static_cast<int64_t>(score));
  return static_cast<uint64_t>(score);
}

}  // namespace

uint64_t Encode(double longitude, double latitude) {
  return EncodeIn(longitude, latitude, kLatitudeMin, kLatitudeMax);
}

void CoveringCells(const Shape& shape, Cell cells[9]) {
  // The bounding box (Redis's geohashBoundingBox).
  const double height = shape.to_meters * (shape.box ? shape.height / 2 : shape.radius);
  const double width = shape.to_meters * (shape.box ? shape.width / 2 : shape.radius);
  const double lat_delta = (height / kEarthRadiusMeters) / kDegreesToRadians;
  const double lon_delta_top =
      (width / kEarthRadiusMeters / std::cos((shape.latitude + lat_delta) * kDegreesToRadians)) /
      kDegreesToRadians;
  const double lon_delta_bottom =
      (width / kEarthRadiusMeters / std::cos((shape.latitude - lat_delta) * kDegreesToRadians)) /
      kDegreesToRadians;
  const bool south = shape.latitude < 0;
  const double min_lon = shape.longitude - (south ? lon_delta_bottom : lon_delta_top);
  const double max_lon = shape.longitude + (south ? lon_delta_bottom : lon_delta_top);
  const double min_lat = shape.latitude - lat_delta, max_lat = shape.latitude + lat_delta;
  double meters = shape.box ? std::sqrt((shape.width / 2) * (shape.width / 2) +
                                        (shape.height / 2) * (shape.height / 2))
                            : shape.radius;
  meters *= shape.to_meters;
  int step = StepFor(meters, shape.latitude);
  const auto cells_at = [&](int s) {
    const Cell centre{EncodeIn(shape.longitude, shape.latitude, kLatitudeMin, kLatitudeMax, s), s};
    cells[0] = centre;
    cells[1] = Moved(centre, 0, 1);    // north
    cells[2] = Moved(centre, 0, -1);   // south
    cells[3] = Moved(centre, 1, 0);    // east
    cells[4] = Moved(centre, -1, 0);   // west
    cells[5] = Moved(centre, 1, 1);    // north-east
    cells[6] = Moved(centre, -1, 1);   // north-west
    cells[7] = Moved(centre, 1, -1);   // south-east
    cells[8] = Moved(centre, -1, -1);  // south-west
  };
  cells_at(step);
  // A neighbour too near to cover the box: one step coarser.
  if (step > 1 && (AreaOf(cells[1]).latitude_max < max_lat ||
                   AreaOf(cells[2]).latitude_min > min_lat ||
                   AreaOf(cells[3]).longitude_max < max_lon ||
                   AreaOf(cells[4]).longitude_min > min_lon)) {
    cells_at(--step);
  }
  // Neighbours the box cannot reach.
  if (step >= 2) {
    const Area area = AreaOf(cells[0]);
    const auto drop = [&](std::initializer_list<int> which) {
      for (int i : which) cells[i] = Cell{};
    };
    if (area.latitude_min < min_lat) drop({2, 8, 7});
    if (area.latitude_max > max_lat) drop({1, 5, 6});
    if (area.longitude_min < min_lon) drop({4, 8, 6});
    if (area.longitude_max > max_lon) drop({3, 7, 5});
  }
}

void CellScores(const Cell& cell, uint64_t* min, uint64_t* max) {
  const int shift = 52 - cell.step * 2;
  *min = cell.bits << shift;
  *max = (cell.bits + 1) << shift;
}

bool Within(const Shape& shape, double longitude, double latitude, double* distance) {
  if (!shape.box) {
    *distance = Distance(shape.longitude, shape.latitude, longitude, latitude);
    return *distance <= shape.radius * shape.to_meters;
  }
  const double width = shape.width * shape.to_meters, height = shape.height * shape.to_meters;
  const double lat_distance = kEarthRadiusMeters * std::fabs(shape.latitude * kDegreesToRadians -
                                                             latitude * kDegreesToRadians);
  if (lat_distance > height / 2) return false;
  if (Distance(longitude, latitude, shape.longitude, latitude) > width / 2) return false;
  *distance = Distance(shape.longitude, shape.latitude, longitude, latitude);
  return true;
}

void DecodeScore(double score, double* longitude, double* latitude) {
  const uint64_t bits = BitsOfScore(score);
  const uint32_t lat = GatherBits(bits), lon = GatherBits(bits >> 1);
  *latitude = Clamp((Bound(lat, kLatitudeMin, kLatitudeMax) +
                     Bound(lat + 1, kLatitudeMin, kLatitudeMax)) / 2,
                    kLatitudeMin, kLatitudeMax);
  *longitude = Clamp((Bound(lon, kLongitudeMin, kLongitudeMax) +
                      Bound(lon + 1, kLongitudeMin, kLongitudeMax)) / 2,
                     kLongitudeMin, kLongitudeMax);
}

std::string StandardText(double longitude, double latitude) {
  static const char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  const uint64_t bits = EncodeIn(longitude, latitude, -90, 90);
  std::string text;
  for (int i = 0; i < 10; ++i) text.push_back(kAlphabet[(bits >> (52 - (i + 1) * 5)) & 0x1f]);
  text.push_back('0');
  return text;
}

double Distance(double longitude1, double latitude1, double longitude2, double latitude2) {
  const double v = std::sin((longitude2 * kDegreesToRadians - longitude1 * kDegreesToRadians) / 2);
  if (v == 0.0) {
    return kEarthRadiusMeters *
           std::fabs(latitude2 * kDegreesToRadians - latitude1 * kDegreesToRadians);
  }
  const double lat1 = latitude1 * kDegreesToRadians, lat2 = latitude2 * kDegreesToRadians;
  const double u = std::sin((lat2 - lat1) / 2);
  const double a = u * u + std::cos(lat1) * std::cos(lat2) * v * v;
  return 2.0 * kEarthRadiusMeters * std::asin(std::sqrt(a));
}

}  // namespace teksdb::server::geohash
