// Helpers shared by the erosion module's algorithm files (not public API).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "terrane/core.hpp"
#include "terrane/schema.hpp"

namespace terrane::erosion_detail {

// An ExecContext for inner parallel loops: the same threads, SIMD target, cancellation and log,
// no progress (the caller reports progress at its own granularity).
inline ExecContext quiet(const ExecContext& ctx) {
  ExecContext q = ctx;
  q.progress = nullptr;
  return q;
}

inline void check_cancel(const ExecContext& ctx) {
  throw_if_cancelled(ctx);
}

inline void report(const ExecContext& ctx, double fraction) {
  if (ctx.progress) ctx.progress(fraction);
}

// The 8 neighbours in a fixed order: E, W, S, N (axial, distance 1), then SE, SW, NE, NW
// (diagonal, distance sqrt 2). "S" is +j.
inline constexpr int kDi[8] = {1, -1, 0, 0, 1, -1, 1, -1};
inline constexpr int kDj[8] = {0, 0, 1, -1, 1, 1, -1, -1};

}  // namespace terrane::erosion_detail

#include <functional>
#include <span>
#include <vector>

namespace terrane::erosion_detail {

// Walks along a flow order touch cells far apart on the map, so they wait on memory: each
// fetches what the cell kAhead places on in the order will read (its receiver, its own values)
// and, half as far on, its receiver's values (the receiver is in cache by then).
inline constexpr std::size_t kAhead = 16;

inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

// Chunk size for parallel loops over the parts of a flow order (FlowRouting::part_begin): one
// part per task where there are few (each may be large), more where a map with a long
// coastline has tens of thousands of small ones.
inline std::int64_t part_grain(std::size_t parts) {
  return std::max<std::int64_t>(1, std::int64_t(parts / 256));
}

// Drainage accumulation: area[receiver[c]] += area[c] for the cells of `order` from last to
// first (donors before receivers), outlets (receiver[c] == c) keeping theirs. The sums, and so
// their bits, are in the order's sequence. `add(a, b)` gives a + b (flow_accumulation's cell
// counts are held as floats' bit patterns).
template <class T, class Add = std::plus<>>
inline void accumulate_downstream(const std::uint32_t* order, const std::uint32_t* receiver,
                                  T* area, std::size_t n, Add add = {}) {
  for (std::size_t k = n; k-- > 0;) {
    if (k >= kAhead) {
      const std::uint32_t far = order[k - kAhead];
      prefetch(&receiver[far]);
      prefetch(&area[far]);
      prefetch(&area[receiver[order[k - kAhead / 2]]]);
    }
    const std::uint32_t c = order[k];
    const std::uint32_t r = receiver[c];
    if (r != c) area[r] = add(area[r], area[c]);
  }
}

// Whether every multiple k * cell, k = 1..n, is a double: cell = m * 2^e with an odd integer m
// and m * n < 2^53, and n * cell finite. Then every partial sum of a drainage accumulation of
// `cell` per cell over at most n cells is exact (a sum of two doubles whose exact value is a
// double is that value), whatever the order of the additions: the sum over `count` cells is
// double(count) * cell, bit for bit. True of every spacing with few significant bits (30 m:
// 900 m^2; 0.5 m: 0.25 m^2), false of one like 0.1 m.
bool exact_cell_multiples(double cell, std::size_t n);

// Cells queue[worker][begin, begin + count): what one walk of compute_flow_routing wrote.
struct Segment {
  std::uint32_t worker = 0, count = 0;
  std::size_t begin = 0;
};

// Copies each outlet group's drained cells (drained[p], held in its worker's queue) to
// order + part_begin[p], the groups on ctx's workers (basin_graph.cpp).
void copy_drained(std::span<const Segment> drained,
                  std::span<const std::vector<std::uint32_t>> queue,
                  const std::vector<std::size_t>& part_begin, std::uint32_t* order,
                  const ExecContext& ctx);

// Depression routing over the graph of D8 basins (basin_graph.cpp). In: `receiver` (D8 on the
// heights: c for outlets and pits); `label`: 1..pits for the cells draining into pit k (pits
// numbered in cell order), pits + 1 + p for the drained cells (those with a strictly descending
// path to an outlet) of outlet group p; `drained[p]`: those cells of group p, breadth-first
// from each outlet in turn; `basin[k]` (k = 1..pits): the cells of pit k, breadth-first from
// the pit; `queue`: the walks' buffers the segments point into. Out: every pit's catchment
// drains through its spill link (the exit-to-pit path reversed), `order` (resized to n cells
// once the basin graph's search is done and its working memory released) is a topological
// order of the new receivers (receivers first) in parts (`part_begin`, see FlowRouting),
// `spill[k]` the spill level of pit k (k = 1..pits; spill[0] is unused), from
// which fill_levels gives the exact Priority-Flood surface. `label` is used to mark the
// reversed paths meanwhile and holds its values again on return. The walks' queues are not
// read after it returns.
void route_depressions(const float* heights, int width, int height, std::uint32_t* receiver,
                       std::uint32_t* label, std::uint32_t pits, std::span<const Segment> drained,
                       std::span<const Segment> basin,
                       std::span<const std::vector<std::uint32_t>> queue,
                       std::vector<std::uint32_t>& order, std::vector<std::size_t>& part_begin,
                       std::vector<float>& spill, const ExecContext& ctx);

// The Priority-Flood surface: filled(c) = max(h(c), spill(pit of c)) for the cells of a pit's
// catchment (label 1..pits), h(c) for the drained cells (label > pits).
void fill_levels(const float* heights, int width, int height, const std::uint32_t* label,
                 std::uint32_t pits, std::span<const float> spill, std::vector<float>& filled,
                 const ExecContext& ctx);

}  // namespace terrane::erosion_detail
