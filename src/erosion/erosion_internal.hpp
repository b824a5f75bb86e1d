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

#include <atomic>
#include <bit>
#include <functional>
#include <span>
#include <vector>

#include "core/huge_pages.hpp"

#include "terrane/erosion.hpp"

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

// Receiver codes (FlowRouting::receiver_code): 0 for a cell that is its own receiver, else 1 + k
// for the receiver at c + offset[k], the 8 neighbours in ascending cell index (the bit order of
// the donor masks too: bit k of a mask is the neighbour at offset[k]). offset[7 - k] ==
// -offset[k], so the neighbour at offset[k] drains to c where its code is 8 - k.
struct NeighbourOffsets {
  std::ptrdiff_t offset[8];
  explicit NeighbourOffsets(int w) {
    const std::ptrdiff_t sw = w;
    const std::ptrdiff_t o[8] = {-sw - 1, -sw, -sw + 1, -1, 1, sw - 1, sw, sw + 1};
    std::copy(o, o + 8, offset);
  }
  std::uint32_t receiver(std::uint32_t c, std::uint8_t code) const {
    return code == 0 ? c : std::uint32_t(std::ptrdiff_t(c) + offset[code - 1]);
  }
  // The code of receiver r of cell c; 255 where r is neither c nor a neighbour of c.
  std::uint8_t code(std::uint32_t c, std::uint32_t r) const {
    const std::ptrdiff_t d = std::ptrdiff_t(r) - std::ptrdiff_t(c);
    if (d == 0) return 0;
    const std::ptrdiff_t sw = offset[6];  // the row's length
    const std::ptrdiff_t k = d < -1 ? d + sw + 1 : d == -1 ? 3 : d == 1 ? 4 : d - sw + 6;
    return k >= 0 && k < 8 && offset[k] == d ? std::uint8_t(k + 1) : std::uint8_t(255);
  }
};

// Whether code `k` (nonzero) points along a row or column (distance 1, not sqrt 2).
inline bool axial_code(std::uint8_t k) {
  return k == 2 || k == 4 || k == 5 || k == 7;
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

// Calls walk(root, tile, cells) for every outlet (code 0), in cell order within a tile of
// kTileCells cells of a row (the top and bottom rows are all outlets), and adds up in
// tiles.cells[t] the cells the walks from tile t return. The workers take the tiles from a
// shared counter in tiles.order (the largest first, as the last call found them: a map's
// largest tree can hold a third of its cells, and taken last it would leave the other workers
// idle), each with its own buffer `cells` from `buffers` (reserved for the whole map: only what
// a walk writes is ever touched). Then tiles.order is made ready for the next call.
constexpr std::size_t kTileCells = 256;
struct TileOrder {
  std::vector<std::uint32_t>& order;
  std::vector<std::size_t>& cells;
};
inline std::size_t tile_count(int w, int h) {
  return std::size_t(h) * ((std::size_t(w) + kTileCells - 1) / kTileCells);
}
template <class Walk>
inline void for_each_outlet(const std::uint8_t* code, int w, int h, TileOrder& tiles,
                            std::vector<std::vector<std::uint32_t>>& buffers,
                            const ExecContext& ctx, const Walk& walk) {
  const std::size_t sw = std::size_t(w), per_row = (sw + kTileCells - 1) / kTileCells;
  const std::size_t count = tile_count(w, h), n = sw * std::size_t(h);
  if (tiles.order.size() != count) {
    tiles.order.resize(count);
    for (std::size_t t = 0; t < count; ++t) tiles.order[t] = std::uint32_t(t);
  }
  tiles.cells.assign(count, 0);
  const int workers = worker_count(ctx);
  if (buffers.size() < std::size_t(workers)) buffers.resize(std::size_t(workers));
  std::atomic<std::size_t> next{0};
  parallel_for(ctx, workers, 1, [&](std::int64_t w0, std::int64_t w1) {
    for (std::int64_t wk = w0; wk < w1; ++wk) {
      std::vector<std::uint32_t>& cells = buffers[std::size_t(wk)];
      core_detail::reserve_huge(cells, n);  // never outgrown: no reallocation under the walks
      for (std::size_t q = next++; q < count; q = next++) {
        const std::size_t t = tiles.order[q];
        const std::size_t j = t / per_row, i0 = (t % per_row) * kTileCells;
        const std::uint8_t* row = code + j * sw;
        for (std::size_t i = i0; i < std::min(sw, i0 + kTileCells); ++i) {
          if (row[i] == 0) tiles.cells[t] += walk(std::uint32_t(j * sw + i), t, cells);
        }
      }
    }
  });
  // The tiles of more than a 256th of the cells first (at most 256 of them), largest first;
  // the others after them in their places on the map: two passes over the tiles, one sort of
  // the few big ones.
  const auto big = [&](std::size_t t) { return tiles.cells[t] * 256 > n; };
  std::size_t q = 0;
  for (std::size_t t = 0; t < count; ++t) {
    if (big(t)) tiles.order[q++] = std::uint32_t(t);
  }
  std::sort(tiles.order.begin(), tiles.order.begin() + std::ptrdiff_t(q),
            [&](std::uint32_t a, std::uint32_t b) {
              return tiles.cells[a] != tiles.cells[b] ? tiles.cells[a] > tiles.cells[b] : a < b;
            });
  for (std::size_t t = 0; t < count; ++t) {
    if (!big(t)) tiles.order[q++] = std::uint32_t(t);
  }
}

// Counts held as they are, or in a float map's own storage as bit patterns.
inline std::uint32_t load_count(const std::uint32_t* p) {
  return *p;
}
inline std::uint32_t load_count(const float* p) {
  return std::bit_cast<std::uint32_t>(*p);
}
inline void store_count(std::uint32_t* p, std::uint32_t v) {
  *p = v;
}
inline void store_count(float* p, std::uint32_t v) {
  *p = std::bit_cast<float>(v);
}

// Each cell's count of the cells that drain through it, itself included, from receiver codes
// and their donor masks (FlowRouting::Parts::receiver_codes), into count (as bit patterns of
// its floats): each outlet's tree walked breadth-first into a worker's buffer, then counted
// along it backwards. Whole numbers: the same whatever the order of the additions. 4 bytes per
// cell of the largest tree each worker walks, besides `count`.
void count_from_codes(const std::uint8_t* code, const std::uint8_t* mask, int w, int h,
                      float* count, const ExecContext& ctx);

// The breadth-first walk of count_from_codes: the tree of outlet `root` into `cells` (receivers
// before donors), each cell's count set to 1.
template <class T>
void walk_tree(std::uint32_t root, const std::uint8_t* mask, const NeighbourOffsets& nb, T* count,
               std::vector<std::uint32_t>& cells) {
  cells.assign(1, root);
  for (std::size_t k = 0; k < cells.size(); ++k) {
    if (k + kAhead < cells.size()) prefetch(&mask[cells[k + kAhead]]);
    const std::uint32_t c = cells[k];
    store_count(&count[c], 1);
    for (unsigned m = mask[c]; m != 0; m &= m - 1) {
      cells.push_back(std::uint32_t(std::ptrdiff_t(c) + nb.offset[std::countr_zero(m)]));
    }
  }
}

// Along a walk's cells from the last (donors before receivers), each count added to its
// receiver's; cells[0], the outlet, keeps its own.
template <class T>
void count_back(const std::vector<std::uint32_t>& cells, const std::uint8_t* code,
                const NeighbourOffsets& nb, T* count) {
  for (std::size_t k = cells.size(); k-- > 1;) {
    if (k >= kAhead + 1) {
      prefetch(&code[cells[k - kAhead]]);
      const std::uint32_t near = cells[k - kAhead / 2];
      prefetch(&count[nb.receiver(near, code[near])]);
    }
    const std::uint32_t c = cells[k];
    T* r = &count[nb.receiver(c, code[c])];
    store_count(r, load_count(r) + load_count(&count[c]));
  }
}

// Whether every multiple k * cell, k = 1..n, is a double: cell = m * 2^e with an odd integer m
// and m * n < 2^53, and n * cell finite. Then every partial sum of a drainage accumulation of
// `cell` per cell over at most n cells is exact (a sum of two doubles whose exact value is a
// double is that value), whatever the order of the additions: the sum over `count` cells is
// double(count) * cell, bit for bit. True of every spacing with few significant bits (30 m:
// 900 m^2; 0.5 m: 0.25 m^2), false of one like 0.1 m.
bool exact_cell_multiples(double cell, std::size_t n);

// The drainage area flow_accumulation(routing, heights.grid, {}) gives for the routing
// compute_flow_routing(heights, params) forms, the same bits, without forming that routing:
// where the heights have no pits (every cell that is not an outlet has a lower neighbour, as
// after breaching), none is NaN, and every partial sum is exact (exact_cell_multiples: the cells
// are counted, in any order). Holds 5 bytes per cell (donor masks, then the counts in out's own
// storage) and stacks of the depth-first walks. Returns false where those do not hold, having
// written nothing to `out` (the caller then forms the routing); throws what
// compute_flow_routing throws for an invalid grid.
bool drainage_without_pits(const Field2D& heights, const RoutingParams& params, Field2D& out,
                           const ExecContext& ctx);

// Depression routing over the graph of D8 basins (basin_graph.cpp). In: `label`: 1..pits for
// the cells draining into pit k (pits numbered in cell order), pits + 1 + p for the drained
// cells (those with a strictly descending path to an outlet) of outlet group p; `count[u]`: the
// cells labelled u (count[0] unused). Out: `spill[k]`, the spill level of pit k (k = 1..pits;
// spill[0] is unused), from which fill_levels gives the exact Priority-Flood surface; each pit's
// catchment drains through its spill link, the path from `exit_cell[k]` (in the basin) down to
// the pit reversed and the exit draining into `across[k]` (in the basin it spills into); the
// layout of the order in parts (`part_begin`, see FlowRouting): part p is group p's drained
// cells, then the basins that drain into it, basin k's count[k] cells from `at[k]` on, in the
// order their spill levels were settled. The basin graph's working memory is released on
// return. With `release_labels` (the vector that holds `label`), the labels are released as soon
// as the graph's links are gathered and the parts are not laid out: `part_begin` and `at` are
// left empty.
void route_depressions(const float* heights, int width, int height, const std::uint32_t* label,
                       std::uint32_t pits, std::span<const std::uint32_t> count,
                       std::vector<std::size_t>& part_begin, std::vector<std::size_t>& at,
                       std::vector<std::uint32_t>& exit_cell, std::vector<std::uint32_t>& across,
                       std::vector<float>& spill, std::vector<std::uint32_t>* release_labels,
                       const ExecContext& ctx);

// The Priority-Flood surface: filled(c) = max(h(c), spill(pit of c)) for the cells of a pit's
// catchment (label 1..pits), h(c) for the drained cells (label > pits).
void fill_levels(const float* heights, int width, int height, const std::uint32_t* label,
                 std::uint32_t pits, std::span<const float> spill, std::vector<float>& filled,
                 const ExecContext& ctx);

}  // namespace terrane::erosion_detail
