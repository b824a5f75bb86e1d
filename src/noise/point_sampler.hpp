// Noise at many scattered points with one preparation (scatter's cluster noise): the same bits
// as noise_at, a 1 x 1 grid at each point, without a sampler (validation, tables, allocations)
// per point. Internal to the library.
#pragma once

#include <memory>

#include "terrane/noise.hpp"

namespace terrane {

class NoisePointSampler {
 public:
  // Validates p; simd as for NoiseGridSampler.
  NoisePointSampler(const NoiseParams& p, SimdTarget simd = SimdTarget::best);
  ~NoisePointSampler();
  NoisePointSampler(NoisePointSampler&&) noexcept;
  NoisePointSampler& operator=(NoisePointSampler&&) noexcept;

  // NoiseGridSampler(p, {1 x 1 at (x_m, z_m)}, simd).row(0, 0, ...), bit for bit; allocates
  // nothing and may be called from any number of threads at once.
  float at(double x_m, double z_m) const;

 private:
  std::unique_ptr<NoiseGridSampler::Impl> impl_;
};

}  // namespace terrane
