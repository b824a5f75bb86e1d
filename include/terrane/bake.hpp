// terrane bake: the map-baking pipeline behind `terrane generate` (module `bake`; uses every
// module above it: graph, erosion, io, mesh, surface).
//
//   preset (+ overrides) -> heights (graph) -> post operations (preset "post" + `erode`)
//   -> hydrology (when a mask, a preview, the perspective or a surface output needs it)
//   -> surface (climate, biomes, splat, scatter) -> height / mask / mesh / surface files
//   -> engine target -> perspective render -> JSON sidecar.
//
// One call, bake(request, ctx), does all of it and returns what it wrote. Files are named after
// the preset ("<name>.png", "<name>_preview.png", ...; "terrain" when the preset has no name)
// and written into request.out_dir; the sidecar "<name>.json" lists every other file with its
// format, the grid, the metres <-> integer height range, the seed and the preset hash.
//
// Errors: everything the request can get wrong (unknown preset, bad override, sizes beyond the
// caps, tiles that do not divide the map, an unwritable directory, ...) is checked before any
// height is generated and before the output directory is created, and thrown as terrane::Error
// with one precise message; a rejected request writes nothing. Messages name request fields by
// the `terrane generate` option they come from ("--formats", "--tiles 3 does not divide the
// map: ...") so that the CLI and the library report the same text.
//
// Atomicity: a bake is a transaction on out_dir (StagedOutputs, terrane/io.hpp). Every file is
// written into a private staging directory inside out_dir and, once all are complete, renamed
// into out_dir with the sidecar last (the sidecar of an older run is taken away first). A run
// that fails at any point (a format that cannot be written, a full disk, cancellation, SIGINT /
// SIGTERM / SIGHUP in the CLI) leaves out_dir exactly as it was, older outputs included. An
// existing file of the same name is replaced; a symlink at an output name is replaced by the
// file (its target is never written); a directory at an output name is refused before
// anything moves. Only SIGKILL or a crash can leave the staging directory
// ".terrane-staging-<pid>-<random>" behind; the next bake into the directory removes it (and
// any "*.terrane-tmp-<pid>-*" temporary) once that process is gone. If SIGKILL lands within the
// few renames of a publication, out_dir has no sidecar: a directory with a sidecar always holds
// the complete set it lists.
//
// Output names: the preset's name is a file stem (no separator, no control byte, no leading
// "." or "-", at most 100 bytes; see docs/PRESETS.md), so no output resolves outside out_dir.
//
// Determinism: the bytes of every file depend only on the request (preset, seed, sizes,
// options) and the build: not on ctx.threads, the SIMD target or timing (docs/DESIGN.md §1).
//
// Thread-safety: bake() is reentrant; concurrent calls must use different output directories.
//
// Memory: the map's heights (4 bytes per sample, at most kMaxGridSamples samples, refused
// before allocating), its hydrology when an output needs it, and each output's scratch; all
// freed on return. Nothing is printed: warnings go to ctx.log as they happen (LogLevel::warning)
// and are returned in the report with the statistics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/edit.hpp"
#include "terrane/erosion.hpp"
#include "terrane/io.hpp"
#include "terrane/preset.hpp"
#include "terrane/stats.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Request vocabulary

// One output of a bake (the sidecar is always written and is not in this list).
enum class OutputFormat {
  png16,    // <name>.png: 16-bit greyscale heights through the preset's height range
  raw16,    // <name>.r16: the same samples, headerless little-endian (a warning unless 2^n + 1)
  exr,      // <name>.exr: float heights in metres
  normals,  // <name>_normals.png: 8-bit tangent-space normal map
  preview,  // <name>_preview.png: shaded relief, or biome colours with PreviewMode::biomes
  rivers,   // <name>_rivers.png: 16-bit mask, 65535 where the drainage area >= river_area_m2
  lakes,    // <name>_lakes.png: 16-bit mask of lake cells
  flow,     // <name>_flow.png: log10 drainage area, one cell (0) to the whole map (65535)
  glb,      // <name>.glb or <name>_x{i}_z{j}.glb per tile
  obj,      // <name>.obj or <name>_x{i}_z{j}.obj per tile
  splat,    // <name>_splat{k}.png (RGBA, 4 layers each), <name>_layer_<layer>.png, splat preview
  biomes,   // <name>_biomes.png (dominant biome id) + <name>_biomes.json (legend)
  scatter,  // <name>_scatter.csv, <name>_scatter_unity.csv, <name>_scatter.json (manifest)
  stats,    // <name>_stats.json (terrane stats --json, plus surface shares when computed) and
            // <name>_stats.png (chart sheet: slopes, hypsometry, spectrum, Hack's law)
  perspective,  // <name>_perspective.png: the map seen by a camera (terrane/stats.hpp), true
                // scale, with sea, lakes and rivers; size and camera from the request
};
using OutputFormats = std::set<OutputFormat>;

// "png16", "raw16", ... as in the list above (and in --formats).
const char* to_string(OutputFormat f);
// A comma-separated list, e.g. "png16,preview"; empty items are skipped. An unknown name throws
// Error(invalid_argument) "--formats: unknown format '<name>' (allowed: ...)".
OutputFormats parse_formats(std::string_view list);

// The engine whose terrain importer gets its own heightmap plus "<name>_<engine>.json" with the
// numbers to enter in its import dialog (README, "Meshes and engine import").
//   unity:  RAW16 square of side 2^n + 1 (the map is snapped up before generation, with a
//           warning), in tiles of at most 4097 samples sharing their borders.
//   unreal: PNG16 spanning the preset's height range over 0..65535 (the png16 samples), with the
//           Z scale (percent) and actor Z location that map it back to metres, of one of
//           Unreal's recommended landscape sizes (snapped up, with a warning; 8129 at most).
//   godot:  OpenEXR heights in metres (Terrain3D importer, scale 1, offset 0).
enum class Engine { none, unity, unreal, godot };
// "" for none, else "unity" | "unreal" | "godot".
const char* to_string(Engine e);
// "" -> none, "unity" | "unreal" | "godot"; anything else throws Error(invalid_argument)
// "--engine: unknown engine '<name>' (allowed: unity, unreal, godot)".
Engine parse_engine(std::string_view name);

// What <name>_preview.png shows: a hypsometric relief, or biome colours with scatter points
// (biomes also implies the preview output, and reads the preset's surface section).
enum class PreviewMode { relief, biomes };
const char* to_string(PreviewMode m);
// "relief" | "biomes"; anything else throws Error(invalid_argument)
// "--preview: unknown mode '<name>' (allowed: relief, biomes)".
PreviewMode parse_preview_mode(std::string_view name);

// "thermal,droplets" -> the kinds in order; empty items are skipped. An unknown name throws
// Error(invalid_argument) "--erode: ...". `graph` parses but bake() rejects it (it has no
// default: it needs its nodes).
std::vector<RegionOpKind> parse_erode(std::string_view list);

// ---------------------------------------------------------------------------------------------
// Request and report

// Budget: before any work, bake() estimates what the request needs and refuses it with
// Error(limit), naming the estimate, its largest part and the cap, when
//  - memory: heights, hydrology, post-operation scratch and the hungriest output's scratch
//    (peak bytes per sample measured per stage, plus 25%; docs/PERFORMANCE.md) and the scatter's
//    candidate blocks and instances exceed request.max_memory_bytes;
//  - work: the post operations' estimated time on the reference machine (2-core x86-64;
//    per-cell costs in docs/PERFORMANCE.md) exceeds kMaxBakeWorkSeconds in all;
//  - files: the mesh tiles' files exceed kMaxMeshFiles;
//  - scatter: the species' densities over the map's area (at their largest biome multiplier and
//    cluster factor: an upper bound) exceed kMaxScatterInstances instances.
inline constexpr std::uint64_t kDefaultBakeMemoryBytes = std::uint64_t{16} << 30;
inline constexpr std::uint64_t kMinBakeMemoryBytes = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kMaxBakeMemoryBytes = std::uint64_t{4} << 40;
inline constexpr double kMaxBakeWorkSeconds = 7200.0;
inline constexpr std::int64_t kMaxMeshFiles = 1024;
inline constexpr double kMaxScatterInstances = 4194304.0;  // 2^22

struct BakeRequest {
  // A builtin preset name or a path to a preset JSON file, or a preset already loaded (its
  // source and name are kept; the overrides below are applied to its canonical_json, which
  // gives the same preset and hash as loading it with them; without overrides it is used as
  // is).
  std::variant<std::string, Preset> preset = std::string("default");
  // "a.b.c=value" preset overrides (--set), applied in order before the settings below.
  std::vector<std::string> overrides;
  // Height edits (edit.hpp; a world's WorldStore::height_edits) added to the graph's heights,
  // as the streamed world adds them, before the post operations and every output (the scatter
  // margin beyond the map included). The map must lie on the edits' lattice: spacing their
  // cell, origin a multiple of it on both axes (else Error(invalid_argument), before any
  // work). nullptr or empty: none.
  std::shared_ptr<const HeightEditSnapshot> edits;
  // Scatter instance overrides (a world's WorldStore::instance_edits) applied to the scatter
  // output as the streamed world applies them (the removed instances go, states are kept,
  // added instances stand on the exported level-0 mesh); the scatter CSV then has a `state`
  // column. Added species must be the preset's (else Error(invalid_argument), before any work).
  // nullptr or empty: none.
  std::shared_ptr<const InstanceEditSnapshot> instance_edits;
  // Splat paint (a world's WorldStore::paint) over the splat outputs' weights; the map must lie
  // on its lattice and its layer count be the preset's (else Error(invalid_argument), before
  // any work). nullptr or empty: none.
  std::shared_ptr<const SplatPaintSnapshot> paint;
  // Names the edits in the sidecar's "edits" object (the CLI: "world FILE, commit N").
  std::string edits_source;

  // Settings that become preset overrides, so the sidecar's preset hash covers them:
  std::optional<std::uint64_t> seed;  // "seed"
  std::optional<int> size;            // "world.size": samples per side [Limit: 1..65536]
  std::optional<double> cell_m;       // "world.cell_size_m" [Units: m] [Limit: (0, 10000]]

  // A non-square map (both or neither) [Limit: 1..65536 each, 2^30 samples in all]; cannot be
  // combined with `size`. Default: size x size from the preset's world.
  std::optional<int> width, height;
  // World position of sample (0, 0) [Units: m]; default 0, 0.
  std::optional<double> origin_x_m, origin_z_m;

  OutputFormats formats = {OutputFormat::png16, OutputFormat::preview};
  // Region operations appended with their defaults to the preset's post list (as an override
  // "post=[...]", so the hash covers them); applied after the preset's own, in this order.
  std::vector<RegionOpKind> erode;
  // Drainage area from which a cell counts as river (rivers output; surface water with
  // whole_map_hydrology) [Units: m^2] [Limit: > 0].
  double river_area_m2 = 1.0e6;
  // Surface outputs (splat, biomes, scatter, the biome preview) from the map's own hydrology
  // (--whole-map-hydrology): rivers, lakes and sea boost moisture, scatter avoids river and
  // lake cells, the biome preview draws them. Hydrology is a whole-map computation, so these
  // outputs then depend on the map's extent: NOT seamless across maps or tiles (the bake adds a
  // warning saying so). Default (false): they depend only on location; the only water is what
  // lies below the world's sea level (no moisture boost), as in the streamed world.
  bool whole_map_hydrology = false;

  // Meshes (glb / obj only; an error otherwise when not at their defaults):
  int lod = 0;                             // samples every 2^lod cells [Limit: 0..levels]
  std::optional<double> simplify_error_m;  // simplify to this error, borders exact [> 0]
  int tiles = 1;                           // tiles per side; must divide the map's cells

  // Perspective render (format perspective only; an error otherwise when not at their
  // defaults): the picture's size (--perspective-size WxH) [Limit: kMinPerspectiveSide..
  // kMaxPerspectiveSide each], and the camera (--camera x,y,z,yaw,pitch[,fov] in metres and
  // degrees, see Camera; none or "--camera auto": auto_camera(), from beyond the south-west
  // corner looking at the map's centre 32 degrees down, framing the whole map).
  int perspective_width = 1280, perspective_height = 720;
  std::optional<Camera> camera;

  Engine engine = Engine::none;
  PreviewMode preview = PreviewMode::relief;
  // Created when missing (with its parents), after validation.
  std::filesystem::path out_dir = "out";
  // The most memory the bake may need by its estimate (--max-memory, in GiB there)
  // [Units: bytes] [Limit: 64 MiB..4 TiB]; see "Budget" below.
  std::uint64_t max_memory_bytes = kDefaultBakeMemoryBytes;
  // Measure each stage's peak resident memory into BakeReport::stages (`--timings`). On Linux
  // this resets the process's peak counter at each stage's start (StageClock, terrane/core.hpp):
  // afterwards the process's VmHWM and ru_maxrss are the last stage's peak, not the run's.
  bool stage_peaks = false;
};

struct BakedFile {
  std::string name;          // file name in out_dir
  std::string format;        // as in the sidecar: "png16", "normal_png", "unity_raw16", ...;
                             // "sidecar_json" for the sidecar itself
  std::uintmax_t bytes = 0;  // its size once written
};

// Mesh statistics (formats glb / obj).
struct BakeMeshSummary {
  int tiles = 1;  // per side
  int lod = 0;
  bool simplified = false;
  double simplify_error_m = 0.0;  // requested maximum [Units: m]
  double reached_error_m = 0.0;   // worst over the tiles [Units: m]
  std::size_t triangles_in = 0;   // before simplification
  std::size_t triangles_out = 0;  // written (per format)
};

struct BakeReport {
  // Every file written, in the sidecar's order (height outputs, meshes, engine target, surface),
  // then the sidecar. Exactly these files were written by this call.
  std::vector<BakedFile> files;
  // Non-fatal findings, in order (engine size snapping, RAW16 size); also in the sidecar. The
  // CLI prints each as "warning: <text>" on stderr.
  std::vector<std::string> warnings;
  std::optional<BakeMeshSummary> meshes;  // when glb or obj was written
  double generation_s = 0.0;  // from the call to the heights being final (graph, post, hydrology)
  double total_s = 0.0;       // the whole call
  // Wall-clock and CPU time of each stage that ran, in order: "checks" (request, preset, plans,
  // output directory), "graph", one "post[i] <kind>" per post operation, "hydrology", then each
  // group of outputs written ("height outputs", "meshes", "engine target", "surface",
  // "perspective", "stats") and "sidecar, publish". cpu_s / wall_s = cores kept busy
  // (`terrane generate --timings` prints them).
  std::vector<StageTiming> stages;

  GridSpec grid;            // the map as generated (after engine snapping)
  std::string name;         // file base name: the preset's name, or "terrain"
  std::string preset_name;  // the preset's name (the sidecar's "preset")
  std::uint64_t seed = 0;
  std::uint64_t preset_hash = 0;
  HeightRange range;  // the preset's world.height_min_m / height_max_m
  double sea_level_m = 0.0;

  std::uintmax_t total_bytes() const;
};

// Runs the pipeline described at the top of this header.
//   ctx.threads: workers for every stage (results do not depend on it).
//   ctx.progress: a fraction in [0, 1] over the height stages: the graph evaluation covers
//     [0, 1] when there are no post operations, else [0, 0.25], the post operations (0.25, 1].
//     Hydrology, surface and file writing report none.
//   ctx.cancel: stops long stages early with Error(internal, "cancelled").
// Throws Error as described at the top (before any work for a bad request).
BakeReport bake(const BakeRequest& request, const ExecContext& ctx = {});

// The height stage of bake() alone: request -> preset (+ overrides, seed, size, cell, erode) ->
// graph -> post operations, with no output files, no directory and no engine snapping (formats
// and out_dir are ignored). With `graph_only` the post operations are skipped: the heights the
// streamed world evaluates. `preset_out` (optional) receives the resolved preset (its world
// gives the sea level and cell size). Same errors, progress and determinism as bake().
Field2D bake_heights(const BakeRequest& request, const ExecContext& ctx = {},
                     bool graph_only = false, Preset* preset_out = nullptr);

// ---------------------------------------------------------------------------------------------
// Block-world bakes (`terrane generate --mode voxel`)

// A box of the preset's block world (its voxel section, or the defaults) written as MagicaVoxel
// .vox (256^3 models tiled into a scene) and/or GLB (greedy block meshes with ambient occlusion
// and vertex colours), plus a JSON sidecar (region, block size, palette, seed, preset hash).
struct VoxelBakeRequest {
  std::variant<std::string, Preset> preset = std::string("default");
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  // The box in world blocks: x0, z0 its corner, size_x, size_z its extent [Limit: 1..4096].
  std::int64_t x0 = -128, z0 = -128;
  int size_x = 256, size_z = 256;
  // Rows y0..y1 (world blocks, inclusive); absent: from 8 blocks below the lowest 2D surface of
  // the box's columns (or 64 below for caves, whichever the range allows) to 8 above the
  // highest, clipped to the voxel section's min_y..max_y.
  std::optional<std::int64_t> y0, y1;
  bool vox = true, glb = true;
  std::filesystem::path out_dir = "out";
  // Height edits (a world's WorldStore::height_edits) under the blocks: BlockWorldGenerator
  // samples them at the block columns (voxel.hpp). Their cell must be the preset's world cell.
  std::shared_ptr<const HeightEditSnapshot> edits;
  // Block overrides (a world's WorldStore::block_edits) over the generated blocks
  // (BlockWorldGenerator::generate); nullptr or empty: none.
  std::shared_ptr<const BlockEditSnapshot> block_edits;
  // Names the edits in the sidecar's "edits" object (the CLI: "world FILE, commit N").
  std::string edits_source;
};

struct VoxelBakeReport {
  std::vector<BakedFile> files;  // in order: .vox, .glb, sidecar
  std::string name;
  std::uint64_t seed = 0;
  std::uint64_t preset_hash = 0;
  BlockRegion region;                 // the box (its blocks are released after writing)
  std::size_t solid_blocks = 0;       // non-air blocks
  std::vector<std::string> warnings;  // the generator's (BlockWorldGenerator::warnings)
  double generation_s = 0.0, total_s = 0.0;
  std::uintmax_t total_bytes() const;
};

// Validates the request before any work (sizes, the vertical range, the .vox limits of
// kMaxVoxModels models and 255 block types), generates the box on ctx.threads workers, writes
// the files into a staging directory and publishes them together (a failed run leaves out_dir as
// it was). Throws Error with the option names of the CLI (--size, --y-range, --origin).
VoxelBakeReport bake_voxel(const VoxelBakeRequest& request, const ExecContext& ctx = {});

}  // namespace terrane
