// terrane erosion: thermal erosion, hydraulic droplet erosion, stream-power landscape evolution
// and hydrology (flow routing, drainage area, rivers, lakes, sea). Module `erosion`; depends on
// core, noise, graph (post "graph" operations, uplift nodes) and field (blur).
//
// These are region operations: they read and modify a whole height field (a map or a region
// with a margin), not a chunk in isolation. Boundary handling is stated per function.
//
// Contract shared by every function here:
// - Heights are metres; the cell size is heights.grid.spacing_m.
// - Parameters are plain structs validated by the function (validate() throws
//   Error(invalid_argument) naming the JSON-style path, the value and the allowed range).
// - Deterministic: the result is bit-identical for every ExecContext::threads value and every
//   SIMD target. All kernels are plain C++ compiled with -ffp-contract=off (no FMA contraction)
//   and use only correctly rounded IEEE operations in a fixed order per sample; the only library
//   calls are std::sqrt (correctly rounded), std::tan / std::pow on parameters, and, in
//   stream_power() with m != 0.5, std::pow(A, m) per cell (libm: deterministic for one build
//   and C library, not promised identical across C libraries; m = 0.5 uses std::sqrt).
// - Reentrant: functions may run concurrently on distinct fields. The caller owns every output;
//   functions allocate only scratch (sizes stated below) and check limits before allocating.
// - ExecContext::progress is called with a fraction in [0, 1]; ExecContext::cancel stops long
//   work between iterations / batches / steps with Error(cancelled). The SIMD kernels
//   (droplets, thermal, stream-power diffusion) run on ExecContext::simd's target.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/graph.hpp"
#include "terrane/schema.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Thermal erosion

inline constexpr int kMaxThermalIterations = 100000;

struct ThermalParams {
  // Angle of repose: material moves while the slope to a neighbour exceeds tan(talus_deg).
  double talus_deg = 35.0;  // [Units: degrees] [Limit: [0, 90)]
  // Fraction of half the largest excess height difference moved per iteration.
  double strength = 0.5;  // [Limit: (0, 1]]
  int iterations = 50;    // [Limit: 0..kMaxThermalIterations]

  // Throws Error(invalid_argument) naming `path` + field, the value and the allowed range.
  // Schema table (terrane/schema.hpp): the keys of a post "thermal" operation and their limits.
  static std::span<const Field<ThermalParams>> fields();
  void validate(std::string_view path = "thermal") const;
};

// Thermal (talus) erosion in place, 8-neighbour, cell size aware: the neighbour at distance d
// (spacing or spacing*sqrt 2) receives material while h - h_n > d * tan(talus). Per iteration,
// one race-free two-pass formulation (Musgrave, Kolb & Mace 1989, "The synthesis and rendering
// of eroded fractal terrains"; transfer rule of Olsen 2004): pass 1 reads the old heights and
// stores, per cell, the factor f = strength * 0.5 * max_excess / sum_excess; pass 2 gathers,
// per cell, h' = h - sum_k f * e_k(out) + sum_k f_n * e_k(in), recomputing every excess from
// the old heights. Neighbours outside the field do not exist (closed boundary), so the total
// volume is conserved up to float rounding. O(iterations * n), parallel over bands of rows
// (both passes fused per band, vectorised: SSE2/AVX2/AVX-512 give the same bits), in place:
// scratch is seven rows per band and four rows of each band's neighbours, no second map.
void thermal_erosion(Field2D& heights, const ThermalParams& params, const ExecContext& ctx = {});

// ---------------------------------------------------------------------------------------------
// Hydraulic droplet erosion

// Largest droplet count per call (2^26 = 67,108,864).
inline constexpr std::int64_t kMaxDroplets = std::int64_t{1} << 26;
inline constexpr int kMaxDropletLifetime = 1024;
inline constexpr double kMaxBrushRadiusCells = 16.0;

// The particle model of Beyer 2015 ("Implementation of a method for hydraulic erosion") as
// popularised by S. Lague (2019), whose defaults these are. Lague's model is dimensionless: one
// step is one cell and a height difference of 1 is one "height unit". terrane maps it to metres
// with height_unit_m, and, when reference_spacing_m > 0, to physical lengths (see below).
struct DropletParams {
  std::int64_t droplets = 80000;  // [Limit: 0..kMaxDroplets]
  std::uint64_t seed = 1;         // start points: hash of (seed, droplet index)
  double inertia = 0.05;          // how much of its old direction a droplet keeps [Limit: [0, 1)]
  double capacity = 4.0;          // sediment capacity factor [Limit: [0, 1e6]]
  double min_capacity =
      0.01;  // capacity floor on flat ground [Units: height units] [Limit: [0, 1e6]]
  double erode_speed = 0.3;    // fraction of the free capacity eroded per step [Limit: [0, 1]]
  double deposit_speed = 0.3;  // fraction of the surplus deposited per step [Limit: [0, 1]]
  double evaporation = 0.01;   // fraction of the water lost per step [Limit: [0, 1)]
  double gravity = 4.0;        // speed^2 += drop * gravity [Limit: [0, 1e6]]
  double initial_water = 1.0;  // [Limit: (0, 1e6]]
  double initial_speed = 1.0;  // [Limit: [0, 1e6]]
  int max_lifetime = 30;       // steps per droplet [Limit: 1..kMaxDropletLifetime]
  double brush_radius = 3.0;   // erosion brush radius [Units: cells] [Limit: [1, 16]]
  // Metres of one Lague height unit: a drop of height_unit_m metres counts as 1 in the capacity
  // and speed equations, and capacities are height_unit_m metres per unit. Lague's maps hold
  // heights in [0, 1]; the default makes a terrain of a few hundred metres of relief behave like
  // them (a smaller unit erodes more aggressively: deeper gullies, more isolated residual
  // cells). Use 1 for a map whose heights are themselves in [0, 1]. [Units: m] [Limit: (0, 1e6]]
  double height_unit_m = 100.0;
  // 0: Lague's model per cell (lifetime in steps, radius in cells, whatever the spacing).
  // > 0: physical mode. The parameters above describe a droplet on a grid of spacing
  // reference_spacing_m; on a grid of spacing s, with q = s / reference_spacing_m, the droplet
  // lives round(max_lifetime / q) steps of one cell (same path length in metres), the brush
  // radius is brush_radius / q cells (same radius in metres), height drops enter the capacity
  // as a slope (drop / q), the per-step rates erode_speed, deposit_speed and evaporation become
  // 1 - (1 - rate)^q, capacities and the per-step erosion cap are volumes (scaled by 1 / q^2
  // per cell, as the brush covers 1 / q^2 times more cells), so a map eroded
  // at a finer resolution keeps its character. The derived lifetime and radius are clamped to
  // their limits (at least one step and a one-cell brush on a grid much coarser than the
  // reference). [Units: m] [Limit: 0 or (0, 1e6]]
  double reference_spacing_m = 0.0;
  // Erosion is faded out towards the map edge: 0 while the brush touches the edge, rising by a
  // smoothstep to full strength over this distance further in; deposition is unaffected.
  // 0 disables. [Units: m] [Limit: [0, 1e9]]
  double border_falloff_m = 0.0;

  // Schema table (terrane/schema.hpp): the keys of a post "droplets" operation and their limits.
  static std::span<const Field<DropletParams>> fields();
  void validate(std::string_view path = "droplets") const;
};

// Sediment bookkeeping of one droplet_erosion() call, in cubic metres (height change times the
// cell area), summed in double in a fixed order.
struct DropletStats {
  double eroded_m3 = 0.0;       // material removed by the brush
  double deposited_m3 = 0.0;    // material added by bilinear deposition (including the load a
                                // droplet drops where it dies: end of life, standstill)
  double carried_off_m3 = 0.0;  // load of droplets that left the map
  std::int64_t steps = 0;       // droplet steps simulated
};

// Droplet erosion in place. Droplet k starts at a position hashed from (seed, k), uniform over
// [0, w-1) x [0, h-1) cells. Per step: height and gradient by bilinear interpolation of the four
// surrounding samples; direction = old * inertia - gradient * (1 - inertia), normalised; move one
// cell; capacity = max(drop * speed * water * capacity, min_capacity); uphill or over capacity:
// deposit bilinearly on the four samples around the old position (uphill: at most the height
// difference); otherwise erode min((capacity - load) * erode_speed, drop) through a radius brush
// (weights max(0, r - distance), normalised) around the old position's cell, never lowering a
// cell below the height the droplet moves to (no self-deepening pits); speed^2 += drop * gravity
// (Beyer's sign: downhill accelerates); water *= 1 - evaporation. A droplet leaving
// [0, w-1) x [0, h-1) carries its load off the map; one that dies on it (end of life,
// standstill) spreads its load through the brush. Near the edge the brush is clipped.
//
// Parallel and deterministic: droplets are run in batches; in each batch they are binned by
// start point into square tiles wider than twice a droplet's reach (lifetime + brush radius + 2
// cells), and the tiles are processed in four phases of a 2x2 colouring; tiles of one phase are
// independent (no droplet of one reads or writes a cell another may touch) and run in parallel,
// droplets of one tile in index order. The tile grid is shifted per batch by a hash of (seed,
// batch), so tiles leave no seams. Output bits do not depend on the thread count.
// Fields narrower than 2 samples in either direction are left unchanged. Scratch: O(droplets)
// integers. Returns the sediment bookkeeping.
DropletStats droplet_erosion(Field2D& heights, const DropletParams& params,
                             const ExecContext& ctx = {});

// ---------------------------------------------------------------------------------------------
// Flow routing and hydrology

// Cells are indexed row-major: c = j * width + i. A routing is a spanning forest of the grid
// along which water flows: every cell has one receiver (itself for outlets), and `order` lists
// all cells so that each receiver comes before its donors (outlets first).
inline constexpr std::size_t kRoutingPartOutlets = 64;

struct FlowRouting {
  int width = 0;
  int height = 0;
  std::vector<std::uint32_t> receiver;  // receiver[c]: next cell downstream; c for outlets
  std::vector<std::uint32_t> order;     // topological order, receivers before donors
  // `order` in independent parts: part p, order[part_begin[p], part_begin[p + 1]), holds every
  // cell that drains to one group of kRoutingPartOutlets consecutive outlets (in cell order; the
  // last group may be smaller). A cell and its receiver are always in the same part, so the
  // parts can be walked in parallel; the parts come in the order of their outlets.
  std::vector<std::size_t> part_begin;
  std::vector<float> filled_m;          // depression-filled surface (>= heights) [Units: m]
  // With Parts::basins, on a map with pits: basin[c] is k (1..depressions) for a cell whose
  // water gathers in pit k's depression, and a number above `depressions` for a cell that
  // drains to an outlet without one; spill_m[k] is pit k's spill level (spill_m[0] unused). A
  // cell's filled level is then max(height, spill_m[basin[c]]) for basin[c] <= depressions, else
  // its height: the filled surface at 4 bytes per cell and 4 per pit, without filled_m. Both
  // are empty without Parts::basins and on a map without pits.
  std::vector<std::uint32_t> basin;
  std::vector<float> spill_m;
  std::int64_t depressions = 0;         // interior cells without a lower neighbour (pits)
  // What compute_flow_routing gives besides `depressions`: without the order, receiver, order
  // and part_begin are left empty and no order is built (a caller that needs the filled surface
  // alone, such as breaching's partial fill or a block world's lakes); without the levels,
  // filled_m is left empty (breaching's cut). With levels_only_with_pits, a map without pits
  // (depressions == 0) leaves filled_m empty too: its filled surface is the heights themselves,
  // and a caller that reads them there holds no copy (hydrology of a breached map).
  struct Parts {
    bool order = true;
    bool levels = true;
    bool levels_only_with_pits = false;
    // Without the order, the receivers all the same (the same as with it: each pit's catchment
    // routed across its spill link), for a caller that walks them by other means (breaching's
    // cut); part_begin and the order stay empty.
    bool receivers_without_order = false;
    bool basins = false;  // basin and spill_m (breaching's partial fill)
    // Without the order, the receivers as receiver_code and donor_mask (1 byte per cell each,
    // not 4), `receiver` left empty (stream power's steps, which walk them from the outlets).
    bool receiver_codes = false;
  } parts;
  // With Parts::receiver_codes: each cell's receiver as a byte, 0 for an outlet (its own
  // receiver), else 1 + k for the receiver at the k-th of the 8 neighbours in ascending cell
  // index (c - w - 1, c - w, c - w + 1, c - 1, c + 1, c + w - 1, c + w, c + w + 1); and each
  // cell's donors as a mask, bit k set where the k-th neighbour drains to it (its code is
  // 8 - k). Both empty otherwise.
  std::vector<std::uint8_t> receiver_code;
  std::vector<std::uint8_t> donor_mask;
  // Working memory of compute_flow_routing, kept with the result so that repeated calls on one
  // FlowRouting (a stream-power run's steps) reuse it instead of allocating, zeroing and
  // faulting in fresh pages each time: 5 bytes per cell (donor masks, labels), 4 more once a
  // map without pits has been routed (the walks' buffers), and 4 per pit and per group of
  // kRoutingPartOutlets outlets (the outlets themselves are told from the heights). Contents
  // unspecified. With keep_scratch false, each part of it is released as soon as the call no
  // longer needs it, and it is empty afterwards: a one-off routing then peaks at 13 bytes per
  // cell beside the heights (receivers, order, filled levels and donor masks; the result alone
  // is 12), and at 5 while the roots are listed (receivers, donor masks; the labels are
  // allocated after the receivers are dropped). With pits it drops its receivers while the
  // cells are labelled and the basin graph is searched (5 plus the graph's links) and forms
  // them again, the same bits, before its walks; a map without pits is counted first and
  // walked straight into the order (no walk buffers). Without the order: 5, then 5 plus the
  // links, and 8 while the levels are written (labels and levels); without the levels: 9; the
  // receivers alone (Parts::receivers_without_order): 5 while the links are gathered (the
  // labels given back as they are read), the links alone while the graph is searched, then 4
  // (receivers). With Parts::receiver_codes the receivers are formed in the labels' storage and
  // coded row by row as they are formed: 6 bytes per cell (labels 4, codes 1, donor masks 1),
  // plus the links while the graph is searched, kept or not.
  bool keep_scratch = true;
  struct Scratch {
    std::vector<std::uint8_t> donor_mask;
    std::vector<std::uint32_t> label, roots;
    std::vector<std::vector<std::uint32_t>> queue;
    std::vector<std::int64_t> row_pits, row_outlets;
  } scratch;
};

struct RoutingParams {
  // Cells below sea_level_m are outlets (sea) when `use_sea_level`; border cells always are.
  bool use_sea_level = false;
  double sea_level_m = 0.0;  // [Units: m] finite
  // Schema table (terrane/schema.hpp): keys and limits.
  static std::span<const Field<RoutingParams>> fields();
  void validate(std::string_view path = "routing") const;
};

// D8 routing with depression handling. Outlets are the border cells (and sea cells). The
// filled surface is the Priority-Flood surface (Barnes, Lehman & Mulla 2014, "Priority-flood: An
// optimal depression-filling and watershed-labeling algorithm"), bit for bit: filled = the
// lowest level at which water can leave the map. It is computed on the graph of D8 basins
// (Cordonnier, Bovy & Braun 2019, "A versatile, linear complexity algorithm for flow routing in
// topographies with depressions"): each cell drains to its steepest-descent neighbour
// (drop / distance, 8 neighbours, ties to the first in the order E, W, S, N, SE, SW, NE, NW,
// where S is +j); each pit's catchment drains through a pass to a neighbouring basin: the path
// from the pass cell down to the pit is reversed, and the pass cell drains across into a basin
// whose water leaves the map at the same or a lower level (the lowest-spill tree over basins).
// Every cell drains to an outlet, the graph has no cycles, filled never rises along a receiver,
// and a lake's drainage path leaves it at a rim cell at the lake's level. The order is built
// part by part (FlowRouting::part_begin): for each group of outlets, a breadth-first walk from
// each outlet over the D8 donors, then the pits' catchments that drain into that group, basin
// by basin in the order their spill levels were settled. The walks from different outlets and
// pits run in parallel; the result does not depend on the thread count. O(n) in parallel
// passes, plus serial work on the basin graph (its links and a heap over the pits); working
// memory 5 to 9 bytes per cell (FlowRouting::keep_scratch).
void compute_flow_routing(const Field2D& heights, const RoutingParams& params, FlowRouting& out,
                          const ExecContext& ctx = {});

// Drainage area in m^2 per cell: each cell contributes spacing^2 (times rain[c] when `rain` is
// non-empty; rain must then have width*height entries, each finite and >= 0) and passes its
// total to its receiver. `out` gets heights' grid. O(n); the parts of the order
// (FlowRouting::part_begin) run in parallel, with the same sums, bit for bit, on any thread
// count. A routing without parts (part_begin empty: one built by hand) is one part.
void flow_accumulation(const FlowRouting& routing, const GridSpec& grid,
                       std::span<const float> rain, Field2D& out, const ExecContext& ctx = {});

inline constexpr std::int32_t kNoLake = 0;

// One lake: a connected set of cells whose filled level is above the terrain.
struct Lake {
  std::int32_t id = 0;   // 1-based; lake_id field value
  double level_m = 0.0;  // water surface [Units: m]
  std::int64_t cells = 0;
  double area_m2 = 0.0;
  double volume_m3 = 0.0;  // sum of (level - height) * cell area
  int spill_i = 0;         // outlet cell: the first cell on the lake's drainage path that is
  int spill_j = 0;         // not in the lake; on the lake's rim, at the lake's level
};

struct HydrologyParams {
  RoutingParams routing;
  // Cells whose drainage area reaches this are rivers. [Units: m^2] [Limit: > 0, finite]
  double river_area_m2 = 1.0e6;
  // Depressions shallower than this at their deepest cell are not lakes. [Units: m] [Limit: >= 0]
  double min_lake_depth_m = 0.0;
  // Schema table (terrane/schema.hpp): river_area_m2, min_lake_depth_m (routing is
  // set by the caller: a post "graph" operation uses the world's sea level).
  static std::span<const Field<HydrologyParams>> fields();
  void validate(std::string_view path = "hydrology") const;
};

struct Hydrology {
  FlowRouting routing;
  Field2D drainage_area_m2;           // flow accumulation [Units: m^2]
  std::vector<std::uint8_t> river;    // 1 where drainage area >= river_area_m2 (and not lake/sea)
  std::vector<std::uint8_t> sea;      // 1 where routing.use_sea_level and height < sea_level_m
  std::vector<std::int32_t> lake_id;  // kNoLake or the 1-based id of the lake the cell is in
  Field2D water_level_m;    // lake level in lake cells, sea level in sea cells, else height
  std::vector<Lake> lakes;  // in id order (ordered by first cell, row-major)
};

// The parts of a Hydrology a caller needs beyond the water (rivers, lakes, water level), which
// compute_hydrology always gives. A part left out is empty in the result and its memory is
// released as soon as the call is done with it: without the routing, its filled levels become
// the water levels in place and its order and receivers go before the lakes' water levels are
// written, and without the drainage area, the area goes once the cells that reach the river
// threshold are marked: the call then peaks at 16 bytes per cell beside the heights (the
// routing and the drainage area; 10 where its cells can be counted exactly, the routing giving
// receiver codes and donor masks instead of receivers and order, plus the buffers of the walks
// that count them) and keeps 10 (5 without the lake ids and sea flags), against 26 kept with
// every part. The lake ids and sea flags are computed either way (the lakes and
// rivers need them) and released at the end. Without the routing, a map without pits (a
// breached one) makes no copy of its filled levels (they are its heights; it has no lakes) and
// no lake ids unless they are kept; where its cells can be counted exactly (a spacing with few
// significant bits, such as 30 m or 0.5 m: see flow_accumulation), its drainage area is formed
// without the routing (donor masks and counts, 5 bytes per cell beside the heights), else it
// peaks at 12 (the receivers, the order and the drainage area).
struct HydrologyParts {
  bool routing = true;
  bool drainage_area = true;
  bool lake_ids = true;  // Hydrology::lake_id
  bool sea = true;       // Hydrology::sea
  // With this, a map on which no lake is found leaves water_level_m empty: its levels are the
  // heights, and the sea level where use_sea_level and the height is below it (readers of
  // PreviewWater, terrane/io.hpp, treat an empty level so). Saves 4 bytes per cell.
  bool water_level_only_with_lakes = false;
};

// Routing, drainage area, rivers, lakes and sea of a height field. Lakes are the 8-connected
// components of cells with filled - height > 0 whose deepest point is at least
// min_lake_depth_m deep; every cell of a lake has the same filled level. O(n log n). The parts
// kept do not change the others' values.
void compute_hydrology(const Field2D& heights, const HydrologyParams& params, Hydrology& out,
                       const ExecContext& ctx = {}, HydrologyParts keep = {});

// ---------------------------------------------------------------------------------------------
// Stream-power landscape evolution

inline constexpr int kMaxStreamPowerSteps = 1000000;

struct StreamPowerParams {
  double uplift_m_per_yr =
      1.0e-3;  // U, times the uplift map if given [Units: m/yr] [Limit: [0, 1]]
  double erodibility =
      2.0e-6;      // K in dh/dt = U - K A^m S^n [Units: yr^-1 m^(1-2m)] [Limit: [0, 1]]
  double m = 0.5;  // area exponent [Limit: [0, 2]]
  double n = 1.0;  // slope exponent; only n = 1 (implicit solver) is supported
  double diffusivity_m2_per_yr = 0.0;  // hillslope diffusion D [Units: m^2/yr] [Limit: [0, 1e3]]
  double dt_yr = 1000.0;               // time step [Units: yr] [Limit: (0, 1e7]]
  int steps = 100;                     // [Limit: 0..kMaxStreamPowerSteps]
  RoutingParams routing;               // outlets: border (and sea); their heights stay fixed
  // Schema table (terrane/schema.hpp): the keys of a post "stream_power" operation and their
  // limits; routing.use_sea_level / routing.sea_level_m are "use_sea_level" / "sea_level_m".
  static std::span<const Field<StreamPowerParams>> fields();
  void validate(std::string_view path = "stream_power") const;
};

struct StreamPowerStats {
  double uplift_m3 = 0.0;        // volume added by uplift
  double incision_m3 = 0.0;      // volume removed by channel incision (negative: lake infill)
  double diffusion_m3 = 0.0;     // net volume change by diffusion (flux through the fixed border)
  std::int64_t depressions = 0;  // pits found over all steps (routing.depressions summed)
};
// Working memory of stream_power(). Where the cells are counted exactly (a cell area with few
// significant bits: 30 m, 0.5 m; erosion_detail::exact_cell_multiples), 10 bytes per cell: the
// routing's receiver codes and donor masks (1 each) and its labels' storage (4, which holds the
// drainage counts between its calls), plus the routing's roots and basin graph while it runs,
// and each worker's buffer for the cells of the outlet it walks (4 per cell of the largest
// drainage tree it has walked). Otherwise 22 to 26: the routing with its order (13 to 17), the
// drainage area as doubles (8) and outlet flags (1). The diffusion works in place (a few rows
// per band). A call without one allocates its own for its steps; a caller that steps the
// evolution itself (one step per call, as the benchmark does) passes the same scratch to every
// call, so nothing is allocated, zeroed or faulted in again. Any map size; contents unspecified
// between calls.
struct StreamPowerScratch {
  FlowRouting routing;
  std::vector<double> area, row_sum;
  std::vector<std::uint8_t> moves;
  // The walks from the outlets (where cells are counted): each worker's buffer, and the tiles
  // of outlets in the order the workers take them, with the cells each gave the last step.
  std::vector<std::vector<std::uint32_t>> walks;
  std::vector<std::uint32_t> tile_order;
  std::vector<std::size_t> tile_cells;
};

// Braun & Willett 2013 ("A very efficient O(n), implicit and parallel method to solve the stream
// power equation governing fluvial incision and landscape evolution", Geomorphology 180-181).
// Per step: routing (compute_flow_routing, so depressions drain through their spill points),
// drainage area A (flow_accumulation's), then, receivers before donors:
//   h_i' = (h_i + U_i dt + F h_r') / (1 + F),  F = K dt A_i^m / L_ir,
// which is the implicit solution for n = 1; a cell whose receiver ends above it (a lake) is only
// uplifted. Then linear hillslope diffusion dh/dt = D laplacian(h) with outlets held fixed: one
// explicit (forward Euler) step where d = D dt / spacing^2 <= 0.2, else one implicit step split
// by direction (backward Euler along rows, then along columns: tridiagonal solves, stable for
// any d, two O(n) passes). Outlets are never uplifted.
// `uplift_map` (optional) multiplies U per cell; it must have heights' size with finite values
// in [0, 1e3]. Throws Error(invalid_argument) for n != 1. Per step O(n) (plus a heap over the
// pits' basins); the accumulation and the incision walk the outlets' drainage trees (or the
// routing's parts) in parallel, the heights coming out bit for bit as along the whole order;
// scratch 10 or 22 to 26 bytes per cell (StreamPowerScratch, above: pass one to reuse it).
StreamPowerStats stream_power(Field2D& heights, const StreamPowerParams& params,
                              const Field2D* uplift_map = nullptr, const ExecContext& ctx = {},
                              StreamPowerScratch* scratch = nullptr);

// ---------------------------------------------------------------------------------------------
// Depression breaching

struct BreachParams {
  // Depressions are cut open along their outflow path by at most this much; a depression deeper
  // than this is first filled up to this far below its spill level (a flat of sediment, which
  // the cut then drains). [Units: m] [Limit: [0, 1e4]]
  double max_depth_m = 10.0;
  // Smallest descent per metre of flow path left along every path (so that no flat or closed
  // depression remains). [Limit: (0, 1]]
  double gradient = 1.0e-4;
  RoutingParams routing;  // outlets: border (and sea) cells
  // Schema table (terrane/schema.hpp): the keys of a post "breach" operation and their limits.
  static std::span<const Field<BreachParams>> fields();
  void validate(std::string_view path = "breach") const;
};

struct BreachStats {
  std::int64_t filled_cells = 0;  // cells raised by the partial fill
  std::int64_t carved_cells = 0;  // cells lowered by the cut
  double filled_m3 = 0.0;         // volume added by the partial fill
  double carved_m3 = 0.0;         // volume removed by the cut
};

// Drains every closed depression, so that water from any cell reaches an outlet downhill
// (hybrid breaching in the manner of Lindsay 2016, "Efficient hybrid breaching-filling sink
// removal methods for flow path enforcement in digital elevation models"): (1) routing
// (compute_flow_routing); each cell more than max_depth_m below its Priority-Flood level is
// raised to that level minus max_depth_m; (2) routing of the result; (3) from the sources down
// (each cell once all its donors are done), every receiver is lowered to at most its donor's
// height minus gradient * step length (and at least one float step below it). Only the outflow
// paths of depressions and flats change: elsewhere the receiver is already lower. Afterwards
// every non-outlet cell has a strictly lower receiver: no depression remains. Deterministic on
// any thread count, statistics included (the cut walks from the outlets in parallel, and sums
// per row of outlets). O(n); scratch: the first routing's basins (4 bytes per cell, the labels,
// and the basin graph), then the second's receivers (4; 5 plus the graph while it is formed).
BreachStats breach_depressions(Field2D& heights, const BreachParams& params,
                               const ExecContext& ctx = {});

// ---------------------------------------------------------------------------------------------
// Region operations of a preset's "post" list (docs/PRESETS.md, "post")

enum class RegionOpKind { thermal, droplets, stream_power, blur, graph, breach };
const char* to_string(RegionOpKind k);

// One entry of a preset's "post" list (parsed by the preset module, terrane/preset.hpp):
// {"op": "thermal" | "droplets" | "stream_power" | "blur" | "graph" | "breach",
// <fields>}. Fields are those of the matching params struct, by the same names (stream_power's
// routing.use_sea_level / routing.sea_level_m are "use_sea_level" / "sea_level_m"; droplets'
// seed is an offset hashed with the world seed), plus:
//   stream_power "uplift_node": id of a graph node whose output v in [-1, 1] gives the uplift
//                multiplier (v + 1) / 2 per cell (paint where mountains rise); absent: uniform.
//   blur         "sigma_m": Gaussian sigma in metres (field gaussian_blur, clamped edges).
//   graph        "output", "nodes": a graph with the node syntax of the preset's graph (node
//                seeds hashed with the world seed) whose input nodes read the hydrology of the
//                current heights (post_graph_input_names()); its output, in metres and not
//                clamped, replaces the heights. "river_area_m2", "min_lake_depth_m": the
//                HydrologyParams fields of that hydrology (sea level: the world's sea_level_m).
struct RegionOp {
  RegionOpKind kind = RegionOpKind::thermal;
  ThermalParams thermal;
  DropletParams droplets;
  StreamPowerParams stream_power;
  std::string uplift_node;    // stream_power only; empty: uniform uplift
  double blur_sigma_m = 1.0;  // blur [Units: m] [Limit: [0, 1e4]]
  Graph graph;                // graph only; Graph::path is "post[i]"
  HydrologyParams hydrology;  // graph only; routing is set from the preset's world when applied
  BreachParams breach;        // breach only; routing is set from the preset's world when applied

  // Schema table of the keys an operation of `kind` has besides its parameter struct's table
  // (ThermalParams::fields(), ...): "sigma_m" (blur), "uplift_node" (stream_power); empty for
  // the others.
  static std::span<const Field<RegionOp>> fields(RegionOpKind kind);
  // The keys an operation of `kind` accepts besides "op", in the order of the tables.
  static std::vector<std::string_view> keys(RegionOpKind kind);
  // Checks the parameters of `kind` (messages "<path>.<key> = ..."); the graph of a graph
  // operation is checked when parsed (Graph::validate) and compiled.
  void validate(std::string_view path = "post") const;
};

// The input fields a post "graph" operation's input nodes may read, all per grid sample:
//   height            current height [Units: m]
//   drainage_area_m2  Hydrology::drainage_area_m2 [Units: m^2]
//   flow              log10 of the drainage area in m^2 (as the `flow` output, before its
//                     normalisation; computed in double, rounded to float)
//   river, lake, sea  1 where the cell is a river / in a lake / sea, else 0
//   lake_depth_m      water level - height in lake cells, else 0 [Units: m]
//   water_level_m     Hydrology::water_level_m [Units: m]
std::span<const std::string_view> post_graph_input_names();

// The default operation of a kind, as `--erode` appends it (see docs/PRESETS.md). A graph
// operation has no sensible default (an empty graph); `--erode` rejects it.
RegionOp default_region_op(RegionOpKind kind);
// Parses "thermal" | "droplets" | "stream_power" | "blur" | "graph" | "breach"; Error(invalid_argument)
// lists them.
RegionOpKind parse_region_op_kind(std::string_view name);

// Applies the operations in order to a map generated from `generator` (Preset::generator()) on
// heights.grid. Droplet seeds are hash_combine(generator.seed, op seed); uplift nodes are
// evaluated on heights.grid. A graph operation computes compute_hydrology() of the current
// heights (sea level from generator.world) and evaluates its graph on heights.grid with those
// inputs; a non-finite output throws Error(invalid_argument) "<source>: post[i]: ..." naming the
// sample. Progress runs from 0 to 1 over all operations. Deterministic like every function here.
// `timings` (optional) receives one StageTiming per operation, named "post[i] <kind>" (a stream
// power operation's uplift node evaluation is part of it); with `stage_peaks`, each with its
// peak resident memory (StageClock: this resets the process's peak counter).
void apply_region_ops(Field2D& heights, const GraphSource& generator, std::span<const RegionOp> ops,
                      const ExecContext& ctx = {}, std::vector<StageTiming>* timings = nullptr,
                      bool stage_peaks = false);

}  // namespace terrane
