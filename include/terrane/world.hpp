// terrane world: an infinite world of chunks (module `world`; depends on core, graph, mesh).
//
// - ChunkGenerator: the pure function (preset, seed, chunk key, stitch mask) -> chunk data
//   (heights with a halo, mesh with normals and geomorph targets, bounds). Same bytes whatever
//   the order, thread or machine it runs on.
// - Chunks form a quadtree (CDLOD after F. Strugar, JGT 2009): a node of level L covers
//   2^L x 2^L level-0 chunks and is meshed with the same N x N cells at spacing 2^L * s. The
//   finer of two neighbouring nodes stitches its edge to the coarser one's vertices (mesh
//   StitchTable, level difference d on that edge), so any visible set of nodes whose neighbour
//   differences are at most log2 N is crack-free. The Streamer's selection and visible set keep
//   every neighbour within log2 N levels on every frame, also while chunks load (restricted
//   quadtrees), for any accepted cells, view distance and speed.
// - Streamer: viewers -> LOD selection (distance bands with hysteresis) -> prioritised,
//   cancellable jobs on its own worker threads -> LRU cache with a byte budget -> a visible set
//   that never has a hole (a coarser ancestor covers the area until finer chunks are ready).
// - TerrainQuery: height_at / normal_at / raycast exact to the level-0 triangles, from any thread.
//
// Coordinates (docs/DESIGN.md §3): metres, Y up, the height field is in X/Z. With cell size s (the
// preset's world.cell_size_m) and N cells per chunk, node (cx, cz) of level L covers
// x in [cx * N * s * 2^L, (cx + 1) * N * s * 2^L), likewise z. Its vertex (i, j), 0 <= i, j <= N,
// is the world sample at index (cx * N + i, cz * N + j) of the level-L lattice (spacing s * 2^L,
// origin 0): the same double expression as GridSpec::x_m, so a vertex shared by two nodes of any
// levels has bit-identical coordinates and height. Mesh positions are floats relative to the
// node's vertex (0, 0) (big worlds: 10^8 m from the origin keeps the chunk's float precision).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string_view>

#include "terrane/core.hpp"
#include "terrane/edit.hpp"
#include "terrane/graph.hpp"
#include "terrane/mesh.hpp"
#include "terrane/preset.hpp"
#include "terrane/surface.hpp"
#include "terrane/voxel.hpp"

namespace terrane {

// Largest |x| or |z| the world module accepts [Units: m] (2^40 m, about 1.1e12 m: int64 chunk keys
// and double coordinates stay exact far beyond it; the noise lattice wraps at 2^32 cells).
inline constexpr double kMaxWorldCoordinate = 1099511627776.0;
// Deepest quadtree level (a level-L node spans 2^L level-0 chunks per side).
inline constexpr int kMaxChunkLevel = 20;

// ---------------------------------------------------------------------------------------------
// Chunk keys and generation

struct ChunkKey {
  std::int64_t cx = 0;  // node column at its level
  std::int64_t cz = 0;  // node row at its level
  int level = 0;        // [Limit: 0..kMaxChunkLevel]

  friend bool operator==(const ChunkKey&, const ChunkKey&) = default;
  // The node of level `level + up` that contains this one (floor division of cx, cz by 2^up).
  ChunkKey ancestor(int up) const;
  // Child q (0..3: q & 1 = +x half, q & 2 = +z half) one level finer. level must be > 0.
  ChunkKey child(int q) const;
};
std::uint64_t hash(const ChunkKey& key);

struct ChunkSettings {
  int cells = 128;                  // N: cells per chunk side [Limit: power of two, 8..1024]
  bool skirts = false;              // hang skirts below the border (see ChunkMeshParams)
  double skirt_depth_m = 10.0;      // [Units: m] [Limit: > 0, finite]
  bool geomorph = true;             // fill Mesh::morph_y: the parent node's surface at each vertex
  double uv_world_wrap_m = 4096.0;  // see ChunkMeshParams [Units: m] [Limit: > 0, finite]
  // Build index buffers into ChunkData::mesh. The Streamer turns this off: the indices of a node
  // depend only on its stitch mask, so a renderer shares them between chunks (draw
  // StitchTable::interior(0) plus StitchTable::edge(0, e, stitch[e]) for each edge).
  bool indices = true;
  // Surface data per chunk from the preset's `surface` section (or the defaults): 8-bit splat
  // weights for every height sample, and scatter instances (level-0 nodes only).
  bool surface = false;
  // Throws Error(invalid_argument) naming the field, its value and the allowed range.
  void validate() const;
};

// What one chunk needs: everything is a pure function of (preset, seed, key, stitch).
struct ChunkData {
  ChunkKey key;
  std::array<int, 4> stitch{0, 0, 0, 0};  // per Edge: levels coarser the neighbour is (see Mesh)
  // (N+3)^2 heights [Units: m]: the node's vertices plus a one-sample halo, on the level-L
  // lattice (grid spacing s * 2^L, index offsets (cx*N - 1, cz*N - 1)). Vertex (i, j) of the
  // mesh is heights.at(i + 1, j + 1).
  Field2D heights;
  // Level-0 lattice of the node's own grid (N+1)^2 vertices: positions, normals (central
  // differences at the node's spacing), UVs, geomorph targets; indices only when
  // ChunkSettings::indices. Origin: world position of vertex (0, 0).
  Mesh mesh;
  float height_min_m = 0.0f;  // over the (N+1)^2 vertices [Units: m]
  float height_max_m = 0.0f;
  // With ChunkSettings::surface: splat weights of the surface's layers for every sample of
  // `heights` (texel-interleaved, splat[c * splat_layers + l], each texel summing to 255; the
  // vertices' texels are seamless across chunks), and on level-0 nodes the scatter instances
  // whose position lies in the node (the same instances a whole-map scatter places there).
  int splat_layers = 0;
  std::vector<std::uint8_t> splat;
  // With ChunkSettings::surface: the dominant biome (index into the surface's biomes, lowest on
  // ties) of every sample of `heights`, seamless across chunks like the splat weights.
  std::vector<std::uint8_t> biome;
  std::vector<ScatterInstance> scatter;

  // Bytes held by the data's buffers (capacity, not size).
  std::size_t bytes() const;
  // FNV-1a hash over the key, stitch, heights, positions, normals, UVs, geomorph targets,
  // indices and surface data: equal hashes <=> equal bytes (for determinism tests and goldens).
  std::uint64_t content_hash() const;
};

// Working memory of ChunkGenerator::generate() with surface data: climate, biome weights,
// slope and float splat weights of the node's samples, and the level-0 scatter's ScatterScratch.
// Owned by the caller and reused from chunk to chunk (fresh buffers of this size are mostly page
// faults): one per thread, never shared by concurrent calls. Its buffers grow to at most
// ChunkGenerator::scratch_bytes() of the generator it serves and are kept until it is
// destroyed. Contents between calls are unspecified. Without surface data it stays empty.
struct ChunkScratch {
  Climate climate;
  BiomeWeights biomes;
  Field2D slope;
  SplatMap splat;
  ScatterScratch scatter;

  // Heap memory held by the buffers [Units: bytes].
  std::size_t bytes() const;
};

class ChunkGenerator {
 public:
  // Compiles the preset's graph (its `post` region operations are not applied: they need whole
  // regions; see post_ignored()). Throws Error for an invalid preset or settings.
  ChunkGenerator(const Preset& preset, const ChunkSettings& settings = {});

  const ChunkSettings& settings() const { return settings_; }
  const CompiledGraph& graph() const { return graph_; }
  const StitchTable& stitch_table() const { return *table_; }
  double cell_size_m() const { return cell_size_m_; }
  // Side of a level-L node [Units: m]: cells * cell_size_m * 2^L.
  double chunk_size_m(int level) const;
  // True when the preset has `post` operations, which chunked generation does not apply.
  bool post_ignored() const { return post_ignored_; }
  // The key of the level-L node that contains world (x, z).
  ChunkKey key_at(double x_m, double z_m, int level) const;
  // Heights grid of a node: (N+3)^2 samples with a 1-sample halo at spacing s * 2^L.
  GridSpec height_grid(const ChunkKey& key) const;
  // Throws Error(invalid_argument) when the level is outside 0..kMaxChunkLevel or the node lies
  // beyond kMaxWorldCoordinate, naming the key.
  void validate_key(const ChunkKey& key) const;
  // Bytes of one chunk's data once generated: exact for stitch {0,0,0,0} or without indices
  // (stitched edges have fewer triangles), an upper bound otherwise. With surface data the
  // scatter buffer's capacity is reserved at the smaller of a packing bound and mean + 6 sigma
  // of the species' densities (see chunk_generator.cpp): it grows (and bytes() says so) with a
  // probability below 1e-9 per chunk.
  std::size_t chunk_bytes() const;
  // Upper bound of ChunkScratch::bytes() once a scratch has served any number of generate()
  // calls of this generator [Units: bytes]; 0 without surface data.
  std::size_t scratch_bytes() const;

  // Generates the node into `out`, reusing its buffers' capacity (no allocation once `out` and
  // `scratch` have held a chunk of these settings, apart from the graph evaluation's per-call
  // samplers and registers). stitch[e] in 0..log2 N. Runs on ctx.threads workers (the Streamer
  // passes 1 and runs a chunk per worker) and ctx.simd's target; the bytes never depend on
  // either. scratch: the caller's working memory for surface data (see ChunkScratch); nullptr =
  // buffers allocated for this call only. Reentrant: call from any number of threads with
  // distinct `out`s and scratches. Throws Error for an invalid key or stitch mask or an
  // unsupported ctx.simd, Error(cancelled) when ctx.cancel becomes true (`out` is then
  // unspecified). edits: height edits (edit.hpp) added to the graph's heights before the mesh,
  // normals, bounds and surface data are made, at every level (a coarser node reads the deltas
  // of the level-0 vertices it shares); nullptr or an empty snapshot = the procedural chunk,
  // the same bytes. The snapshot's cell must be the world's (else Error(invalid_argument)).
  // instances: scatter instance overrides (edit.hpp) applied to a level-0 chunk's scatter
  // (InstanceEditSnapshot::apply_to over the chunk's rectangle; added instances stand on the
  // chunk's edited level-0 triangles, their normal aligned as their species says); nullptr or
  // empty: the procedural instances. Throws Error(invalid_argument) when an added instance's
  // species is not one of the preset's (check_instance_edits). paint: splat paint (edit.hpp)
  // over the splat weights of every level (SplatPaintSnapshot::apply_to before the 8-bit
  // weights are made); nullptr or empty: the procedural splat. Throws as check_paint.
  void generate(const ChunkKey& key, const std::array<int, 4>& stitch, ChunkData& out,
                const ExecContext& ctx = {}, ChunkScratch* scratch = nullptr,
                const HeightEditSnapshot* edits = nullptr,
                const InstanceEditSnapshot* instances = nullptr,
                const SplatPaintSnapshot* paint = nullptr) const;
  // Throws Error(invalid_argument) when splat paint is not for this world: another cell or
  // another count of splat layers (even when empty), or any paint on a world without surface
  // data.
  void check_paint(const SplatPaintSnapshot& paint) const;
  // Throws Error(invalid_argument) when instance overrides add a species the preset lacks (or
  // the world has no surface data and the layer holds any override).
  void check_instance_edits(const InstanceEditSnapshot& instances) const;
  // How far beyond a level-0 chunk's own rectangle its scatter reads the heights (the scatter's
  // margin plus the lattice's own reach) [Units: level-0 cells]; 0 without surface data. A height
  // edit this near a chunk may move its instances.
  std::int64_t scatter_reach_cells() const { return scatter_reach_cells_; }
  // The level-0 instances (overrides applied) whose position lies within radius_m of (x, z):
  // the scatter of the level-0 chunks under the disc with the edits given (the same instances
  // as generate gives them; no mesh or splat is made), in chunk order, then scatter order. What a
  // brush that fells or restores instances takes. Throws as generate and Error(invalid_argument)
  // for a radius outside (0, 1e4] m or a centre that is not finite.
  std::vector<ScatterInstance> instances_near(double x_m, double z_m, double radius_m,
                                              const HeightEditSnapshot* edits = nullptr,
                                              const InstanceEditSnapshot* instances = nullptr,
                                              const ExecContext& ctx = {}) const;

 private:
  void generate_surface(ChunkData& out, const ExecContext& ctx, ChunkScratch& scratch,
                        const SplatPaintSnapshot* paint) const;
  // The scatter of level-0 chunk `key` (overrides applied; added instances stood on `heights`,
  // the chunk's edited height grid) into `out`.
  void scatter_level0(const ChunkKey& key, const Field2D& heights,
                      std::vector<ScatterInstance>& out, const ExecContext& ctx,
                      ScatterScratch* scratch, const HeightEditSnapshot* edits,
                      const InstanceEditSnapshot* instances) const;

  ChunkSettings settings_;
  CompiledGraph graph_;
  std::shared_ptr<const StitchTable> table_;
  double cell_size_m_ = 1.0;
  bool post_ignored_ = false;
  std::uint64_t seed_ = 0;
  std::shared_ptr<const SurfaceParams> surface_;
  std::shared_ptr<const ClimateSources> climate_sources_;
  std::size_t scatter_capacity_ = 0;  // per level-0 chunk
  std::int64_t scatter_reach_cells_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Queries for gameplay and physics

struct RayHit {
  double distance_m = 0.0;                        // along the (normalised) direction
  double x_m = 0.0, y_m = 0.0, z_m = 0.0;         // hit point
  std::array<float, 3> normal{0.0f, 1.0f, 0.0f};  // geometric normal of the triangle hit
};

// Exact queries against the level-0 triangles of the world (the meshes ChunkGenerator builds at
// level 0 with no stitching: cell (i, j) of chunk-local indices split along the radial diagonal
// of mesh::StitchTable). Heights come from the pure function (the compiled graph evaluated at
// the lattice vertices, bit-identical to the chunk's samples), so answers never depend on what
// is loaded.
// Immutable and thread-safe. Queries take no ExecContext: they run on the process-wide SIMD
// target (set_simd_target), with identical results on every target.
class TerrainQuery {
 public:
  // Throws Error(invalid_argument) when generator is null, or when `edits` (optional: the
  // surface with these height edits, as ChunkGenerator::generate makes it) has another cell size.
  explicit TerrainQuery(std::shared_ptr<const ChunkGenerator> generator,
                        std::shared_ptr<const HeightEditSnapshot> edits = nullptr);

  // Height of the level-0 surface at (x, z) [Units: m]: the plane of the triangle under (x, z),
  // in double; at a vertex, exactly the chunk's float sample. One 2 x 2 grid evaluation of the
  // graph (about 1.5 us for `default`). Throws Error(invalid_argument) naming the value for
  // non-finite coordinates or |x|, |z| > kMaxWorldCoordinate.
  double height_at(double x_m, double z_m) const;
  // Unit geometric normal (+Y up) of the level-0 triangle under (x, z) (on an edge: either
  // triangle's). Same cost and errors as height_at.
  std::array<float, 3> normal_at(double x_m, double z_m) const;
  // First hit of the ray origin + t * dir (dir need not be normalised; t in metres along the
  // normalised direction) with the level-0 surface for 0 <= t <= max_dist_m. A ray starting on
  // or below the surface hits at t = 0 (the hit point is the origin). Cost: O(cells crossed
  // below height_max_m); corners are evaluated 17 x 17 at a time (a 1 km ray over 4 m cells:
  // about 0.2 ms); the ray's part above the
  // preset's height_max_m (which the surface never exceeds; plus the edits' largest delta) is
  // skipped, and it ends at the
  // world's edge. Throws Error(invalid_argument) naming the value for a zero or non-finite
  // direction, a negative or non-finite distance, max_dist_m > kMaxRayDistance, or an origin
  // that height_at would refuse (or a non-finite y).
  std::optional<RayHit> raycast(double ox_m, double oy_m, double oz_m, double dx, double dy,
                                double dz, double max_dist_m) const;

  static constexpr double kMaxRayDistance = 1.0e6;  // [Units: m]

 private:
  std::shared_ptr<const ChunkGenerator> generator_;
  std::shared_ptr<const HeightEditSnapshot> edits_;
};

// ---------------------------------------------------------------------------------------------
// Streaming

// A view frustum for prioritisation, reduced to the horizontal plane: chunks within
// half_angle_rad of the forward direction (x, z) are "in view" and generated first.
struct ViewFrustum {
  double forward_x = 0.0, forward_z = 1.0;  // need not be normalised; not both zero
  double half_angle_rad = 1.0;              // [Limit: (0, pi]]
};

struct Viewer {
  double x_m = 0.0, y_m = 0.0,
         z_m = 0.0;  // position [Units: m] [Limit: |x|, |z| <= kMaxWorldCoordinate]
  double vx_m_s = 0.0, vy_m_s = 0.0,
         vz_m_s = 0.0;  // velocity [Units: m/s] [Limit: speed <= kMaxViewerSpeed]
  std::optional<ViewFrustum> frustum;
};

inline constexpr double kMaxViewerSpeed = 20000.0;  // [Units: m/s]
inline constexpr std::size_t kMaxViewers = 64;

enum class WorkerPriority {
  normal,      // the caller's priority
  low,         // nice 10
  background,  // SCHED_IDLE: runs only when no normal thread wants the core
};

struct StreamerParams {
  ChunkSettings chunk;              // chunk.indices is ignored (always off in the streamer)
  double view_distance_m = 2000.0;  // visible disc radius around each viewer [Limit: > 0, <= 1e6]
  // Level-0 band: nodes closer than this to a viewer are level 0; the band of level L reaches
  // lod0_distance_m * 2^L. 0 = automatic (2 * level-0 chunk size). [Limit: 0 or >= chunk size]
  double lod0_distance_m = 0.0;
  // A split node merges only once the viewer is (1 + hysteresis) times its split distance away.
  double hysteresis = 0.2;  // [Limit: 0..1]
  // Coarsest nodes (the quadtree roots) are also requested this many seconds ahead of each
  // viewer's velocity, so the area a viewer enters is already covered.
  double lookahead_s = 2.0;  // [Limit: 0..60]
  // Resident + in-flight chunk data, plus the workers' ChunkScratch (threads *
  // ChunkGenerator::scratch_bytes(), reserved up front; 0 without surface data) [Units: bytes]
  // [Limit: 0 = automatic: max(256 MiB, 1.5 * Streamer::minimum_budget_bytes()), which grows
  // with the view, the chunk size and the workers; else >= the minimum]
  std::size_t budget_bytes = std::size_t{256} << 20;
  int threads = 0;  // worker threads; 0 = hardware threads [Limit: 0..256]
  // SIMD target of the workers' generation (ExecContext::simd: best = the process-wide
  // setting); validate() refuses an unsupported one with Error(invalid_argument).
  SimdTarget simd = SimdTarget::best;
  // Scheduling of the workers (Linux), so the frame thread gets a core the moment it wants one
  // even when every core is generating. background (SCHED_IDLE) measured best (`terrane stream`,
  // docs/PERFORMANCE.md); choose low or normal when the game keeps every core busy itself, as
  // background workers then only get what is left.
  WorkerPriority worker_priority = WorkerPriority::background;
  void validate() const;
};

// One chunk of the visible set: draw `data->mesh` with the stitch mask's index pieces.
struct VisibleChunk {
  ChunkKey key;
  std::array<int, 4> stitch{0, 0, 0, 0};  // per Edge: levels coarser the visible neighbour is
  const ChunkData* data = nullptr;        // valid until the next update()
};

enum class ChunkEventKind {
  ready,    // generated and resident: upload its buffers (data valid until `evicted`)
  evicted,  // left the cache: free its buffers (data is no longer valid)
  updated,  // regenerated after set_edits: upload its buffers again (same key and data pointer,
            // new contents; valid until `evicted`)
};
struct ChunkEvent {
  ChunkEventKind kind = ChunkEventKind::ready;
  ChunkKey key;
  const ChunkData* data = nullptr;  // ready only
};

struct PollBudget {
  std::size_t max_chunks = SIZE_MAX;  // deliver at most this many finished chunks
  double max_ms = 1.0;                // stop once this much time has been spent [Units: ms]
};

struct StreamerStats {
  std::size_t desired = 0;          // nodes the selection wants resident
  std::size_t queued = 0;           // jobs waiting for a worker
  std::size_t running = 0;          // jobs on a worker or finished but not yet polled
  std::size_t resident_chunks = 0;  // generated chunks in the cache
  std::size_t resident_bytes = 0;   // chunk data bytes held: resident + in flight
  // The workers' ChunkScratch bytes, as measured after their latest job (at most threads *
  // generator().scratch_bytes(), which the budget reserves).
  std::size_t scratch_bytes = 0;
  std::size_t budget_bytes = 0;
  std::size_t chunk_bytes = 0;  // per chunk
  std::size_t visible = 0;
  std::size_t holes = 0;        // selected leaves the visible set does not cover (this frame)
  bool view_complete = false;   // every selected node is resident and visible
  std::uint64_t generated = 0;  // chunks delivered since construction
  std::uint64_t cancelled = 0;  // jobs cancelled before a worker started them
  std::uint64_t dropped = 0;    // jobs finished after they stopped being wanted
  std::uint64_t evicted = 0;
  std::uint64_t updated = 0;        // resident chunks regenerated after set_edits
  std::size_t updates_pending = 0;  // chunks of the last set_edits not swapped in yet
};

// Streams chunks around viewers. The owner calls, once per frame on one thread:
//   set_viewers(...); update(); poll(budget); then reads events() and visible().
// update() and poll() never wait for a worker and do not allocate in steady state (all tables
// are sized from the budget at construction; chunk buffers are pooled and reused). Workers are
// the streamer's own threads, each with its own ChunkScratch; the destructor cancels and joins
// them.
class Streamer {
 public:
  // Throws Error(invalid_argument) for invalid params or a preset that does not compile, and
  // when the budget cannot hold the minimum visible set (the message names the minimum).
  Streamer(const Preset& preset, const StreamerParams& params);
  ~Streamer();
  Streamer(const Streamer&) = delete;
  Streamer& operator=(const Streamer&) = delete;

  // Throws Error(invalid_argument) for more than kMaxViewers, non-finite or out-of-range
  // positions, or speeds above kMaxViewerSpeed.
  void set_viewers(std::span<const Viewer> viewers);
  // LOD selection, cancellation of unwanted jobs, scheduling, eviction, visible set.
  void update();
  // Takes finished chunks into the cache (ready events) within the budget, then refreshes the
  // visible set. Returns the number delivered. When a chunk job failed (cancellations are not
  // failures), throws the first failure once, as Error with its category (e.g. invalid_argument,
  // limit; internal for a non-terrane exception) and "chunk generation failed: <its message>".
  std::size_t poll(const PollBudget& budget = {});

  // Events since the start of the last update() (ready, evicted), in order.
  std::span<const ChunkEvent> events() const;
  // The visible set after the last update()/poll(): disjoint nodes covering every viewer's view
  // disc (unless stats().holes > 0), with stitch masks for their neighbours. No node has a
  // visible neighbour more than log2 N levels coarser (every stitch[e] is in 0..log2 N and
  // check_seams() finds no crack), on every frame, loading or not.
  std::span<const VisibleChunk> visible() const;
  // The selected leaves (what the visible set converges to), for checks and debugging.
  std::span<const ChunkKey> selected() const;
  StreamerStats stats() const;

  const ChunkGenerator& generator() const { return *generator_; }
  std::shared_ptr<const ChunkGenerator> shared_generator() const { return generator_; }
  const StreamerParams& params() const { return params_; }
  // Coarsest level used (quadtree roots) and the level-0 band.
  int root_level() const;
  double lod0_distance_m() const;
  // Smallest budget accepted: the largest in-view selection of one viewer (leaves and roots,
  // every split at its hysteresis distance) over 64 positions across a root, plus a quarter,
  // plus one chunk and one ChunkScratch bound per worker. Below what a flight needs, the view
  // stays coarser (never holed: roots come first); prefetching ahead of fast viewers uses what
  // is left.
  std::size_t minimum_budget_bytes() const;
  // Queries on the current edits (thread-safe, independent of what is resident): a copy that
  // keeps the snapshot it was made with.
  TerrainQuery query() const;

  // Height edits (edit.hpp), owner thread: from now on every chunk is generated with `edits`
  // (nullptr: none), and query() answers with them at once. `changed` (HeightEdits::apply's
  // rectangle, or the union of several) names the lattice vertices that differ from the
  // previous snapshot: the resident chunks of every level whose height grid holds such a vertex
  // are regenerated on the workers, first of all jobs, while the old ones stay drawn, and are
  // swapped in together in one poll() once all of them are done (an `updated` event each), so
  // resident chunks never show an edited seam half old, half new (a chunk that first becomes
  // resident meanwhile is made with the newest snapshot and may meet a still-old neighbour
  // until the swap: docs/EDIT.md). Jobs already
  // running on the old snapshot are dropped and redone. Throws Error(invalid_argument) for a
  // snapshot of another cell size.
  void set_edits(std::shared_ptr<const HeightEditSnapshot> edits, const LatticeRect& changed);
  // Splat paint (edit.hpp), owner thread: every later job generates with it (nullptr: none).
  // `changed` (SplatPaint::apply's rectangle, or a union) names the vertices whose paint
  // differs: the resident chunks of every level whose height grid holds one are regenerated and
  // swapped in together, as set_edits does. Throws Error(invalid_argument) as
  // ChunkGenerator::check_paint (nothing changes).
  void set_paint(std::shared_ptr<const SplatPaintSnapshot> paint, const LatticeRect& changed);
  // Scatter instance overrides (edit.hpp), owner thread: every later job generates with them
  // (nullptr: none). The resident level-0 chunks whose rectangle holds a position of `changed`
  // (what InstanceEdits returned) are regenerated and swapped in together, as set_edits does.
  // Throws Error(invalid_argument) as ChunkGenerator::check_instance_edits (nothing changes).
  void set_instance_edits(std::shared_ptr<const InstanceEditSnapshot> instances,
                          const InstanceChanges& changed);

  struct Impl;

 private:
  StreamerParams params_;
  std::shared_ptr<const ChunkGenerator> generator_;
  mutable std::mutex query_mutex_;  // guards query_ (query() may run on any thread)
  std::shared_ptr<const TerrainQuery> query_;
  std::unique_ptr<Impl> impl_;
};

// Checks of a visible set (used by tests and `terrane stream`; cost O(visible * N)).
struct SeamReport {
  std::size_t overlaps = 0;  // pairs of visible nodes where one contains the other
  std::size_t cracks = 0;    // edges where the stitch mask disagrees with the neighbour's
                             // level, is beyond the stitching's range, or shared border
                             // vertices differ in height
  std::size_t edges_checked = 0;
};
SeamReport check_seams(std::span<const VisibleChunk> visible, const ChunkGenerator& generator);

// ---------------------------------------------------------------------------------------------
// Block worlds: streaming voxel chunks

enum class BlockAo { occupancy, baked, none };

struct BlockStreamerParams {
  // Chunks whose centre lies within this horizontal distance of a viewer are wanted [Units: m]
  // [Limit: (0, 4096]]; a resident chunk is evicted once it is farther than
  // (1 + hysteresis) * view_distance_m from every viewer.
  double view_distance_m = 192.0;
  double hysteresis = 0.25;  // [Limit: 0..1]
  // Vertical range around a viewer [Units: m] [Limit: > 0]: chunks within this distance of the
  // viewer's height, clipped to the voxel section's min_y..max_y.
  double vertical_distance_m = 96.0;
  // Wanted chunks are ranked by their distance to the viewer's position this many seconds
  // ahead (its velocity), so the chunks it flies into come first [Limit: 0..10].
  double lookahead_s = 0.5;
  // Resident + in-flight chunk bytes (compact blocks + packed quads) [Units: bytes]
  // [Limit: >= 1 MiB]; when full, the farthest wanted chunks wait (stats().holes counts them).
  std::size_t budget_bytes = std::size_t{256} << 20;
  int threads = 0;  // worker threads; 0 = hardware threads [Limit: 0..256]
  SimdTarget simd = SimdTarget::best;
  WorkerPriority worker_priority = WorkerPriority::normal;
  // Ambient occlusion of the chunk meshes (docs/PERFORMANCE.md "Block worlds" compares them):
  //   occupancy: quads without AO bits, merged as freely as without AO, plus the chunk's
  //     padded opaque column masks (BlockChunkResident::occupancy), from which a renderer
  //     computes the same per-vertex AO (side, side, corner at every block corner) and
  //     interpolates it across the merged quads per fragment, as terrane-view does. Chunks
  //     border-to-border agree: the masks come from the same padding the mesher uses.
  //   baked: per-vertex AO in the quads (PackedQuad bits 49..56), faces merged only where
  //     their corners' AO is equal (what the exports do);
  //   none: neither.
  BlockAo ambient_occlusion = BlockAo::occupancy;
  void validate() const;
};

// One resident block chunk: its compact blocks and its mesh (packed quads, positions relative
// to the chunk's corner block (cx, cy, cz) * chunk_size).
struct BlockChunkResident {
  BlockChunkKey key;
  BlockChunk blocks;
  BlockMesh mesh;
  // With BlockAo::occupancy and a non-empty mesh: the padded volume's opaque column masks
  // (BlockVolume::opaque_columns: (size + 2)^2 masks, bit y of [z * P + x], block (0, 0, 0) of
  // the chunk at x = y = z = 1), empty otherwise.
  std::vector<std::uint64_t> occupancy;
  std::size_t bytes() const;
};

enum class BlockEventKind {
  ready,
  evicted,
  updated,  // regenerated after set_edits: same key and chunk pointer, new blocks and mesh
};
struct BlockChunkEvent {
  BlockEventKind kind = BlockEventKind::ready;
  BlockChunkKey key;
  const BlockChunkResident* chunk = nullptr;  // ready only; valid until its evicted event
};

struct BlockStreamerStats {
  std::size_t wanted = 0;          // chunks in the viewers' cylinders this frame
  std::size_t queued = 0;          // jobs waiting for a worker
  std::size_t running = 0;         // jobs on a worker or finished but not yet polled
  std::size_t resident = 0;        // chunks in the cache
  std::size_t resident_bytes = 0;  // resident + in flight
  std::size_t holes = 0;           // wanted chunks not resident
  bool view_complete = false;      // every wanted chunk is resident
  std::uint64_t generated = 0, cancelled = 0, dropped = 0, evicted = 0;
  std::size_t quads = 0;            // resident opaque + translucent quads
  std::uint64_t updated = 0;        // resident chunks regenerated after set_edits
  std::size_t updates_pending = 0;  // chunks of the pending update not swapped in yet
};

// Streams block chunks around viewers with the pattern of Streamer: the owner calls, once per
// frame on one thread, set_viewers(); update(); poll(budget); then reads events(). Workers (the
// streamer's own threads, each with a BlockScratch and a BlockMeshScratch) generate the chunk
// (BlockWorldGenerator::generate) and mesh it (build_block_mesh, AO as the params say);
// update() and poll() never wait for a worker. Jobs are taken nearest first (to the viewers'
// look-ahead positions); a queued job that stops being wanted is cancelled before it starts,
// and a finished one that is no longer wanted is dropped. The destructor cancels and joins.
class BlockStreamer {
 public:
  // Throws Error(invalid_argument) for invalid params or a preset whose voxel section does not
  // compile.
  BlockStreamer(const Preset& preset, const BlockStreamerParams& params);
  ~BlockStreamer();
  BlockStreamer(const BlockStreamer&) = delete;
  BlockStreamer& operator=(const BlockStreamer&) = delete;

  void set_viewers(std::span<const Viewer> viewers);  // throws as Streamer::set_viewers
  // The world's edits (edit.hpp; nullptr: none), owner thread: every later job generates with
  // them, and so do the jobs still queued. The resident chunks that read a changed part of them
  // (BlockWorldGenerator::reads_same_edits against the previous layers: block overrides in the
  // chunk or its neighbours, height edit tiles under its columns or, with lakes, under a lake
  // window containing it) are regenerated on the workers, before other work, and swapped in
  // together in one poll() once all are done (updated events), so the drawn chunks never mix
  // an edit's old and new sides; until then the old ones stay. A call while an update is
  // pending joins it. Jobs that finish on older layers are done again where those differ.
  // Throws Error(invalid_argument) as BlockWorldGenerator::check_edits (nothing changes then).
  void set_edits(std::shared_ptr<const HeightEditSnapshot> heights,
                 std::shared_ptr<const BlockEditSnapshot> blocks);
  void update();
  // Takes finished chunks into the cache (ready events) within the budget. Returns the number
  // delivered; rethrows the first failed job once as Error ("block chunk generation failed: ...").
  std::size_t poll(const PollBudget& budget = {});
  std::span<const BlockChunkEvent> events() const;  // since the start of the last update()
  // Resident chunks (for drawing), valid until the next update() or poll().
  std::span<const BlockChunkResident* const> resident() const;
  BlockStreamerStats stats() const;
  const BlockWorldGenerator& generator() const { return *generator_; }
  const BlockStreamerParams& params() const { return params_; }

  struct Impl;

 private:
  BlockStreamerParams params_;
  std::shared_ptr<const BlockWorldGenerator> generator_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace terrane
