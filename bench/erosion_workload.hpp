// The erosion benchmark terrain, shared by bench/erosion_bench.cpp and `terrane bench erosion`
// so both measure the same map: a 6-octave OpenSimplex2 fBm of 2 cycles across the map, scaled
// to +-amplitude_m metres, at 1 m spacing.
#pragma once

#include "terrane/core.hpp"
#include "terrane/noise.hpp"

namespace terrane::bench {

inline Field2D erosion_bench_terrain(int side, double amplitude_m) {
  NoiseParams p;
  p.type = NoiseType::opensimplex2;
  p.fractal = FractalType::fbm;
  p.octaves = 6;
  p.frequency = 2.0 / side;
  Field2D f(GridSpec{.width = side, .height = side, .spacing_m = 1.0});
  noise_fill(p, f.grid, f.data);
  for (float& v : f.data) v *= float(amplitude_m);
  return f;
}

}  // namespace terrane::bench
