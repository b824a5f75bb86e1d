// Hydrology of a height field: drainage area, rivers, lakes, sea.
//
// Lakes are the depressions of the Priority-Flood filled surface (Barnes, Lehman & Mulla 2014):
// cells whose filled level is above the terrain hold water up to that level. Adjacent lake cells
// always share one level (a cell's level is at most max(its height, a neighbour's level)), so a
// lake is an 8-connected component of such cells. Its outlet is where its drainage path (see
// flow_routing.cpp) first leaves it: a rim cell whose height is the lake level. Rivers are cells
// whose drainage area (O'Callaghan & Mark 1984) reaches a threshold.
#include <algorithm>
#include <cmath>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;
namespace cd = core_detail;

std::span<const Field<HydrologyParams>> HydrologyParams::fields() {
  using P = HydrologyParams;
  static const Field<P> table[] = {
      {"river_area_m2", TERRANE_FIELD_REF(P, river_area_m2), Range::open_lo(0.0, 1e300)},
      {"min_lake_depth_m", TERRANE_FIELD_REF(P, min_lake_depth_m), Range::closed(0.0, 1e9)},
  };
  return table;
}

void HydrologyParams::validate(std::string_view path) const {
  routing.validate(std::string(path) + ".routing");
  check_fields(*this, fields(), path);
}

void compute_hydrology(const Field2D& heights, const HydrologyParams& params, Hydrology& out,
                       const ExecContext& ctx, HydrologyParts keep) {
  params.validate();
  // Where the routing is not kept, a map without pits (a breached one) has the heights as its
  // filled levels and no lakes: its drainage area is formed without the routing where the cells
  // can be counted, and otherwise the routing makes no copy of its levels and goes once the
  // drainage area has been formed.
  const bool area_without_routing =
      !keep.routing &&
      ed::drainage_without_pits(heights, params.routing, out.drainage_area_m2, ctx);
  // Where the routing is not kept and the cells can be counted, the routing gives its
  // receivers as codes with their donor masks (1 byte each, not 4 for the receivers and 4 for
  // the order), and the cells are counted by walks from the outlets.
  const bool by_codes = !area_without_routing && !keep.routing &&
                        ed::exact_cell_multiples(heights.grid.spacing_m * heights.grid.spacing_m,
                                                 heights.grid.sample_count());
  if (area_without_routing) {
    out.routing = {};
  } else {
    // A result kept with the outputs: no working memory held with it, and none beside the
    // filled levels while they are computed.
    out.routing.keep_scratch = false;
    if (by_codes) {
      out.routing.parts = {
          .order = false, .levels = true, .levels_only_with_pits = true, .receiver_codes = true};
    } else {
      out.routing.parts = {.levels_only_with_pits = !keep.routing};
    }
    compute_flow_routing(heights, params.routing, out.routing, ctx);
  }
  const bool levels_are_heights =
      area_without_routing || (!keep.routing && out.routing.filled_m.empty());
  const GridSpec& g = heights.grid;
  const int w = g.width, h = g.height;
  const std::size_t n = g.sample_count();
  const float* hs = heights.data.data();
  const float sea = float(params.routing.sea_level_m);
  const ExecContext inner = ed::quiet(ctx);
  const bool use_sea = params.routing.use_sea_level;
  const ed::NeighbourOffsets nb(w);
  if (by_codes) {
    // The counts in the area's own floats, as bit patterns, then the areas in place:
    // double(count) * cell is what the doubles along an order would have added up to.
    out.drainage_area_m2.grid = g;
    cd::resize_huge(out.drainage_area_m2.data, n, &ctx);
    float* const area = out.drainage_area_m2.data.data();
    ed::count_from_codes(out.routing.receiver_code.data(), out.routing.donor_mask.data(), w, h,
                         area, inner);
    std::vector<std::uint8_t>().swap(out.routing.donor_mask);
    const double cell = g.spacing_m * g.spacing_m;
    parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
      for (std::size_t c = std::size_t(b); c < std::size_t(e); ++c) {
        area[c] = float(double(ed::load_count(&area[c])) * cell);
      }
    });
  } else if (!area_without_routing) {
    flow_accumulation(out.routing, g, {}, out.drainage_area_m2, ctx);
  }
  if (!keep.routing) std::vector<std::uint32_t>().swap(out.routing.order);
  // Where the drainage area is not kept, the cells that reach the river threshold are marked
  // now (rivers, less the lakes and the sea below) and the area goes before the lakes' phase.
  const float river_area = float(params.river_area_m2);
  cd::resize_huge(out.river, n, &ctx);
  if (!keep.drainage_area) {
    const float* area = out.drainage_area_m2.data.data();
    parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t c = b; c < e; ++c) out.river[std::size_t(c)] = area[c] >= river_area;
    });
    out.drainage_area_m2 = {};
  }
  if (levels_are_heights) out.routing = {};  // the receivers too: no lake looks for a spill point
  cd::resize_huge(out.sea, n, &ctx);  // after the order (and the area) have gone, where they can
  parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t c = b; c < e; ++c) out.sea[std::size_t(c)] = use_sea && hs[c] < sea ? 1 : 0;
  });

  // Lakes: connected components of flooded cells, labelled in row-major order of first cell.
  // A cell is marked when it is first reached: with its lake's id, or kShallow when its
  // component is not deep enough to be a lake (kNoLake again below).
  constexpr std::int32_t kShallow = -1;
  const float* f = levels_are_heights ? hs : out.routing.filled_m.data();
  out.lakes.clear();
  // Without pits no cell is flooded, and the ids are needed only where they are kept.
  if (levels_are_heights && !keep.lake_ids) {
    std::vector<std::int32_t>().swap(out.lake_id);
  } else {
    cd::assign_huge(out.lake_id, n, kNoLake, &ctx);
  }
  std::int32_t* id = out.lake_id.data();
  std::vector<std::uint32_t> stack, members;
  const double cell_area = g.spacing_m * g.spacing_m;
  std::int32_t next_id = 1;
  const auto flooded = [&](std::size_t c) {
    return id[c] == kNoLake && f[c] > hs[c] && out.sea[c] == 0;
  };
  for (std::size_t c0 = 0; c0 < n && !levels_are_heights; ++c0) {
    if (!flooded(c0)) continue;
    members.clear();
    stack.assign(1, std::uint32_t(c0));
    id[c0] = kShallow;
    float deepest = 0.0f;
    while (!stack.empty()) {
      const std::uint32_t c = stack.back();
      stack.pop_back();
      members.push_back(c);
      deepest = std::max(deepest, f[c] - hs[c]);
      const int ci = int(c % std::uint32_t(w)), cj = int(c / std::uint32_t(w));
      for (int k = 0; k < 8; ++k) {
        const int ni = ci + ed::kDi[k], nj = cj + ed::kDj[k];
        if (ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
        const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
        if (!flooded(nc)) continue;
        id[nc] = kShallow;
        stack.push_back(std::uint32_t(nc));
      }
    }
    if (double(deepest) < params.min_lake_depth_m) continue;
    Lake lake;
    lake.id = next_id++;
    lake.level_m = double(f[c0]);
    lake.cells = std::int64_t(members.size());
    lake.area_m2 = double(lake.cells) * cell_area;
    std::sort(members.begin(), members.end());  // fixed summation order
    for (std::uint32_t c : members) {
      id[c] = lake.id;
      lake.volume_m3 += (double(f[c]) - double(hs[c])) * cell_area;
    }
    std::uint32_t s = members.front();
    while (id[s] == lake.id) {
      s = by_codes ? nb.receiver(s, out.routing.receiver_code[s]) : out.routing.receiver[s];
    }
    lake.spill_i = int(s % std::uint32_t(w));
    lake.spill_j = int(s / std::uint32_t(w));
    out.lakes.push_back(lake);
  }

  // Water levels and rivers. Without the routing, its filled levels become the water levels in
  // place (a lake cell's water level is its filled level). Without lakes, the levels are the
  // heights and the sea level: a caller that says so reads them there.
  const bool water_kept = !(keep.water_level_only_with_lakes && out.lakes.empty());
  out.water_level_m = {};
  if (water_kept) {
    out.water_level_m.grid = g;
    if (keep.routing || levels_are_heights) {
      cd::resize_huge(out.water_level_m.data, n, &ctx);
    } else {
      out.water_level_m.data = std::move(out.routing.filled_m);  // f still points into it
      out.routing = {};
    }
  }
  const float* area = keep.drainage_area ? out.drainage_area_m2.data.data() : nullptr;
  float* water = water_kept ? out.water_level_m.data.data() : nullptr;
  parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
    for (std::size_t c = std::size_t(b); c < std::size_t(e); ++c) {
      if (id != nullptr && id[c] == kShallow) id[c] = kNoLake;
      const bool lake = id != nullptr && id[c] != kNoLake;
      if (water != nullptr) water[c] = lake ? f[c] : out.sea[c] != 0 ? sea : hs[c];
      const bool reach = area != nullptr ? area[c] >= river_area : out.river[c] != 0;
      out.river[c] = (!lake && out.sea[c] == 0 && reach) ? 1 : 0;
    }
  });
  if (!keep.routing) out.routing = {};
  if (!keep.lake_ids) std::vector<std::int32_t>().swap(out.lake_id);
  if (!keep.sea) std::vector<std::uint8_t>().swap(out.sea);
}

}  // namespace terrane
