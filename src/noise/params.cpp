// Names, parsing and validation of noise and warp parameters.
#include <array>
#include <cmath>
#include <sstream>
#include <string>

#include "terrane/noise.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

template <class E, std::size_t N>
E parse_enum(std::string_view s, const std::array<E, N>& all, const char* what) {
  for (E e : all) {
    if (s == to_string(e)) return e;
  }
  std::string allowed;
  for (E e : all) {
    if (!allowed.empty()) allowed += ", ";
    allowed += to_string(e);
  }
  throw Error(ErrorCategory::invalid_argument, "unknown " + std::string(what) + " '" +
                                                   std::string(s) + "' (allowed: " + allowed + ")");
}

constexpr std::array kNoiseTypes = {NoiseType::perlin,        NoiseType::opensimplex2,
                                    NoiseType::opensimplex2s, NoiseType::value,
                                    NoiseType::value_cubic,   NoiseType::cellular};
constexpr std::array kFractalTypes = {FractalType::none, FractalType::fbm, FractalType::ridged,
                                      FractalType::billow, FractalType::pingpong};
constexpr std::array kDistances = {CellularDistance::euclidean, CellularDistance::manhattan,
                                   CellularDistance::chebyshev};
constexpr std::array kReturns = {CellularReturn::f1, CellularReturn::f2,
                                 CellularReturn::f2_minus_f1, CellularReturn::cell_value};
constexpr std::array kWarpFractals = {WarpFractal::none, WarpFractal::progressive,
                                      WarpFractal::independent};

}  // namespace

const char* to_string(NoiseType t) {
  switch (t) {
    case NoiseType::perlin:
      return "perlin";
    case NoiseType::opensimplex2:
      return "opensimplex2";
    case NoiseType::opensimplex2s:
      return "opensimplex2s";
    case NoiseType::value:
      return "value";
    case NoiseType::value_cubic:
      return "value_cubic";
    case NoiseType::cellular:
      return "cellular";
  }
  return "?";
}
const char* to_string(FractalType t) {
  switch (t) {
    case FractalType::none:
      return "none";
    case FractalType::fbm:
      return "fbm";
    case FractalType::ridged:
      return "ridged";
    case FractalType::billow:
      return "billow";
    case FractalType::pingpong:
      return "pingpong";
  }
  return "?";
}
const char* to_string(CellularDistance t) {
  switch (t) {
    case CellularDistance::euclidean:
      return "euclidean";
    case CellularDistance::manhattan:
      return "manhattan";
    case CellularDistance::chebyshev:
      return "chebyshev";
  }
  return "?";
}
const char* to_string(CellularReturn t) {
  switch (t) {
    case CellularReturn::f1:
      return "f1";
    case CellularReturn::f2:
      return "f2";
    case CellularReturn::f2_minus_f1:
      return "f2_minus_f1";
    case CellularReturn::cell_value:
      return "cell_value";
  }
  return "?";
}
const char* to_string(WarpFractal t) {
  switch (t) {
    case WarpFractal::none:
      return "none";
    case WarpFractal::progressive:
      return "progressive";
    case WarpFractal::independent:
      return "independent";
  }
  return "?";
}

NoiseType parse_noise_type(std::string_view s) {
  return parse_enum(s, kNoiseTypes, "noise type");
}
FractalType parse_fractal_type(std::string_view s) {
  return parse_enum(s, kFractalTypes, "fractal type");
}
CellularDistance parse_cellular_distance(std::string_view s) {
  return parse_enum(s, kDistances, "cellular distance");
}
CellularReturn parse_cellular_return(std::string_view s) {
  return parse_enum(s, kReturns, "cellular return");
}
WarpFractal parse_warp_fractal(std::string_view s) {
  return parse_enum(s, kWarpFractals, "warp fractal");
}

std::span<const Field<NoiseParams>> NoiseParams::fields() {
  using P = NoiseParams;
  static const Field<P> table[] = {
      {"frequency", TERRANE_FIELD_REF(P, frequency), Range::open_lo(0.0, 1000.0)},
      {"seed", TERRANE_FIELD_REF(P, seed)},
      {"octaves", TERRANE_FIELD_REF(P, octaves), Range::closed(1, 16)},
      {"lacunarity", TERRANE_FIELD_REF(P, lacunarity), Range::closed(0.1, 16.0)},
      {"gain", TERRANE_FIELD_REF(P, gain), Range::closed(0.0, 4.0)},
      {"weighted_strength", TERRANE_FIELD_REF(P, weighted_strength), Range::closed(0.0, 1.0)},
      {"pingpong_strength", TERRANE_FIELD_REF(P, pingpong_strength), Range::open_lo(0.0, 64.0)},
      {"jitter", TERRANE_FIELD_REF(P, cellular_jitter), Range::closed(0.0, 1.0)},
  };
  return table;
}

void NoiseParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
}

void WarpParams::validate(std::string_view path) const {
  if (basis == NoiseType::cellular) {
    throw Error(ErrorCategory::invalid_argument,
                std::string(path) +
                    ".basis = cellular is not allowed for a warp (allowed: perlin, opensimplex2, "
                    "opensimplex2s, value, value_cubic)");
  }
  check_fields(*this, fields(), path);
}

std::span<const Field<WarpParams>> WarpParams::fields() {
  using P = WarpParams;
  static const Field<P> table[] = {
      {"frequency", TERRANE_FIELD_REF(P, frequency), Range::open_lo(0.0, 1000.0)},
      {"seed", TERRANE_FIELD_REF(P, seed)},
      {"amplitude_m", TERRANE_FIELD_REF(P, amplitude_m), Range::closed(0.0, 1e6)},
      {"octaves", TERRANE_FIELD_REF(P, octaves), Range::closed(1, 16)},
      {"lacunarity", TERRANE_FIELD_REF(P, lacunarity), Range::closed(0.1, 16.0)},
      {"gain", TERRANE_FIELD_REF(P, gain), Range::closed(0.0, 4.0)},
  };
  return table;
}

}  // namespace terrane
