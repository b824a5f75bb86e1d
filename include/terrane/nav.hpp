// terrane nav: navigation meshes (module `nav`; depends on core, graph and world; Recast, Detour
// and DetourCrowd are private dependencies, none of their headers appears here).
//
// Sections, in order: the terrain a navmesh is built from (NavTerrain), agents and parameters,
// tiles (NavTileBuilder: the pure function (terrain, params, agent, tile) -> Detour tile bytes),
// the streamed navmesh (NavWorld), queries (NavQuery) and crowds (NavCrowd).
//
// Tiles. The tile grid starts at the world origin like the chunk grid, and a tile's side
// (tile_cells * cell_size_m) divides the chunk side, so every chunk holds whole tiles. A tile is
// rasterised from the level-0 triangles of the world (the lattice of the terrain's cell size,
// each cell split along the diagonal the level-0 chunks use) over the tile plus a border of
// the agent's radius + 3 cells, with heights from the pure terrain function: a tile never
// depends on which chunks or tiles happen to be loaded. Each tile has its own vertical bounds
// (Recast's span heights are 13-bit: tile relief over 8191 cell heights is an error naming the
// tile).
//
// Coordinates and poly refs. Detour works in float and this Detour has 32-bit poly refs. A
// navmesh therefore has an origin, a tile corner chosen by NavWorld, and every position inside
// it is (world - origin) as float: tiles within kNavMaxOriginDistance (8192 m) of the origin
// keep a millimetre or better. NavWorld re-centres (drops every tile and rebuilds them around
// the new origin; NavWorldStats::recentres counts it) when its points move farther than
// NavWorldParams::recentre_distance_m from the origin, so paths 10^8 m from the world origin
// work like paths next to it. Poly refs split their 32 bits as 10 salt bits, 12 tile bits (at
// most 4096 tiles loaded per agent: 1 km x 1 km of 16 m tiles) and 10 polygon bits (at most
// 1024 polygons per tile, checked when a tile is built). The tile bits index loaded tiles, not
// positions: the world extent around an origin is only limited by kNavMaxOriginDistance.
//
// Threads. NavTileBuilder is immutable and reentrant. NavWorld has an owner thread (all its
// non-const calls); its workers build tiles, and tiles are added to and removed from the
// Detour meshes on the owner thread only, inside poll(). Queries read the meshes: run them on
// the owner thread or on other threads while the owner is not inside poll() / invalidate() /
// build_region() (Detour is not safe for a tile add concurrent with a query), with one NavQuery
// per thread (each owns a dtNavMeshQuery).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/world.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Terrain

// The height field a navmesh walks on: a lattice of cell_size_m with heights at its vertices,
// each cell (gi, gj) split into two triangles along the diagonal the world's level-0 chunks use
// (mesh_detail::main_diagonal of the cell's chunk-local indices, chunk_cells per chunk). Edits
// (issue 16) supply their own implementation. Implementations must be thread-safe and pure:
// the same call returns the same bits on every thread.
class NavTerrain {
 public:
  virtual ~NavTerrain() = default;
  virtual double cell_size_m() const = 0;
  virtual int chunk_cells() const = 0;
  virtual double sea_level_m() const = 0;
  // Heights of vertices (i0 + i, j0 + j) for 0 <= i < width, 0 <= j < height, row-major
  // (out[j * width + i]) [Units: m]; out.size() == width * height.
  virtual void heights(std::int64_t i0, std::int64_t j0, int width, int height,
                       std::span<float> out) const = 0;
};

// The world's level-0 surface: heights are the compiled graph at the lattice vertices, the same
// bits as ChunkGenerator's samples and TerrainQuery. Throws Error(invalid_argument) for null.
std::shared_ptr<const NavTerrain> make_nav_terrain(std::shared_ptr<const ChunkGenerator> generator);

// The world's level-0 surface with height edits (edit.hpp): the graph plus the snapshot set
// last, the same bits as ChunkGenerator::generate and TerrainQuery with that snapshot. After an
// edit: set_edits(), then NavWorld::invalidate() over the edited area (edited_area_m), and the
// rebuilt tiles read the new heights. set_edits may run while workers build tiles (a build
// reads one snapshot for all its heights if it asks once; the invalidation redoes the rest).
class EditedNavTerrain final : public NavTerrain {
 public:
  // Throws Error(invalid_argument) for a null generator or edits of another cell size.
  explicit EditedNavTerrain(std::shared_ptr<const ChunkGenerator> generator,
                            std::shared_ptr<const HeightEditSnapshot> edits = nullptr);
  double cell_size_m() const override;
  int chunk_cells() const override;
  double sea_level_m() const override;
  void heights(std::int64_t i0, std::int64_t j0, int width, int height,
               std::span<float> out) const override;
  // Thread-safe. nullptr: no edits. Throws as the constructor.
  void set_edits(std::shared_ptr<const HeightEditSnapshot> edits);
  std::shared_ptr<const HeightEditSnapshot> edits() const;

 private:
  std::shared_ptr<const ChunkGenerator> generator_;
  mutable std::mutex mutex_;
  std::shared_ptr<const HeightEditSnapshot> edits_;
};

// The box in metres where the surface changes when the lattice vertices of `changed` do (for
// NavWorld::invalidate): the cells around them, [(i0 - 1) * cell, (i1 + 1) * cell] x
// [(j0 - 1) * cell, (j1 + 1) * cell].
std::array<double, 4> edited_area_m(const LatticeRect& changed, double cell_size_m);

// ---------------------------------------------------------------------------------------------
// Agents and parameters

struct NavAgent {
  std::string name = "humanoid";
  double radius_m = 0.5;        // [Limit: >= cell_size_m, <= a quarter of the tile side]
  double height_m = 2.0;        // clearance it needs [Limit: >= 3 cell heights]
  double max_climb_m = 0.6;     // step it walks up [Limit: 0 .. height_m]
  double max_slope_deg = 40.0;  // steepest walkable ground [Limit: (0, 90)]
  // Drops it may jump down: one-way links from the edge of a ledge to the ground below, for
  // falls of more than max_climb_m up to this [Units: m] [Limit: 0 (no links) .. 50].
  double max_drop_m = 3.0;
};

// "radius=0.5,height=2,climb=0.6,slope=40,drop=3,name=dwarf" (any subset, any order; the rest
// from `base`). Throws Error(invalid_argument) naming the bad key or value.
NavAgent parse_nav_agent(std::string_view spec, const NavAgent& base = {});

// Area ids of the navmesh polygons (Recast areas; 0 is Recast's "not walkable").
enum class NavArea : std::uint8_t {
  // Water is judged against the sea level only: lakes above it (hydrology over regions, which
  // a tile does not have) are ground.
  ground = 1,         // walkable, not steeper than NavParams::steep_slope_deg
  steep = 2,          // walkable, steeper than steep_slope_deg (up to the agent's max slope)
  shallow_water = 3,  // ground below sea level by less than NavParams::wade_depth_m
  deep_water = 4,     // below sea level by more: swimming (flag kNavFlagSwim)
  road = 5,           // reserved for roads (nothing marks it yet)
};
inline constexpr int kNavAreaCount = 6;
const char* to_string(NavArea area);

// Polygon flags (Detour's include/exclude filter bits) and off-mesh link kinds.
inline constexpr std::uint16_t kNavFlagWalk = 1;  // ground, steep, shallow water, road
inline constexpr std::uint16_t kNavFlagSwim = 2;  // deep water
inline constexpr std::uint16_t kNavFlagDrop = 4;  // off-mesh drop links (one-way)

// Cost multipliers per area (Detour's dtQueryFilter), and which flags a query may use.
struct NavFilter {
  std::array<float, kNavAreaCount> area_cost{1.0f, 1.0f, 2.0f, 2.5f, 10.0f, 0.75f};
  std::uint16_t include = kNavFlagWalk | kNavFlagSwim | kNavFlagDrop;
  std::uint16_t exclude = 0;
};

enum class NavPartition { watershed, monotone, layers };

struct NavParams {
  double cell_size_m = 0.25;        // voxel side [Limit: > 0; tile side divides the chunk side]
  double cell_height_m = 0.1;       // voxel height [Limit: > 0]
  int tile_cells = 64;              // tile side in cells [Limit: 16..512]
  double steep_slope_deg = 25.0;    // ground steeper than this is NavArea::steep [Limit: (0, 90)]
  double wade_depth_m = 0.8;        // shallow / deep water limit below sea level [Limit: >= 0]
  double max_edge_length_m = 12.0;  // polygon edges longer are split [Limit: >= 0]
  double max_simplification_error = 1.3;  // contour simplification [Units: cells] [Limit: >= 0]
  int min_region_cells = 64;              // smaller isolated regions are removed [Units: cells^2]
  int merge_region_cells = 400;           // smaller regions merge with a neighbour [Units: cells^2]
  // Height detail sampling [Units: cells] [Limit: 0 (none) or >= 0.9: Recast crashes below].
  double detail_sample_distance = 6.0;
  double detail_max_error_m = 0.1;  // [Limit: >= 0]
  NavPartition partition = NavPartition::watershed;
  // Loaded tiles per agent [Limit: power of two, 64..4096: the 12 tile bits of a poly ref].
  int max_tiles = 4096;
  std::vector<NavAgent> agents{NavAgent{}};  // [Limit: 1..16] each its own navmesh

  double tile_size_m() const { return cell_size_m * double(tile_cells); }
  // Throws Error(invalid_argument) naming the field, its value and the allowed range, also for
  // an agent bigger than a tile or a tile side that does not divide the terrain's chunk side.
  void validate(const NavTerrain& terrain) const;
};

inline constexpr int kNavMaxPolysPerTile = 1024;         // the 10 polygon bits
inline constexpr double kNavMaxOriginDistance = 8192.0;  // [Units: m]

// ---------------------------------------------------------------------------------------------
// Tiles

struct NavTileKey {
  std::int64_t tx = 0, tz = 0;  // tile (tx, tz) covers x in [tx * side, (tx + 1) * side)
  friend bool operator==(const NavTileKey&, const NavTileKey&) = default;
};

// Recast's input of one tile: the level-0 triangles over the tile and its border, in navmesh
// coordinates (world minus the origin tile's corner), and Recast's configuration numbers.
struct NavTileInput {
  std::vector<float> vertices;          // x, y, z per vertex
  std::vector<int> triangles;           // 3 vertex indices per triangle (counter-clockwise from +Y)
  std::vector<std::uint8_t> areas;      // per triangle: NavArea, or 0 where too steep
  std::array<float, 3> bmin{}, bmax{};  // the tile's box with its border
  // Recast's rcConfig, in its units (cells), for a baseline to build the same tile with.
  int width = 0, height = 0, tile_size = 0, border_size = 0;
  float cs = 0, ch = 0, walkable_slope_deg = 0;
  int walkable_height = 0, walkable_climb = 0, walkable_radius = 0, max_edge_len = 0;
  float max_simplification_error = 0;
  int min_region_area = 0, merge_region_area = 0, max_verts_per_poly = 6;
  float detail_sample_dist = 0, detail_sample_max_error = 0;
};

// One built tile of one agent's navmesh.
struct NavTile {
  int agent = 0;
  NavTileKey key;
  NavTileKey origin;               // the navmesh origin tile the bytes are relative to
  std::vector<std::uint8_t> data;  // Detour tile (dtCreateNavMeshData); empty: nothing walkable
  int polygons = 0;
  int off_mesh_links = 0;
  double walkable_area_m2 = 0.0;  // polygon area inside the tile (horizontal projection)
  std::size_t bytes() const { return data.capacity() + sizeof(NavTile); }
};

// The pure function (terrain, params, agent, tile, origin) -> tile bytes. Immutable, reentrant.
class NavTileBuilder {
 public:
  // Validates params against the terrain (NavParams::validate).
  NavTileBuilder(std::shared_ptr<const NavTerrain> terrain, const NavParams& params);
  ~NavTileBuilder();

  const NavParams& params() const { return params_; }
  const NavTerrain& terrain() const { return *terrain_; }
  std::shared_ptr<const NavTerrain> terrain_ptr() const { return terrain_; }
  double tile_size_m() const { return params_.tile_size_m(); }
  // The tile containing world (x, z).
  NavTileKey tile_at(double x_m, double z_m) const;
  // The tiles a world box covers (x0 <= x < x1, z0 <= z < z1), row by row (z, then x); what
  // NavWorld::build_region builds per agent. Throws Error(invalid_argument) for a non-finite or
  // empty box or one beyond kMaxWorldCoordinate, Error(limit) over max_tiles tiles or when a
  // tile lies beyond kNavMaxOriginDistance of region_origin(). Checks only: builds nothing.
  std::vector<NavTileKey> region_tiles(double x0_m, double z0_m, double x1_m, double z1_m) const;
  // The navmesh origin build_region chooses for the box: the tile at its centre.
  NavTileKey region_origin(double x0_m, double z0_m, double x1_m, double z1_m) const;

  // Recast's input for the tile (what build() rasterises). Throws Error(invalid_argument) for
  // an agent index out of range or a tile beyond kNavMaxOriginDistance of the origin, and
  // Error(limit) when the tile's relief exceeds Recast's 13-bit span heights.
  void input(int agent, const NavTileKey& key, const NavTileKey& origin, NavTileInput& out) const;
  // Builds the tile: Recast's pipeline (rasterise, filter, erode by the radius, regions,
  // contours, polygons, height detail) on input(), areas by slope and water depth, drop links,
  // then Detour's tile data. The bytes depend only on (terrain, params, agent, key, origin).
  // Throws as input(), Error(limit) over kNavMaxPolysPerTile polygons, Error(cancelled).
  void build(int agent, const NavTileKey& key, const NavTileKey& origin, NavTile& out,
             const ExecContext& ctx = {}) const;

 private:
  std::shared_ptr<const NavTerrain> terrain_;
  NavParams params_;
};

// ---------------------------------------------------------------------------------------------
// The streamed navmesh

struct NavWorldParams {
  // Tiles whose square comes within this distance of a point are wanted [Units: m]
  // [Limit: (0, 2048]]; a loaded tile is removed once (1 + hysteresis) times farther.
  double radius_m = 256.0;
  double hysteresis = 0.25;  // [Limit: 0..1]
  double lookahead_s = 1.0;  // rank by the distance to the point `lookahead_s` ahead [0..10]
  // Loaded + in-flight tile bytes over all agents [Units: bytes] [Limit: >= 1 MiB]; when full,
  // the farthest wanted tiles wait (stats().holes counts them).
  std::size_t budget_bytes = std::size_t{256} << 20;
  int threads = 0;  // worker threads; 0 = hardware threads [Limit: 0..256]
  // Scheduling of the workers, as StreamerParams::worker_priority: background (SCHED_IDLE)
  // keeps the owner's poll() at tens of microseconds while the workers fill every core
  // (docs/PERFORMANCE.md, bench_nav BM_Flight100); choose normal when the game keeps every
  // core busy itself.
  WorkerPriority worker_priority = WorkerPriority::background;
  // Re-centre the navmeshes when a point is farther than this from their origin [Units: m]
  // [Limit: (0, kNavMaxOriginDistance - radius_m * (1 + hysteresis)]].
  double recentre_distance_m = 4096.0;
  SimdTarget simd = SimdTarget::best;
  void validate() const;
};

enum class NavEventKind { added, removed };
struct NavTileEvent {
  NavEventKind kind = NavEventKind::added;
  int agent = 0;
  NavTileKey key;
};

struct NavWorldStats {
  std::size_t wanted = 0;        // (agent, tile) pairs wanted this frame
  std::size_t queued = 0;        // jobs waiting for a worker
  std::size_t running = 0;       // jobs on a worker or finished and not yet polled
  std::size_t loaded = 0;        // tiles in the navmeshes (all agents)
  std::size_t loaded_bytes = 0;  // loaded + in flight
  std::size_t holes = 0;         // wanted tiles not loaded
  std::uint64_t built = 0, cancelled = 0, dropped = 0, removed = 0, rebuilt = 0, recentres = 0;
  double last_poll_add_ms = 0.0;  // owner-thread time the last poll() spent adding tiles
  double max_poll_add_ms = 0.0;   // the most any poll() spent
};

class NavWorld {
 public:
  // Throws Error(invalid_argument) for invalid params.
  NavWorld(std::shared_ptr<const NavTileBuilder> builder, const NavWorldParams& params = {});
  ~NavWorld();
  NavWorld(const NavWorld&) = delete;
  NavWorld& operator=(const NavWorld&) = delete;

  // Streaming, once a frame on the owner thread: set_points(); update(); poll(budget).
  // Validated as Streamer::set_viewers; also Error(invalid_argument) when the params' radius
  // (with its hysteresis) could want more tiles than max_tiles around a point.
  void set_points(std::span<const Viewer> points);
  void update();
  // Adds finished tiles (and removes evicted ones) within the budget (max_chunks = tiles);
  // returns the number added. Rethrows the first failed build once.
  std::size_t poll(const PollBudget& budget = {});
  std::span<const NavTileEvent> events() const;  // since the start of the last update()

  // Builds every tile of every agent in NavTileBuilder::region_tiles(box) now and adds them
  // (for tools and tests; blocking). The builds run on the calling thread and ctx.threads TBB
  // workers (ctx's progress and cancel apply; the streaming workers and their priority are not
  // used). With no points set, the navmesh first re-centres on region_origin(box). The tiles
  // stay (pinned: streaming never evicts them) until a re-centre or invalidate() rebuilds them.
  // Throws as region_tiles, Error(limit) when a tile lies beyond kNavMaxOriginDistance of the
  // current origin, and the first failed build.
  void build_region(double x0_m, double z0_m, double x1_m, double z1_m,
                    const ExecContext& ctx = {});
  // Marks the loaded or wanted tiles whose rasterised area (tile + border) overlaps the box as
  // dirty: workers rebuild them and poll() swaps them in place. Returns the tiles marked.
  std::size_t invalidate(double x0_m, double z0_m, double x1_m, double z1_m);
  // Tiles being rebuilt after invalidate() (0: every invalidated tile is in place again).
  std::size_t pending_rebuilds() const;

  // The tile of an agent, if loaded (nullptr otherwise); valid until the next poll().
  const NavTile* tile(int agent, const NavTileKey& key) const;
  std::vector<NavTileKey> loaded_tiles(int agent) const;
  bool loaded(int agent, double x_m, double z_m) const;
  NavTileKey origin() const;
  double origin_x_m() const;
  double origin_z_m() const;
  // Bumped at every re-centre: paths from an older epoch are invalid.
  std::uint64_t epoch() const;
  NavWorldStats stats() const;
  const NavTileBuilder& builder() const { return *builder_; }
  const NavWorldParams& params() const { return params_; }

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const NavTileBuilder> builder_;
  NavWorldParams params_;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------
// Queries

enum class NavStatus {
  ok,
  partial,           // the target is not reachable: the path ends at the nearest reachable point
  no_start,          // no walkable polygon near the start (within the search box)
  no_target,         // no walkable polygon near the target
  not_loaded,        // the point's tile is not loaded
  corridor_removed,  // part of the path's polygons were removed (tile churn or re-centre)
  out_of_range,      // a point farther than kNavMaxOriginDistance from the navmesh origin
  failed,            // Detour failed (out of nodes: raise NavQuery's max_nodes)
};
const char* to_string(NavStatus status);

struct NavLocation {
  double x_m = 0.0, y_m = 0.0, z_m = 0.0;  // on the navmesh (detail height)
  std::uint32_t poly = 0;
};

struct NavPath {
  NavStatus status = NavStatus::failed;
  std::vector<std::array<double, 3>> points;  // straight path, world coordinates
  std::vector<std::uint32_t> polys;           // polygon corridor
  double length_m = 0.0;                      // along `points`
  std::uint64_t epoch = 0;                    // NavWorld::epoch() it was found in
};

struct NavRaycast {
  NavStatus status = NavStatus::failed;
  bool hit = false;       // a wall was hit before the end
  double fraction = 1.0;  // of the segment walked before the hit
  std::array<double, 3> hit_normal{0.0, 0.0, 0.0};
};

class NavQuery {
 public:
  // One per thread. max_nodes: Detour's search node pool [Limit: 64..65535].
  NavQuery(const NavWorld& world, int agent = 0, int max_nodes = 8192);
  ~NavQuery();
  NavQuery(const NavQuery&) = delete;
  NavQuery& operator=(const NavQuery&) = delete;

  // Nearest point on the navmesh in the box x, z +- search_m, y +- 2 * search_m.
  NavStatus nearest(double x_m, double y_m, double z_m, NavLocation& out,
                    double search_m = 4.0) const;
  // The box path(), raycast() and random_point() search around their points for the polygon
  // they stand on: x, z +- horizontal_m, y +- vertical_m (defaults 2 m and 8 m)
  // [Limit: (0, 1000]]. Points given with only a rough height want a taller box.
  void set_endpoint_search(double horizontal_m, double vertical_m);
  NavPath path(const std::array<double, 3>& from, const std::array<double, 3>& to,
               const NavFilter& filter = {}) const;
  NavRaycast raycast(const std::array<double, 3>& from, const std::array<double, 3>& to,
                     const NavFilter& filter = {}) const;
  // A point reachable from `from` within about radius_m, chosen by seed (deterministic for a
  // given navmesh).
  NavStatus random_point(const std::array<double, 3>& from, double radius_m, std::uint64_t seed,
                         NavLocation& out, const NavFilter& filter = {}) const;
  // ok while every polygon of the path is still loaded in this epoch; corridor_removed with
  // the index of the first removed one otherwise.
  NavStatus check(const NavPath& path, std::size_t* first_removed = nullptr) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------
// Crowds (DetourCrowd): agents that follow paths, on the owner thread after poll().

struct NavCrowdAgentState {
  double x_m = 0.0, y_m = 0.0, z_m = 0.0;
  double vx_m_s = 0.0, vz_m_s = 0.0;
  bool active = false;
  bool has_target = false;
};

class NavCrowd {
 public:
  // max_agents [Limit: 1..1024]; the crowd uses `agent`'s navmesh and its radius and height.
  NavCrowd(const NavWorld& world, int agent = 0, int max_agents = 64);
  ~NavCrowd();
  NavCrowd(const NavCrowd&) = delete;
  NavCrowd& operator=(const NavCrowd&) = delete;

  // Returns the crowd agent id, or -1 when the point is not on the navmesh or the crowd is full.
  int add(double x_m, double y_m, double z_m, double max_speed_m_s = 3.5);
  void remove(int id);
  // Returns false when the target is not on the navmesh.
  bool set_target(int id, double x_m, double y_m, double z_m);
  void update(double dt_s);
  NavCrowdAgentState state(int id) const;
  int size() const;  // active agents

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrane
