// terrane mesh: triangle meshes of height fields (module `mesh`; depends on core, field, io).
//
// - Chunk meshes with LOD: a chunk of N = 2^k cells at level L samples every 2^L cells.
//   Neighbouring chunks may differ by any number of levels: the finer chunk stitches its edge to
//   the coarser neighbour's vertices (edge-dependent index buffers, precomputed once per N in a
//   StitchTable), or hangs skirts below its border as a fallback.
// - Geomorph data (CDLOD, F. Strugar, "Continuous Distance-Dependent Level of Detail for
//   Rendering Heightmaps", JGT 2009): per vertex, the height of the level-(L+1) surface at the
//   vertex's position.
// - Meshes of whole maps or map tiles for export; error-bounded simplification with locked
//   borders and vertex-cache / vertex-fetch optimisation (meshoptimizer); GLB and OBJ writers.
//
// Conventions: metres, Y up, right-handed, the height field lies in X/Z. Vertex positions are
// float, relative to the mesh origin (double, world metres); Y is the height in metres (the
// origin's Y is 0). Surface triangles wind counter-clockwise seen from above (+Y), i.e. their
// geometric normal points up.
//
// Seams: a vertex on a chunk border is computed from the same samples by the same operations in
// both chunks, so its height, normal, UVs and geomorph height are bit-identical to the
// neighbour's, and its along-edge coordinate is identical. World positions (origin + local)
// coincide exactly when the spacing and origins are exactly representable sums (e.g. a spacing of
// a power of two metres); renderers add the chunk origin relative to the camera anyway.
//
// Threading: every function is reentrant; StitchTable is immutable after construction and may
// be shared between threads. Outputs are caller-owned: an output Mesh is overwritten and its
// vectors' capacity reused, so building many chunks of one (N, L) into one Mesh allocates nothing
// after the first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Mesh

// An indexed triangle mesh. Exactly one of indices16 / indices32 is used: indices16 when the
// mesh has at most 65,535 vertices, else indices32.
struct Mesh {
  double origin_x_m = 0.0;  // world position of local (0, 0, 0) [Units: m]
  double origin_y_m = 0.0;
  double origin_z_m = 0.0;
  std::vector<float> positions;  // x, y, z per vertex [Units: m, relative to the origin]
  std::vector<float> normals;    // x, y, z per vertex, unit length
  std::vector<float> uv_local;   // u, v per vertex: 0..1 across the chunk / tile (u along +X)
  // u, v per vertex: world x, z in metres wrapped into [0, uv_world_wrap_m): tiles seamlessly for
  // any texture whose repeat length divides the wrap. Empty for meshes that carry none.
  std::vector<float> uv_world;
  // Geomorph target per vertex (chunk meshes only, else empty): the height in metres of the
  // level-(L+1) surface at this vertex's x, z. A renderer draws y' = y + k * (morph_y - y) with
  // k in [0, 1] growing with distance (k = 1 where the next level takes over), so a level-L chunk
  // at k = 1 is exactly the level-(L+1) surface and switching levels does not pop.
  std::vector<float> morph_y;
  // Vertex colours (GLB COLOR_0, unsigned short normalized): linear r, g, b, a per vertex,
  // 0..65535 meaning 0..1. Empty for meshes that carry none (the height-field meshes); only
  // write_glb reads them (simplify_mesh and optimize_mesh drop them, write_obj ignores them,
  // the height-field builders leave them as they are: clear them before reusing such a Mesh).
  std::vector<std::uint16_t> colours;
  std::vector<std::uint16_t> indices16;
  std::vector<std::uint32_t> indices32;
  // Indices [0, surface_index_count) are the surface; the rest are skirts (vertical, facing out).
  std::size_t surface_index_count = 0;
  std::array<float, 3> bbox_min{0.0f, 0.0f, 0.0f};  // of all positions [Units: m, local]
  std::array<float, 3> bbox_max{0.0f, 0.0f, 0.0f};

  std::size_t vertex_count() const { return positions.size() / 3; }
  std::size_t index_count() const { return indices32.empty() ? indices16.size() : indices32.size(); }
  std::uint32_t index(std::size_t k) const {
    return indices32.empty() ? std::uint32_t(indices16[k]) : indices32[k];
  }
  bool uses_32bit_indices() const { return !indices32.empty(); }
  // Throws Error(invalid_argument) naming `what` when attribute sizes disagree, the index count
  // is not a multiple of 3, an index is out of range, both index arrays are used, 16-bit indices
  // are used with more than 65,535 vertices, or the bounding box does not contain every vertex.
  void validate(std::string_view what = "mesh") const;
};

// Stores `indices` into mesh.indices16 (vertex count <= 65,535) or mesh.indices32, clearing the
// other, and sets surface_index_count = indices.size().
void set_indices(Mesh& mesh, std::span<const std::uint32_t> indices);
// Recomputes bbox_min / bbox_max from the positions (zeros for an empty mesh).
void update_bbox(Mesh& mesh);

// ---------------------------------------------------------------------------------------------
// Chunk meshes with LOD

// Largest chunk side in cells.
inline constexpr int kMaxChunkCells = 4096;

// Edges of a chunk, also the order of per-edge arrays.
enum class Edge : int {
  west = 0,   // -X, i = 0
  east = 1,   // +X, i = N
  north = 2,  // -Z, j = 0
  south = 3,  // +Z, j = N
};
const char* to_string(Edge e);

// log2 of a power of two; -1 when `cells` is not a power of two in [1, kMaxChunkCells].
int chunk_levels(int cells);

// The height grid a chunk mesh reads: the chunk's (N+1)^2 vertices plus a 1-sample halo, i.e.
// (N+3)^2 samples with index offsets (cx*N - 1, cz*N - 1) on `world` (its width/height are
// ignored; spacing, origin and offsets are kept). Fill it with any pure function of position
// (noise_fill, a compiled graph) and pass the field to build_chunk_mesh.
GridSpec chunk_height_grid(const GridSpec& world, int cells, std::int64_t cx, std::int64_t cz);

struct ChunkMeshParams {
  int lod = 0;  // level L: sample every 2^L cells [Limit: 0..log2 N]
  // Per edge (Edge order): how many levels coarser the neighbour across that edge is; 0 when it
  // is at the same level or finer (the finer side stitches). [Limit: 0..log2 N - lod]
  std::array<int, 4> coarser_neighbour{0, 0, 0, 0};
  // Skirts: a vertical strip hanging skirt_depth_m below every border edge, covering any gap to
  // a neighbour whose border heights differ by up to the depth. Usable with or without stitching.
  bool skirts = false;
  double skirt_depth_m = 10.0;      // [Units: m] [Limit: > 0, finite] used when skirts
  double uv_world_wrap_m = 4096.0;  // [Units: m] [Limit: > 0, finite]
  bool geomorph = true;             // fill Mesh::morph_y
  // Quadtree chunks (lod 0 only): -1 = morph towards this chunk's own level-1 lattice; 0..3 =
  // towards the surface of the parent node (twice the size, the same cell count) of which this
  // chunk is quadrant q (q & 1: +x half, q & 2: +z half), whose cells split along the parent's
  // radial diagonals. [Limit: -1..3; >= 0 needs lod 0]
  int morph_parent_quadrant = -1;
  // Fill the index buffers. Off: both are left empty (surface_index_count 0), for renderers that
  // share the StitchTable's pieces between chunks instead of storing indices per chunk.
  bool indices = true;

  // Throws Error(invalid_argument) naming the field, its value and the allowed range.
  void validate(int cells) const;
};

// Precomputed index buffers of an N-cell chunk for every level L and, per edge, every coarser
// neighbour difference d: the interior (cells not touching the border) plus four edge pieces, each
// the triangulation of the band between the border and the first inner ring with the border's
// vertices taken every 2^d vertices. Any edge mask is the interior plus one piece per edge, so
// O(log^2 N) pieces cover all (log N + 1) * (log N + 1)^4 combinations. Indices address the
// (N/2^L + 1)^2 vertex lattice of level L, row-major (index = j * (n + 1) + i).
// Surface cells are split along the diagonal through the cell corner farthest from the chunk
// centre ("radial" pattern; every level and every stitched band use the same rule, which is what
// makes the geomorph targets exact). Immutable; thread-safe.
class StitchTable {
 public:
  // Throws Error(invalid_argument) unless cells is a power of two in [1, kMaxChunkCells].
  explicit StitchTable(int cells);

  int cells() const { return cells_; }
  int levels() const { return levels_; }  // log2 N; valid lods are 0..levels()
  std::span<const std::uint32_t> interior(int lod) const;
  std::span<const std::uint32_t> edge(int lod, Edge e, int coarser_by) const;
  // Number of surface indices for (lod, coarser_neighbour).
  std::size_t surface_index_count(int lod, const std::array<int, 4>& coarser_neighbour) const;

 private:
  int cells_ = 0;
  int levels_ = 0;
  std::vector<std::vector<std::uint32_t>> interior_;           // [lod]
  std::vector<std::vector<std::uint32_t>> edges_;              // [(lod * 4 + edge) * (levels+1) + d]
};

// Builds the mesh of one chunk from its heights with a 1-sample halo (a field on
// chunk_height_grid(), (N+3)^2 samples, N = table.cells()). Vertices: the (n+1)^2 lattice of
// level L (n = N / 2^L), then with skirts 4 * (n+1) skirt vertices (edge order, along +X / +Z).
// Normals: central differences of the full-resolution samples, n = normalize(-(h[i+1] -
// h[i-1]) / 2s, 1, -(h[j+1] - h[j-1]) / 2s) in float, the same at every level (so a border
// vertex's normal matches a neighbour at any level). Positions x = float(i * 2^L * s), z likewise,
// y = height. uv_local = (i / n, j / n). Indices: table pieces for (lod, coarser_neighbour), then
// skirts. The origin is the chunk's vertex (0, 0): (grid.x_m(1), 0, grid.z_m(1)).
// Throws Error(invalid_argument) for a field of the wrong size or invalid params.
// Cost: O((n+1)^2) plus a copy of the indices; no allocation once `out` has capacity.
void build_chunk_mesh(const Field2D& heights_with_halo, const ChunkMeshParams& params,
                      const StitchTable& table, Mesh& out);

// ---------------------------------------------------------------------------------------------
// Map and tile meshes (exports)

// How a region mesh orders its vertices and triangles (the surface is the same).
enum class MeshOrder {
  // Vertex (i, j) of the level's lattice is j * (cells_x / 2^lod + 1) + i; triangles row by row.
  lattice,
  // For rendering: triangles in column strips sized for a 16-entry post-transform vertex cache,
  // vertices strip by strip in the order the triangles reach them. As good for the GPU as
  // optimize_mesh on the lattice order (export_test compares their cache miss and overfetch
  // ratios), built directly in a fraction of its time.
  vertex_cache,
};

// A rectangle of a map's cells meshed at one level.
struct MeshRegion {
  int i0 = 0, j0 = 0;              // first sample (vertex 0, 0) in the map
  int cells_x = 0, cells_z = 0;    // size in full-resolution cells [Limit: >= 1, multiple of 2^lod]
  int lod = 0;                     // [Limit: 0..16]
  double uv_world_wrap_m = 4096.0;  // see ChunkMeshParams
  MeshOrder order = MeshOrder::lattice;
};

// Meshes `region` of `map` (no skirts, no geomorph). Normals use central differences, reading
// map samples outside the region when present and the nearest map sample beyond the map's
// border, so tiles of one map share bit-identical border vertices and normals. The origin is the
// region's first sample. Vertex attributes do not depend on region.order. Throws
// Error(invalid_argument) when the region leaves the map or its size is not a multiple of 2^lod.
void build_region_mesh(const Field2D& map, const MeshRegion& region, Mesh& out);

// Tiling of a map into tiles x tiles meshes that share their border samples.
struct TilePlan {
  int tiles = 1;         // per side
  int tile_cells_x = 0;  // cells per tile along X
  int tile_cells_z = 0;
  int lod = 0;
  MeshRegion region(int tx, int tz) const;
};
// Throws Error(invalid_argument) with the sizes when tiles < 1, tiles does not divide the map's
// cells (width - 1, height - 1), or the tile size is not a multiple of 2^lod (naming the lod and
// the map's level count).
TilePlan plan_tiles(const GridSpec& map, int tiles, int lod);

// ---------------------------------------------------------------------------------------------
// Simplification and optimisation (meshoptimizer)

struct SimplifyParams {
  double max_error_m = 1.0;  // largest geometric deviation allowed [Units: m] [Limit: > 0, finite]
  // Keep every vertex on the mesh's open border in place, so adjacent tiles simplified
  // separately still share exactly the same border vertices.
  bool lock_border = true;
  void validate() const;  // Error(invalid_argument) for <= 0, NaN or infinite
};

struct SimplifyReport {
  std::size_t triangles_before = 0;
  std::size_t triangles_after = 0;
  std::size_t vertices_after = 0;
  double error_m = 0.0;  // meshoptimizer's estimate of the deviation reached [Units: m]
};

// Error-bounded simplification (meshopt_simplify, quadric error metric after Garland & Heckbert,
// SIGGRAPH 1997) of `in`'s surface triangles, then vertex-cache and vertex-fetch optimisation;
// `out` keeps positions, normals and UVs of the kept vertices (geomorph data is dropped).
// For a grid mesh (vertices on a lattice) the result is still a height field: every triangle
// has a non-zero XZ footprint (vertical triangles the collapses leave are removed by edge flips
// that keep the outline, so no hole opens and locked borders are unchanged; error_m is
// meshoptimizer's estimate before those flips). in and out must differ. Returns the report.
SimplifyReport simplify_mesh(const Mesh& in, const SimplifyParams& params, Mesh& out);

// Reorders triangles for the post-transform vertex cache (meshopt_optimizeVertexCache, after
// Forsyth's algorithm) and vertices in first-use order (meshopt_optimizeVertexFetch). The
// surface is unchanged; skirts are dropped. Scratch allocations only.
void optimize_mesh(Mesh& mesh);

// ---------------------------------------------------------------------------------------------
// Mesh files

// Largest GLB: its length fields are 32-bit.
inline constexpr std::uint64_t kMaxGlbBytes = 0xFFFFFFFFull;

// The material of a node's primitive.
enum class GlbMaterial : std::uint8_t {
  none,         // no material: glTF's default (white, metallic 1, roughness 1, opaque)
  matte,        // white base colour (times COLOR_0 when present), metallic 0, roughness 1, opaque
  matte_blend,  // as matte, alphaMode BLEND (COLOR_0's alpha), double-sided
};

struct GlbNode {
  std::string name;            // node and mesh name
  const Mesh* mesh = nullptr;  // translation = (origin_x_m, origin_y_m, origin_z_m)
  GlbMaterial material = GlbMaterial::none;
};

// Size of the mesh's data in a GLB: what write_glb needs, computable before building a mesh.
struct GlbMeshSize {
  std::uint64_t vertices = 0;
  std::uint64_t indices = 0;
  bool colours = false;  // the mesh has Mesh::colours (8 bytes per vertex)
};
// Exact file size write_glb produces for meshes of these sizes, excluding the JSON chunk, plus a
// bound of 4 KiB per node for the JSON. Used to refuse a too-large GLB before any work.
std::uint64_t glb_size_bound(std::span<const GlbMeshSize> meshes);
// Throws Error(limit, "<path>: ...") when glb_size_bound(meshes) exceeds kMaxGlbBytes, naming the
// size and suggesting tiles.
void check_glb_size(const std::filesystem::path& path, std::span<const GlbMeshSize> meshes);

// glTF 2.0 binary: one scene, one node and one mesh per GlbNode (triangles; POSITION with
// min/max, NORMAL, TEXCOORD_0 = uv_local, COLOR_0 = colours when not empty; 16- or 32-bit
// indices as in the mesh; surface and skirts), one buffer with one buffer view per attribute,
// one material per distinct GlbNode::material other than none. A mesh whose colours hold other
// than 0 or 4 values per vertex is Error(invalid_argument). Written atomically; refused before
// any byte is written when larger than kMaxGlbBytes (Error(limit)).
void write_glb(const std::filesystem::path& path, std::span<const GlbNode> nodes);
// The point an OBJ's positions are relative to [Units: m]: importers (Blender, three.js) read
// OBJ numbers as float32, which at 10^8 m from the world origin are 8 m apart, so positions are
// written relative to a nearby origin the file states.
struct ObjOrigin {
  double x_m = 0.0, y_m = 0.0, z_m = 0.0;
};
// Wavefront OBJ: v (position relative to `origin`: mesh origin + local - origin, computed in
// double, shortest round-trip decimal), vt (uv_local), vn, f v/vt/vn. The second line states the
// origin, "# origin_m X Y Z" (world position = v + origin). Default origin: the mesh's own
// (Mesh::origin_*_m); tiles of one map pass one origin (the bake: the map's first sample, the
// sidecar's origin_x_m / origin_z_m, y 0) so they still line up when imported together.
// The text is formatted in parallel with `ctx` in blocks and streamed to the file (a few MB per
// worker held at a time); the bytes do not depend on the thread count. ctx.threads and
// ctx.cancel apply; ctx.progress is not called.
void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::string_view name = "terrain");
void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::string_view name,
               const ObjOrigin& origin, const ExecContext& ctx = {});

// JSON manifest of a tiled export: tiles, tile_cells_x/z, tile_size_x/z_m, lod, spacing_m,
// origin_x_m/origin_z_m (the map's first sample, as in the sidecar), mesh_height_min_m /
// mesh_height_max_m (the lowest and highest vertex: the data, not the sidecar's mapping range
// height_min_m/height_max_m), simplify_error_m, tile_files [{tx, tz, tile_origin_x_m,
// tile_origin_z_m (the tile's vertex (0, 0): the GLB node translation), path, format,
// triangles}], terrane_version. Keys shared with the sidecar mean the same there. Written
// atomically.
struct TileManifestEntry {
  int tx = 0, tz = 0;
  double tile_origin_x_m = 0.0, tile_origin_z_m = 0.0;
  std::string path;
  std::string format;
  std::size_t triangles = 0;
};
struct TileManifest {
  int tiles = 1;
  int tile_cells_x = 0, tile_cells_z = 0;
  int lod = 0;
  double spacing_m = 1.0;
  double origin_x_m = 0.0, origin_z_m = 0.0;
  double mesh_height_min_m = 0.0, mesh_height_max_m = 0.0;
  double simplify_error_m = 0.0;  // 0 = not simplified
  std::vector<TileManifestEntry> tile_files;
};
void write_tile_manifest(const std::filesystem::path& path, const TileManifest& manifest);

}  // namespace terrane
