// D8 flow routing with depression handling.
//
// Receivers: O'Callaghan & Mark 1984, "The extraction of drainage networks from digital
// elevation data" (D8: each cell drains to the neighbour of steepest descent, drop / distance).
// Depressions: the basin graph (basin_graph.cpp; Cordonnier, Bovy & Braun 2019) gives the exact
// Priority-Flood surface (Barnes et al. 2014) and routes each pit's catchment across its spill
// link: the path from the exit cell down to the pit is reversed, so the pit drains through the
// exit into a basin that itself drains, and the graph stays a tree with no cycles.
// The order is made of breadth-first walks over the donor lists (Braun & Willett 2013, §2.2
// "stack"): one from each outlet, which reaches every cell with a descending path to it, and one
// from each pit, which reaches its catchment. It comes in parts, one per group of consecutive
// outlets: the group's walks, then the basins that drain into it, basin by basin in the order
// their spill levels were settled. Restricted to one outlet's cells, this is the sequence that a
// single walk from all the outlets, followed by all the basins, would give, so drainage sums
// along it have the same bits; and the parts share no receiver, so the walks along the order
// (accumulation, incision, breaching) run part by part in parallel. Where there are pits, the
// cells are first labelled with their basin by depth-first walks, which also count them; the
// basin graph then lays the order out, and the breadth-first walks are written straight into
// it, each where its part puts it. Without pits the groups are walked into per-worker buffers
// and copied. Every walk runs in parallel with the others.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <span>
#include <type_traits>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"
#include "terrane/erosion.hpp"

namespace terrane {

namespace ed = erosion_detail;
namespace cd = core_detail;

std::span<const Field<RoutingParams>> RoutingParams::fields() {
  using P = RoutingParams;
  static const Field<P> table[] = {
      {"use_sea_level", TERRANE_FIELD_REF(P, use_sea_level)},
      {"sea_level_m", TERRANE_FIELD_REF(P, sea_level_m), Range::closed(-1e9, 1e9)},
  };
  return table;
}

void RoutingParams::validate(std::string_view path) const {
  check_fields(*this, fields(), path);
}

namespace {

// Receivers of the interior cells of row j (0 < j < h - 1, 0 < i < w - 1) on surface `s`, into
// out[i] (out is row j's first entry): the steepest strictly-descending neighbour (drop, times
// 1/sqrt 2 on diagonals; the first in the order E, W, S, N, SE, SW, NE, NW on ties), or the cell
// itself. Written with selects, not branches, so that it vectorises across the row; each cell
// gets the same float operations, in the same order, on every target. A NaN compares false, so
// the loop stays defined.
[[gnu::always_inline]] inline void steepest_row_impl(const float* s, std::uint32_t* out, int w,
                                                     int j) {
  constexpr float kInvDiag = float(1.0 / std::numbers::sqrt2);
  const std::size_t row = std::size_t(j) * std::size_t(w);
  const float* up = s + row - std::size_t(w);
  const float* mid = s + row;
  const float* dn = s + row + std::size_t(w);
  const std::uint32_t uw = std::uint32_t(w);
  for (int i = 1; i < w - 1; ++i) {
    const float hc = mid[i];
    const std::uint32_t c = std::uint32_t(row) + std::uint32_t(i);
    const float slope[8] = {hc - mid[i + 1],
                            hc - mid[i - 1],
                            hc - dn[i],
                            hc - up[i],
                            (hc - dn[i + 1]) * kInvDiag,
                            (hc - dn[i - 1]) * kInvDiag,
                            (hc - up[i + 1]) * kInvDiag,
                            (hc - up[i - 1]) * kInvDiag};
    const std::uint32_t to[8] = {c + 1,      c - 1,      c + uw,     c - uw,
                                 c + uw + 1, c + uw - 1, c - uw + 1, c - uw - 1};
    float best = 0.0f;
    std::uint32_t r = c;
    for (int k = 0; k < 8; ++k) {
      r = slope[k] > best ? to[k] : r;
      best = slope[k] > best ? slope[k] : best;
    }
    out[i] = r;
  }
}

// Donor masks of the interior cells of a row whose first cell is `first`, from the receivers of
// the rows above, at and below it (each from its first entry): bit k of mask[i] is set when the
// k-th neighbour in ascending cell index (offsets -w-1, -w, -w+1, -1, +1, +w-1, +w, +w+1) drains
// into the cell.
[[gnu::always_inline]] inline void donor_row_impl(const std::uint32_t* up, const std::uint32_t* mid,
                                                  const std::uint32_t* dn, std::uint8_t* mask,
                                                  int w, std::uint32_t first) {
  for (int i = 1; i < w - 1; ++i) {
    const std::uint32_t c = first + std::uint32_t(i);
    const unsigned m = unsigned(up[i - 1] == c) | unsigned(up[i] == c) << 1 |
                       unsigned(up[i + 1] == c) << 2 | unsigned(mid[i - 1] == c) << 3 |
                       unsigned(mid[i + 1] == c) << 4 | unsigned(dn[i - 1] == c) << 5 |
                       unsigned(dn[i] == c) << 6 | unsigned(dn[i + 1] == c) << 7;
    mask[i] = std::uint8_t(m);
  }
}

// The row kernels for the baseline target and, on x86-64, AVX2 and AVX-512 (terrane's SIMD
// setting picks one): the same operations per cell, so the same receivers on every target.
struct RowKernels {
  void (*steepest)(const float*, std::uint32_t*, int, int);
  void (*donors)(const std::uint32_t*, const std::uint32_t*, const std::uint32_t*, std::uint8_t*,
                 int, std::uint32_t);
};
void steepest_row_base(const float* s, std::uint32_t* out, int w, int j) {
  steepest_row_impl(s, out, w, j);
}
void donor_row_base(const std::uint32_t* up, const std::uint32_t* mid, const std::uint32_t* dn,
                    std::uint8_t* mask, int w, std::uint32_t first) {
  donor_row_impl(up, mid, dn, mask, w, first);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] void steepest_row_avx2(const float* s, std::uint32_t* out, int w, int j) {
  steepest_row_impl(s, out, w, j);
}
[[gnu::target("avx2")]] void donor_row_avx2(const std::uint32_t* up, const std::uint32_t* mid,
                                            const std::uint32_t* dn, std::uint8_t* mask, int w,
                                            std::uint32_t first) {
  donor_row_impl(up, mid, dn, mask, w, first);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2")]] void steepest_row_avx3(
    const float* s, std::uint32_t* out, int w, int j) {
  steepest_row_impl(s, out, w, j);
}
[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,avx2")]] void donor_row_avx3(
    const std::uint32_t* up, const std::uint32_t* mid, const std::uint32_t* dn, std::uint8_t* mask,
    int w, std::uint32_t first) {
  donor_row_impl(up, mid, dn, mask, w, first);
}
#endif

RowKernels row_kernels([[maybe_unused]] SimdTarget target) {
#if defined(__x86_64__)
  if (target == SimdTarget::avx3) return {steepest_row_avx3, donor_row_avx3};
  if (target == SimdTarget::avx2) return {steepest_row_avx2, donor_row_avx2};
#endif
  return {steepest_row_base, donor_row_base};
}

// The filled levels of a map without pits: the heights, copied unless the caller reads them in
// their place (Parts::levels_only_with_pits).
void copy_heights_as_levels(FlowRouting& out, const float* hs, std::size_t n,
                            const ExecContext& ctx) {
  if (out.parts.levels_only_with_pits) {
    std::vector<float>().swap(out.filled_m);
    return;
  }
  cd::reserve_huge(out.filled_m, n, &ctx);
  out.filled_m.assign(hs, hs + n);
}

// Which cells are outlets: the border cells and, with the sea level, the cells below it (told
// from the heights wherever they are needed, not stored).
struct Outlets {
  const float* hs;
  int w, h;
  bool use_sea;
  float sea;
  bool operator()(std::size_t c, int i, int j) const {
    return i == 0 || j == 0 || i == w - 1 || j == h - 1 || (use_sea && hs[c] < sea);
  }
};

// Row j's receivers into r (steepest descent; outlets drain to themselves); adds its outlets
// and pits to the counts.
void receivers_row(const RowKernels& kernels, const Outlets& outlet, std::uint32_t* r, int j,
                   std::int64_t& pits, std::int64_t& outlets) {
  const int w = outlet.w;
  if (j > 0 && j < outlet.h - 1) kernels.steepest(outlet.hs, r, w, j);
  for (int i = 0; i < w; ++i) {
    const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
    const bool o = outlet(c, i, j);
    if (o) r[i] = std::uint32_t(c);
    outlets += o ? 1 : 0;
    pits += !o && r[i] == c ? 1 : 0;
  }
}

// Row j's donor masks (bit k: the k-th neighbour in ascending cell index drains here) into
// mask[j * w, ...), from the receivers of rows j - 1 .. j + 1 (receivers_of(row) points at a
// row's): the row kernel inside, each neighbour tested on the map's border.
template <class ReceiversOf>
void donor_masks_row(const RowKernels& kernels, int w, int h, int j,
                     const ReceiversOf& receivers_of, std::uint8_t* mask) {
  const std::size_t row = std::size_t(j) * std::size_t(w);
  const bool inner_row = j > 0 && j < h - 1;
  if (inner_row) {
    kernels.donors(receivers_of(j - 1), receivers_of(j), receivers_of(j + 1), mask + row, w,
                   std::uint32_t(row));
  }
  // The cells on the map's border: whole rows at the top and bottom, both ends elsewhere.
  const int step = inner_row ? std::max(1, w - 1) : 1;
  for (int i = 0; i < w; i += step) {
    const std::size_t c = row + std::size_t(i);
    unsigned m = 0;
    for (int k = 0; k < 8; ++k) {
      const int ni = i + (k == 0 || k == 3 || k == 5 ? -1 : k == 1 || k == 6 ? 0 : 1);
      const int nj = j + (k < 3 ? -1 : k < 5 ? 0 : 1);
      if (ni < 0 || nj < 0 || ni >= w || nj >= h) continue;
      const std::size_t nc = std::size_t(nj) * std::size_t(w) + std::size_t(ni);
      m |= unsigned(receivers_of(nj)[ni] == c && nc != c) << k;
    }
    mask[c] = std::uint8_t(m);
  }
}

// The first NaN of row j, as -1 - its column, or 0 without one.
std::int64_t row_nan(const float* hs, int w, int j) {
  const float* row = hs + std::size_t(j) * std::size_t(w);
  for (int i = 0; i < w; ++i) {
    if (std::isnan(row[i])) return -1 - std::int64_t(i);
  }
  return 0;
}

}  // namespace

void compute_flow_routing(const Field2D& heights, const RoutingParams& params, FlowRouting& out,
                          const ExecContext& ctx) {
  params.validate();
  heights.grid.validate("flow routing heights");
  const int w = heights.grid.width, h = heights.grid.height;
  const std::size_t n = heights.grid.sample_count();
  if (heights.data.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "compute_flow_routing: heights.data has " + std::to_string(heights.data.size()) +
                    " samples, the grid needs " + std::to_string(n));
  }
  if (n > std::size_t(0xFFFFFFFFu)) {
    throw Error(ErrorCategory::limit, "compute_flow_routing: more than 2^32 - 1 cells");
  }
  const float* hs = heights.data.data();
  out.width = w;
  out.height = h;
  // The last call's filled levels are rewritten at the end: a one-off routing does not hold
  // them beside its working memory, nor does a routing without them.
  std::vector<std::uint32_t>().swap(out.basin);
  std::vector<float>().swap(out.spill_m);
  if (!out.keep_scratch || !out.parts.levels) std::vector<float>().swap(out.filled_m);
  // With codes, the receivers are formed in the labels' storage (the labels come once they are
  // coded) and the result is their codes alone.
  const bool codes = !out.parts.order && out.parts.receiver_codes;
  if (codes) {
    std::vector<std::uint32_t>().swap(out.receiver);
  } else {
    std::vector<std::uint8_t>().swap(out.receiver_code);
  }
  std::vector<std::uint32_t>& receivers = codes ? out.scratch.label : out.receiver;
  cd::resize_huge(receivers, n, &ctx);
  const ed::NeighbourOffsets nb(w);
  std::atomic<bool> bad_code{false};
  if (codes) {
    cd::resize_huge(out.receiver_code, n, &ctx);
    out.scratch.donor_mask.swap(out.donor_mask);  // the last call's masks: their storage
  } else {
    std::vector<std::uint8_t>().swap(out.donor_mask);
  }
  // Row j's receivers as codes (with Parts::receiver_codes), while the row is in cache.
  const auto code_row = [&](int j) {
    const std::size_t row = std::size_t(j) * std::size_t(w);
    const std::uint32_t* r = receivers.data() + row;
    std::uint8_t* code = out.receiver_code.data() + row;
    bool bad = false;
    for (int i = 0; i < w; ++i) {
      code[i] = nb.code(std::uint32_t(row) + std::uint32_t(i), r[i]);
      bad |= code[i] == 255;
    }
    if (bad) bad_code.store(true, std::memory_order_relaxed);
  };
  // Scratch from the last call: donor_mask, label and row_pits are overwritten whole.
  const Outlets is_outlet{hs, w, h, params.use_sea_level, float(params.sea_level_m)};
  std::vector<std::int64_t>& row_pits = out.scratch.row_pits;
  std::vector<std::int64_t>& row_outlets = out.scratch.row_outlets;
  row_pits.resize(std::size_t(h));
  row_outlets.resize(std::size_t(h));
  const ExecContext inner = ed::quiet(ctx);
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max(1, w));
  const RowKernels kernels = row_kernels(resolved_simd_target(ctx));
  const auto own_receivers_row = [&](int j, std::int64_t& pits, std::int64_t& outlets) {
    receivers_row(kernels, is_outlet, receivers.data() + std::size_t(j) * std::size_t(w), j, pits,
                  outlets);
  };
  parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t jj = b; jj < e; ++jj) {
      const int j = int(jj);
      std::int64_t pits = 0, outlets = 0;
      own_receivers_row(j, pits, outlets);
      if (codes) code_row(j);
      row_outlets[std::size_t(j)] = outlets;
      // A NaN is found here, in parallel, and reported below (the first in cell order), before
      // anything reads these receivers; a NaN compares false, so the loop above stays defined.
      const std::int64_t nan = row_nan(hs, w, j);
      row_pits[std::size_t(j)] = nan < 0 ? nan : pits;
    }
  });
  // Row counts become each row's first outlet and pit (exclusive prefix sums).
  std::size_t outlets = 0, pit_total = 0;
  for (std::size_t j = 0; j < std::size_t(h); ++j) {
    if (row_pits[j] < 0) {
      throw Error(ErrorCategory::invalid_argument, "compute_flow_routing: height at (" +
                                                       std::to_string(-1 - row_pits[j]) + ", " +
                                                       std::to_string(j) + ") is NaN");
    }
    const std::int64_t o = row_outlets[j], p = row_pits[j];
    row_outlets[j] = std::int64_t(outlets);
    row_pits[j] = std::int64_t(pit_total);
    outlets += std::size_t(o);
    pit_total += std::size_t(p);
  }
  if (bad_code.load()) {
    throw Error(ErrorCategory::internal, "compute_flow_routing: a receiver is not a neighbour");
  }
  out.depressions = std::int64_t(pit_total);

  std::uint32_t* rcv = receivers.data();
  // Donors as an 8-bit mask per cell (bit k: the k-th neighbour in ascending cell index drains
  // here), filled per row in parallel.
  std::vector<std::uint8_t>& donor_mask = out.scratch.donor_mask;
  cd::resize_huge(donor_mask, n, &ctx);
  const auto map_row = [&rcv, w](int j) { return rcv + std::size_t(j) * std::size_t(w); };
  parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t j = b; j < e; ++j) {
      donor_masks_row(kernels, w, h, int(j), map_row, donor_mask.data());
    }
  });
  std::uint8_t* const mask = donor_mask.data();
  // The roots, in cell order: the first outlet of each group of kRoutingPartOutlets
  // consecutive outlets into roots[0, groups), the pits after them (pit k, k = 1..pits, at
  // groups + k - 1), per row in parallel from the rows' first indices. The outlets themselves
  // are not listed (where the sea's cells are outlets they can be most of the map): a group's
  // are the outlets in cell order from its first, told from the heights. With pits, each root is
  // labelled below (a pit with its number, an outlet with pits + 1 + its group), once the
  // receivers have gone where they go: every other cell gets 0, no label yet.
  const std::uint32_t pits = std::uint32_t(pit_total);
  const std::size_t groups = (outlets + kRoutingPartOutlets - 1) / kRoutingPartOutlets;
  std::vector<std::uint32_t>& roots = out.scratch.roots;
  cd::resize_huge(roots, groups + pits, &ctx);
  std::vector<std::uint32_t>& label = out.scratch.label;
  std::uint32_t* const root_cell = roots.data();
  parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t j = b; j < e; ++j) {
      std::size_t o = std::size_t(row_outlets[std::size_t(j)]);
      std::size_t p = groups + std::size_t(row_pits[std::size_t(j)]);
      for (int i = 0; i < w; ++i) {
        const std::size_t c = std::size_t(j) * std::size_t(w) + std::size_t(i);
        if (is_outlet(c, i, int(j))) {
          if (o % kRoutingPartOutlets == 0) root_cell[o / kRoutingPartOutlets] = std::uint32_t(c);
          ++o;
        } else if (rcv[c] == c) {
          root_cell[p++] = std::uint32_t(c);
        }
      }
    }
  });
  // Calls f(c) for the `count` outlets from cell c0 (an outlet) on, in cell order.
  const bool sea_outlets = params.use_sea_level;
  const auto for_outlets = [&](std::size_t c0, std::size_t count, auto&& f) {
    std::size_t j = c0 / std::size_t(w), i = c0 % std::size_t(w);
    while (count > 0) {
      const std::size_t c = j * std::size_t(w) + i;
      if (is_outlet(c, int(i), int(j))) {
        f(c);
        --count;
      }
      if (!sea_outlets && i == 0 && w > 2 && j > 0 && j + 1 < std::size_t(h)) {
        i = std::size_t(w) - 1;  // an inner row's outlets are its two ends
      } else if (++i == std::size_t(w)) {
        i = 0;
        ++j;
      }
    }
  };
  // Calls f(c) for the outlets of group u.
  const auto for_group = [&](std::size_t u, auto&& f) {
    const std::size_t t0 = u * kRoutingPartOutlets;
    for_outlets(root_cell[u], std::min(outlets - t0, kRoutingPartOutlets), f);
  };
  // A one-off routing (keep_scratch false) releases each part of its working memory once it is
  // no longer read, so that the order is not allocated beside the labels.
  const auto release = [&out](auto& v) {
    if (!out.keep_scratch) std::remove_reference_t<decltype(v)>().swap(v);
  };
  // Without the order the receivers are not read again (the labels, the basin graph and the
  // levels come from the donor masks, the roots and the heights): they go before the walks.
  const bool receivers_only =
      !out.parts.order && (out.parts.receivers_without_order || out.parts.receiver_codes);
  // With codes, nothing below reads the receivers (their storage becomes the labels') but the
  // walks from the exit cells down to the pits, which read the codes.
  if (codes) rcv = nullptr;
  if (!out.parts.order && !receivers_only) std::vector<std::uint32_t>().swap(out.receiver);
  // A depth-first walk over the donor masks from group u's outlets (u < groups) or from pit
  // u - groups + 1: counts the cells it reaches and, with `labels`, gives each the label `tag`.
  // A small stack instead of a map-sized queue.
  const auto count_reached = [&](std::size_t u, std::uint32_t* labels, std::uint32_t tag,
                                 std::vector<std::uint32_t>& stack) {
    std::uint32_t cells = 0;
    const auto from = [&](std::size_t root) {
      stack.assign(1, std::uint32_t(root));
      while (!stack.empty()) {
        const std::uint32_t c = stack.back();
        stack.pop_back();
        ++cells;
        for (unsigned m = mask[c]; m != 0; m &= m - 1) {
          const std::uint32_t d = std::uint32_t(std::ptrdiff_t(c) + nb.offset[std::countr_zero(m)]);
          if (labels != nullptr) labels[d] = tag;
          stack.push_back(d);
        }
      }
    };
    if (u < groups) {
      for_group(u, from);
    } else {
      from(root_cell[u]);
    }
    return cells;
  };
  // With pits: the basin graph (route_depressions) gives the spill levels and lays out the
  // order, from the cells' labels.
  std::vector<std::size_t> at;
  std::vector<std::uint32_t> exit_cell, across;
  std::vector<float> spill;
  if (pits > 0) {
    // Every other cell takes its root's label: a depth-first walk over the donor masks from
    // each group's outlets and from each pit labels what it reaches and counts it (count[0]
    // unused; pit k at k, group p at pits + 1 + p). The walks run in parallel; each labels
    // only its own cells.
    // A one-off routing with its order drops the receivers while the cells are labelled and the
    // basin graph is searched (nothing reads them there) and forms them again, the same bits,
    // before its walks: a row pass, against 4 bytes per cell beside the labels and the graph.
    const bool reform = !out.keep_scratch && !codes && (out.parts.order || receivers_only);
    if (reform) std::vector<std::uint32_t>().swap(out.receiver);
    // The labels, allocated once the receivers are gone where they go: each root's tag (an
    // outlet pits + 1 + its group, pit k k), 0 for every other cell.
    cd::assign_huge(label, n, 0u, &ctx);
    std::uint32_t* const lab = label.data();
    parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
      for (auto j = std::size_t(b); j < std::size_t(e); ++j) {
        auto t = std::size_t(row_outlets[j]);
        const std::size_t next = j + 1 < std::size_t(h) ? std::size_t(row_outlets[j + 1]) : outlets;
        if (t == next) continue;
        // The row's first outlet: its first cell, or (with the sea) the first found from there.
        std::size_t first = j * std::size_t(w);
        while (!is_outlet(first, int(first % std::size_t(w)), int(j))) ++first;
        for_outlets(first, next - t, [&](std::size_t c) {
          lab[c] = pits + 1 + std::uint32_t(t++ / kRoutingPartOutlets);
        });
      }
    });
    parallel_for(inner, std::int64_t(pits), 65536, [&](std::int64_t k0, std::int64_t k1) {
      for (auto k = std::size_t(k0); k < std::size_t(k1); ++k) {
        lab[root_cell[groups + k]] = std::uint32_t(k + 1);
      }
    });
    std::vector<std::uint32_t> count(std::size_t(pits) + 1 + groups, 0);
    const std::size_t units = groups + pits;
    parallel_for(
        inner, std::int64_t(units), ed::part_grain(units), [&](std::int64_t u0, std::int64_t u1) {
          std::vector<std::uint32_t> stack;
          for (auto u = std::size_t(u0); u < std::size_t(u1); ++u) {
            const auto tag = std::uint32_t(u < groups ? pits + 1 + u : u - groups + 1);
            count[tag] = count_reached(u, lab, tag, stack);
          }
        });
    // Without the order nothing walks the donor masks or the roots again: they go before the
    // basin graph (the roots are a tenth of the map or more where the sea's cells are outlets).
    if (!out.parts.order) {
      if (!codes) release(donor_mask);  // the codes' masks are patched and given out at the end
      release(roots);
    }
    // The receivers alone read no labels after the basin graph's links are gathered: a one-off
    // routing lets them go there, before the graph is searched.
    const bool labels_go =
        !out.keep_scratch && receivers_only && !out.parts.levels && !out.parts.basins;
    ed::route_depressions(hs, w, h, lab, pits, count, out.part_begin, at, exit_cell, across, spill,
                          labels_go ? &label : nullptr, inner);
    if (!out.parts.order && out.parts.levels) {
      ed::fill_levels(hs, w, h, lab, pits, spill, out.filled_m, inner);
    }
    if (out.parts.basins) {
      out.basin.swap(label);
      std::vector<std::uint32_t>().swap(label);
      out.spill_m = std::move(spill);
    }
    release(label);
    if (reform) {
      cd::resize_huge(out.receiver, n, &ctx);
      rcv = out.receiver.data();
      parallel_for(inner, h, grain, [&](std::int64_t b, std::int64_t e) {
        std::int64_t unused_pits = 0, unused_outlets = 0;
        for (std::int64_t j = b; j < e; ++j) own_receivers_row(int(j), unused_pits, unused_outlets);
      });
    }
  } else if (!out.parts.order && out.parts.levels) {
    copy_heights_as_levels(out, hs, n, ctx);
  }
  if (receivers_only) {
    // The receivers without the order: each pit's catchment drains across its spill link, the
    // path from its exit cell down to the pit reversed, as the walks below do. The paths lie in
    // their own basins, so they are reversed in parallel.
    if (!codes) release(donor_mask);
    release(roots);
    std::atomic<bool> bad{false};
    parallel_for(inner, std::int64_t(pits), 4096, [&](std::int64_t k0, std::int64_t k1) {
      for (auto k = std::uint32_t(k0) + 1; k <= std::uint32_t(k1); ++k) {
        std::uint32_t prev = across[k], x = exit_cell[k];
        if (codes) {
          // The donor masks follow: x leaves its old receiver's and joins its new one's. The
          // exit's new receiver lies in another basin: its mask is set below, in one thread.
          std::uint8_t* const code = out.receiver_code.data();
          for (;;) {
            const std::uint32_t next = nb.receiver(x, code[x]);
            code[x] = nb.code(x, prev);
            if (code[x] == 255) bad.store(true, std::memory_order_relaxed);
            if (next != x) mask[next] &= std::uint8_t(~(1u << (nb.code(next, x) - 1)));
            if (x != exit_cell[k]) mask[prev] |= std::uint8_t(1u << (nb.code(prev, x) - 1));
            if (next == x) break;  // the pit
            prev = x;
            x = next;
          }
          continue;
        }
        for (;;) {
          const std::uint32_t next = rcv[x];
          rcv[x] = prev;
          if (next == x) break;  // the pit
          prev = x;
          x = next;
        }
      }
    });
    if (bad.load()) {
      throw Error(ErrorCategory::internal,
                  "compute_flow_routing: a spill link joins no neighbours");
    }
    if (codes) {
      for (std::uint32_t k = 1; k <= pits; ++k) {
        mask[across[k]] |= std::uint8_t(1u << (nb.code(across[k], exit_cell[k]) - 1));
      }
      out.donor_mask.swap(out.scratch.donor_mask);
    }
    std::vector<std::uint32_t>().swap(out.order);
    std::vector<std::size_t>().swap(out.part_begin);
    if (!out.keep_scratch) out.scratch = {};
    return;
  }
  if (!out.parts.order) {  // the filled levels alone: no receivers, order or parts
    std::vector<std::uint32_t>().swap(out.receiver);
    std::vector<std::uint32_t>().swap(out.order);
    std::vector<std::size_t>().swap(out.part_begin);
    if (!out.keep_scratch) out.scratch = {};
    return;
  }

  // Breadth-first walks over the donor masks (Braun & Willett 2013, §2.2 "stack"; donors in
  // ascending cell index). An outlet's walk reaches exactly its drained cells (those with a
  // strictly descending path to it), whose receivers stay and whose filled level is their
  // height; a pit's walk reaches its catchment, whose filled level is max(height, spill
  // level). The groups and basins are walked in parallel.
  float* filled = nullptr;  // where the walks write the filled levels
  // Appends the walk from `root` to buf[end, ...), giving each cell the filled level
  // max(height, level) where `filled` is set, and returns the new end; the walk is its own
  // queue. With `consume`, each cell's mask is left 0 once read (a basin then marks its path
  // there). The walk waits on cells far apart on the map: those of the cell kAhead places on
  // are fetched early. `buf` is the order (InPlace) or a worker's buffer (Appended).
  struct InPlace {
    std::uint32_t* cells;
    void put(std::size_t k, std::uint32_t c) const { cells[k] = c; }
    std::uint32_t operator[](std::size_t k) const { return cells[k]; }
  };
  struct Appended {  // k is always the buffer's size
    std::vector<std::uint32_t>& cells;
    void put(std::size_t, std::uint32_t c) const { cells.push_back(c); }
    std::uint32_t operator[](std::size_t k) const { return cells[k]; }
  };
  const auto walk = [&](const auto& buf, std::uint32_t root, std::size_t end, float level,
                        bool consume) {
    std::size_t k = end;
    buf.put(end++, root);
    for (; k < end; ++k) {
      if (k + ed::kAhead < end) {
        const std::uint32_t far = buf[k + ed::kAhead];
        ed::prefetch(&mask[far]);
        if (filled != nullptr) {
          ed::prefetch(&hs[far]);
          ed::prefetch(&filled[far]);
        }
      }
      const std::uint32_t c = buf[k];
      if (filled != nullptr) filled[c] = std::max(hs[c], level);
      unsigned m = mask[c];
      if (consume) mask[c] = 0;
      for (; m != 0; m &= m - 1) {
        buf.put(end++, std::uint32_t(std::ptrdiff_t(c) + nb.offset[std::countr_zero(m)]));
      }
    }
    return end;
  };
  const auto walk_group = [&](const auto& buf, std::size_t u, std::size_t end) {
    for_group(u, [&](std::size_t c) {
      end = walk(buf, std::uint32_t(c), end, -std::numeric_limits<float>::infinity(), false);
    });
    return end;  // max(h, -inf) is h, bit for bit
  };
  if (pits == 0 && !out.keep_scratch) {
    // A one-off routing without pits: each group's cells are counted first (depth-first walks),
    // so that its breadth-first walks go straight into the order where the counts put them, with
    // no map-sized buffers beside it (hydrology of a breached map). The same order as below.
    std::vector<std::uint32_t> count(groups, 0);
    parallel_for(inner, std::int64_t(groups), ed::part_grain(groups),
                 [&](std::int64_t u0, std::int64_t u1) {
                   std::vector<std::uint32_t> stack;
                   for (auto u = std::size_t(u0); u < std::size_t(u1); ++u) {
                     count[u] = count_reached(u, nullptr, 0, stack);
                   }
                 });
    out.part_begin.assign(groups + 1, 0);
    for (std::size_t p = 0; p < groups; ++p) out.part_begin[p + 1] = out.part_begin[p] + count[p];
    cd::resize_huge(out.order, n, &ctx);
    std::uint32_t* const ord = out.order.data();
    parallel_for(inner, std::int64_t(groups), ed::part_grain(groups),
                 [&](std::int64_t u0, std::int64_t u1) {
                   for (auto u = std::size_t(u0); u < std::size_t(u1); ++u) {
                     walk_group(InPlace{ord}, u, out.part_begin[u]);
                   }
                 });
    out.scratch = {};
    if (out.parts.levels) copy_heights_as_levels(out, hs, n, ctx);
    return;
  }
  if (pits == 0) {
    // Without pits every cell drains to an outlet, and a group's size is what its walks find:
    // the workers walk the groups (taken from a shared counter) into their own buffers, each
    // with room for every cell, untouched until written; the groups are then copied into the
    // order in their order, and the filled levels are the heights.
    std::vector<std::vector<std::uint32_t>>& queue = out.scratch.queue;
    const int workers = worker_count(inner);
    if (queue.size() < std::size_t(workers)) queue.resize(std::size_t(workers));
    struct Segment {
      std::size_t worker = 0, begin = 0, count = 0;
    };
    std::vector<Segment> drained(groups);
    std::atomic<std::size_t> next{0};
    parallel_for(inner, workers, 1, [&](std::int64_t w0, std::int64_t w1) {
      for (std::int64_t wk = w0; wk < w1; ++wk) {
        std::vector<std::uint32_t>& q = queue[std::size_t(wk)];
        cd::reserve_huge(q, n);  // never outgrown: no reallocation under the walks
        q.clear();
        for (std::size_t u = next++; u < groups; u = next++) {
          const std::size_t begin = q.size();
          walk_group(Appended{q}, u, begin);
          drained[u] = {std::size_t(wk), begin, q.size() - begin};
        }
      }
    });
    release(donor_mask);
    release(roots);
    out.part_begin.assign(groups + 1, 0);
    for (std::size_t p = 0; p < groups; ++p) {
      out.part_begin[p + 1] = out.part_begin[p] + drained[p].count;
    }
    cd::resize_huge(out.order, n, &ctx);
    parallel_for(inner, std::int64_t(groups), ed::part_grain(groups),
                 [&](std::int64_t p0, std::int64_t p1) {
                   for (auto p = std::size_t(p0); p < std::size_t(p1); ++p) {
                     const std::uint32_t* from = queue[drained[p].worker].data() + drained[p].begin;
                     std::copy(from, from + drained[p].count, out.order.data() + out.part_begin[p]);
                   }
                 });
    release(queue);
    if (out.parts.levels) copy_heights_as_levels(out, hs, n, ctx);
    if (!out.keep_scratch) out.scratch = {};
    return;
  }
  // With pits, each group and basin is walked straight into the order where the layout puts
  // it, and writes only its own range of the order and its own cells.
  cd::resize_huge(out.order, n, &ctx);
  if (out.parts.levels) {
    cd::resize_huge(out.filled_m, n, &ctx);
    filled = out.filled_m.data();
  }
  std::uint32_t* const ord = out.order.data();
  const std::size_t units = groups + pits;
  parallel_for(inner, std::int64_t(units), ed::part_grain(units),
               [&](std::int64_t u0, std::int64_t u1) {
                 for (auto u = std::size_t(u0); u < std::size_t(u1); ++u) {
                   if (u < groups) {
                     walk_group(InPlace{ord}, u, out.part_begin[u]);
                     continue;
                   }
                   // Basin k: its walk from the pit, then its spill link. The path from the exit
                   // cell down to the pit (marked 1 in the consumed masks) is reversed: each of its
                   // cells drains to the one before it, the exit across the link. It comes first in
                   // the basin's range, followed by the other cells in their walk's order (moved
                   // up, from the back).
                   const std::uint32_t k = std::uint32_t(u - groups) + 1;
                   const std::size_t begin = at[k];
                   const std::size_t end =
                       walk(InPlace{ord}, root_cell[groups + k - 1], begin, spill[k], true);
                   for (std::uint32_t x = exit_cell[k];; x = rcv[x]) {
                     mask[x] = 1;
                     if (rcv[x] == x) break;
                   }
                   std::size_t to = end;
                   for (std::size_t q = end; q-- > begin;) {
                     if (mask[ord[q]] == 0) ord[--to] = ord[q];
                   }
                   std::uint32_t prev = across[k], x = exit_cell[k];
                   for (std::size_t q = begin;; ++q) {
                     const std::uint32_t next = rcv[x];
                     rcv[x] = prev;
                     ord[q] = x;
                     if (next == x) break;  // the pit
                     prev = x;
                     x = next;
                   }
                 }
               });
  release(donor_mask);
  release(roots);
  if (!out.keep_scratch) out.scratch = {};
}

void erosion_detail::count_from_codes(const std::uint8_t* code, const std::uint8_t* mask, int w,
                                      int h, float* count, const ExecContext& ctx) {
  const NeighbourOffsets nb(w);
  std::vector<std::uint32_t> tile_order;
  std::vector<std::size_t> tile_cells;
  TileOrder tiles{tile_order, tile_cells};
  std::vector<std::vector<std::uint32_t>> buffers;
  for_each_outlet(code, w, h, tiles, buffers, ctx,
                  [&](std::uint32_t root, std::size_t, std::vector<std::uint32_t>& cells) {
                    walk_tree(root, mask, nb, count, cells);
                    count_back(cells, code, nb, count);
                    return cells.size();
                  });
}

bool erosion_detail::exact_cell_multiples(double cell, std::size_t n) {
  if (!(std::isfinite(cell) && cell > 0.0) || !std::isfinite(cell * double(n))) return false;
  int e = 0;
  // The 53-bit significand as an integer, its trailing zeros dropped: the odd m of m * 2^e.
  std::uint64_t m = std::uint64_t(std::ldexp(std::frexp(cell, &e), 53));
  m >>= std::countr_zero(m);
  return n == 0 || m < (std::uint64_t(1) << 53) / n;
}

bool erosion_detail::drainage_without_pits(const Field2D& heights, const RoutingParams& params,
                                           Field2D& out, const ExecContext& ctx) {
  const GridSpec& g = heights.grid;
  g.validate("flow routing heights");
  const std::size_t n = g.sample_count();
  if (heights.data.size() != n || n > std::size_t(0xFFFFFFFFu) ||
      !exact_cell_multiples(g.spacing_m * g.spacing_m, n)) {
    return false;
  }
  const int w = g.width, h = g.height;
  const std::size_t sw = std::size_t(w);
  const NeighbourOffsets nb(w);
  const float* hs = heights.data.data();
  const Outlets is_outlet{hs, w, h, params.use_sea_level, float(params.sea_level_m)};
  const ExecContext inner = quiet(ctx);
  const RowKernels kernels = row_kernels(resolved_simd_target(ctx));
  // Donor masks (as compute_flow_routing's), from receivers formed per block of rows in a
  // buffer of its own that also holds the rows above and below it; a pit or a NaN stops it.
  std::vector<std::uint8_t> mask;
  cd::resize_huge(mask, n, &ctx);
  std::atomic<bool> pit{false};
  const std::int64_t rows = std::max<std::int64_t>(8, 262144 / std::max(1, w));
  parallel_for(inner, h, rows, [&](std::int64_t b, std::int64_t e) {
    // A pit or a NaN found by any block ends every block that has not begun.
    if (pit.load(std::memory_order_relaxed)) return;
    const int lo = int(std::max<std::int64_t>(b - 1, 0));
    const int hi = int(std::min<std::int64_t>(e + 1, h));  // rows [lo, hi) in the buffer
    std::vector<std::uint32_t> buf(std::size_t(hi - lo) * sw);
    const auto rcv_row = [&](int j) { return buf.data() + std::size_t(j - lo) * sw; };
    std::int64_t pits = 0, outlets = 0;
    for (int j = lo; j < hi; ++j) {
      receivers_row(kernels, is_outlet, rcv_row(j), j, pits, outlets);
      if (pits > 0 || row_nan(hs, w, j) < 0) {
        pit.store(true, std::memory_order_relaxed);
        return;
      }
    }
    for (int j = int(b); j < int(e); ++j) donor_masks_row(kernels, w, h, j, rcv_row, mask.data());
  });
  if (pit.load()) return false;
  // Each cell's count of the cells that drain through it (itself included), from the outlets
  // up, each count written after its donors' (a depth-first walk that comes back to a cell once
  // its donors are done): whole numbers, so the same whatever the order of the additions.
  // The counts are held in out.data's own storage, as bit patterns (0.0f is a count of 0).
  out.grid = g;
  cd::assign_huge(out.data, n, 0.0f, &ctx);
  float* const area = out.data.data();
  const auto cnt = [area](std::size_t c) { return std::bit_cast<std::uint32_t>(area[c]); };
  const auto set = [area](std::size_t c, std::uint32_t v) { area[c] = std::bit_cast<float>(v); };
  const std::uint8_t* msk = mask.data();
  parallel_for(inner, h, std::max<std::int64_t>(1, 16384 / std::max(1, w)),
               [&](std::int64_t b, std::int64_t e) {
                 std::vector<std::uint32_t> stack;
                 for (int j = int(b); j < int(e); ++j) {
                   for (int i = 0; i < w; ++i) {
                     const std::size_t root = std::size_t(j) * sw + std::size_t(i);
                     if (!is_outlet(root, i, j)) continue;
                     stack.assign(1, std::uint32_t(root));
                     while (!stack.empty()) {
                       const std::uint32_t c = stack.back();
                       unsigned m = msk[c];
                       if (cnt(c) == 0) {  // first visit: its donors go on the stack
                         set(c, 1);
                         for (; m != 0; m &= m - 1) {
                           stack.push_back(
                               std::uint32_t(std::ptrdiff_t(c) + nb.offset[std::countr_zero(m)]));
                         }
                         continue;
                       }
                       stack.pop_back();
                       std::uint32_t sum = 1;
                       for (; m != 0; m &= m - 1) {
                         sum +=
                             cnt(std::size_t(std::ptrdiff_t(c) + nb.offset[std::countr_zero(m)]));
                       }
                       set(c, sum);
                     }
                   }
                 }
               });
  std::vector<std::uint8_t>().swap(mask);
  // The counts become areas in place, as flow_accumulation's do: double(count) * cell is what
  // the doubles would have added up to, and its float the same bits.
  const double cell = g.spacing_m * g.spacing_m;
  parallel_for(inner, std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
    for (std::size_t c = std::size_t(b); c < std::size_t(e); ++c) {
      area[c] = float(double(cnt(c)) * cell);
    }
  });
  return true;
}

void flow_accumulation(const FlowRouting& routing, const GridSpec& grid,
                       std::span<const float> rain, Field2D& out, const ExecContext& ctx) {
  grid.validate("flow_accumulation grid");
  const std::size_t n = grid.sample_count();
  if (grid.width != routing.width || grid.height != routing.height || routing.order.size() != n ||
      routing.receiver.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "flow_accumulation: the routing (" + std::to_string(routing.width) + " x " +
                    std::to_string(routing.height) + ") does not match the grid (" +
                    std::to_string(grid.width) + " x " + std::to_string(grid.height) + ")");
  }
  const std::vector<std::size_t>& parts = routing.part_begin;
  if (!parts.empty() && (parts.size() < 2 || parts.front() != 0 || parts.back() != n ||
                         !std::is_sorted(parts.begin(), parts.end()))) {
    throw Error(ErrorCategory::invalid_argument,
                "flow_accumulation: the routing's part_begin (" + std::to_string(parts.size()) +
                    " entries) does not split its order of " + std::to_string(n) +
                    " cells into parts: it must rise from 0 to " + std::to_string(n) +
                    ", or be empty");
  }
  if (!rain.empty() && rain.size() != n) {
    throw Error(ErrorCategory::invalid_argument,
                "flow_accumulation: rain has " + std::to_string(rain.size()) +
                    " samples, the grid needs " + std::to_string(n));
  }
  const double cell = grid.spacing_m * grid.spacing_m;
  const std::uint32_t* order = routing.order.data();
  const std::uint32_t* receiver = routing.receiver.data();
  // Along every part, or along the whole order for a routing without parts.
  const auto along_parts = [&](auto* area, auto add) {
    if (parts.empty()) {
      ed::accumulate_downstream(order, receiver, area, n, add);
      return;
    }
    parallel_for(ed::quiet(ctx), std::int64_t(parts.size() - 1), ed::part_grain(parts.size() - 1),
                 [&](std::int64_t p0, std::int64_t p1) {
                   for (std::int64_t p = p0; p < p1; ++p) {
                     const std::size_t b = parts[std::size_t(p)], e = parts[std::size_t(p) + 1];
                     ed::accumulate_downstream(order + b, receiver, area, e - b, add);
                   }
                 });
  };
  if (rain.empty() && ed::exact_cell_multiples(cell, n)) {
    // Without rain, and where every partial sum is exact, cells are counted instead (4 bytes
    // per cell, not 8 of doubles and 4 of the floats) and each count becomes the double sum's
    // float, the same bits: double(count) * cell is exactly what the doubles would have added
    // up to. The counts are kept in out.data's own storage, as bit patterns, until then.
    out.grid = grid;
    cd::resize_huge(out.data, n, &ctx);
    std::span<float> data = out.data;
    parallel_for(ed::quiet(ctx), std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
      std::fill(data.begin() + b, data.begin() + e, std::bit_cast<float>(std::uint32_t(1)));
    });
    along_parts(data.data(), [](float a, float b) {
      return std::bit_cast<float>(std::bit_cast<std::uint32_t>(a) +
                                  std::bit_cast<std::uint32_t>(b));
    });
    parallel_for(ed::quiet(ctx), std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t c = b; c < e; ++c) {
        data[std::size_t(c)] =
            float(double(std::bit_cast<std::uint32_t>(data[std::size_t(c)])) * cell);
      }
    });
    return;
  }
  std::vector<double> area;
  cd::assign_huge(area, n, cell, &ctx);
  if (!rain.empty()) {
    for (std::size_t c = 0; c < n; ++c) {
      if (!(std::isfinite(rain[c]) && rain[c] >= 0.0f)) {
        throw Error(ErrorCategory::invalid_argument,
                    "flow_accumulation: rain at (" + std::to_string(c % std::size_t(grid.width)) +
                        ", " + std::to_string(c / std::size_t(grid.width)) +
                        ") = " + format_number(rain[c]) + " is outside the allowed range [0, inf)");
      }
      area[c] = cell * double(rain[c]);
    }
  }
  along_parts(area.data(), std::plus<>());
  out.grid = grid;
  cd::resize_huge(out.data, n, &ctx);
  parallel_for(ed::quiet(ctx), std::int64_t(n), 65536, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t c = b; c < e; ++c) out.data[std::size_t(c)] = float(area[std::size_t(c)]);
  });
}

}  // namespace terrane
