// terrane io: height-map and image files, JSON sidecars (module `io`; depends on core, field).
//
// Every writer takes a std::filesystem::path, validates sizes before allocating, and writes
// atomically: the bytes go to "<path>.terrane-tmp-<pid>-<random>" in the same directory, created
// exclusively (never through a symlink) and renamed over <path> only when complete, so a failed
// run never leaves a partial file (nor the temporary). A set of files that belong together (a
// bake's outputs and their sidecar) is staged and published by StagedOutputs. Every failure throws
// terrane::Error whose message starts with the file's path:
//   io               the file could not be opened / read / written / renamed
//   parse            the file's contents are malformed or of an unsupported kind
//   limit            the file declares a size beyond kMaxGridSide / kMaxGridSamples
//   invalid_argument a parameter (range, sizes) is out of its documented range
// Readers never crash on malformed input and check declared sizes before allocating.
// All functions are reentrant and may run concurrently on different files.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "terrane/core.hpp"
#include "terrane/field.hpp"

namespace terrane {

// ---------------------------------------------------------------------------------------------
// Atomic writing

// Writes `bytes` to `path` atomically (see above). With `sync`, the temporary is fsync'ed
// before the rename. Throws Error(io, "<path>: <reason>").
void write_file_atomic(const std::filesystem::path& path, std::span<const std::byte> bytes,
                       bool sync = false);

// Writes the concatenation of `pieces`, in order, atomically: a large file made of buffers that
// already exist (a GLB's header, then each mesh array) is written without copying them into one.
void write_file_atomic(const std::filesystem::path& path,
                       std::span<const std::span<const std::byte>> pieces, bool sync = false);

// For writers that take a descriptor: calls write_to(fd) with the temporary's descriptor
// (open for writing, at offset 0; write_to must not close it), then closes it and renames the
// temporary over `path`. If write_to throws, or the close or the rename fails, the temporary is
// removed; terrane::Error from write_to is rethrown as is, any other exception becomes
// Error(io, "<path>: <what>").
void write_file_atomic(const std::filesystem::path& path,
                       const std::function<void(int fd)>& write_to, bool sync = false);
// For write_to: writes all of `bytes` through fd (retrying short writes and EINTR); throws
// Error(io, "<path>: write failed: <reason>").
void write_to_descriptor(int fd, const std::filesystem::path& path,
                         std::span<const std::byte> bytes);

// Creates and removes a probe file "<dir>/.terrane-write-probe.terrane-tmp-<pid>-<random>"
// (exclusively, never through a symlink); throws Error(io, message) when it cannot be created,
// so that a run whose output cannot be written fails before any work. Thread-safe.
void probe_writable(const std::filesystem::path& dir, const std::string& message);

// A set of output files published together into an existing directory `dir`, so that a run
// that fails leaves `dir` exactly as it was:
//  - the constructor creates the staging directory "<dir>/.terrane-staging-<pid>-<random>"
//    (mode 0700; it is the directory's writability probe) after removing the staging
//    directories and temporaries that processes no longer running left in `dir` (a run killed
//    with SIGKILL leaves them; they are found by those names);
//  - the caller writes every file into staging() (atomically, as the writers do);
//  - publish() moves them into `dir`. Existing files of the same names are replaced (a symlink
//    at a name is replaced by the file; its target is never written); a directory or another
//    non-file at a name is refused before anything moves. The `record` (the sidecar, which
//    lists the set) is taken away first and published last, so a `dir` with a record holds a
//    complete set. If a rename fails, every step done is undone and Error(io) names the file;
//  - the destructor removes the staging directory and whatever is still in it.
// Publication runs under the lock of remove_unpublished_outputs(), so an interruption that
// calls it never splits a set.
class StagedOutputs {
 public:
  explicit StagedOutputs(std::filesystem::path dir);
  ~StagedOutputs();
  StagedOutputs(const StagedOutputs&) = delete;
  StagedOutputs& operator=(const StagedOutputs&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  const std::filesystem::path& staging() const { return staging_; }
  // files: names inside staging() (no directory part), each published under the same name in
  // dir(); record: one of them, published last. Throws Error(invalid_argument) for a name that
  // is not a plain file name, Error(io) naming the file when a staged file is missing or a
  // target cannot be replaced, Error(cancelled) once remove_unpublished_outputs() has run.
  void publish(const std::vector<std::string>& files, const std::string& record);

 private:
  std::filesystem::path dir_, staging_;
  bool published_ = false;
};

// Deletes every temporary and staging directory this process has not published, and makes
// every later creation or publication throw Error(cancelled): for an interrupted process (the
// CLI calls it from its signal-handling thread on SIGINT, SIGTERM and SIGHUP, then exits). Not
// async-signal-safe: call it from a thread, not from a signal handler. One-way: terrane writes
// no file in this process afterwards.
void remove_unpublished_outputs() noexcept;

// ---------------------------------------------------------------------------------------------
// Height mapping for integer formats

// The metres represented by the ends of an integer format: 0 <-> height_min_m,
// 65535 <-> height_max_m. Recorded in the JSON sidecar.
struct HeightRange {
  double height_min_m = 0.0;     // [Units: m] finite
  double height_max_m = 1000.0;  // [Units: m] finite, > height_min_m
  // Throws Error(invalid_argument) naming `what` and the values.
  void validate(std::string_view what = "height range") const;
};

// round((h - min) / (max - min) * 65535), clamped to [0, 65535] (NaN maps to 0). In double.
std::uint16_t height_to_u16(float height_m, const HeightRange& range);
// min + v / 65535 * (max - min), in double, returned as float.
float u16_to_height(std::uint16_t v, const HeightRange& range);

// A 16-bit single-channel image, row-major, row 0 first.
struct Image16 {
  int width = 0;
  int height = 0;
  std::vector<std::uint16_t> samples;  // width * height
};

// Converts a field to 16-bit samples through `range` (validated), parallel over rows.
Image16 heights_to_image16(const Field2D& heights, const HeightRange& range,
                           const ExecContext& ctx = {});
// Converts samples back to metres on a grid with the image's size and the given spacing.
Field2D image16_to_heights(const Image16& image, const HeightRange& range, double spacing_m = 1.0);

// ---------------------------------------------------------------------------------------------
// PNG, 16-bit greyscale (libspng). Row 0 of the image is grid row j = 0 (smallest z).

// The image's rows are compressed in blocks on ctx's workers: the same bytes on any thread
// count (and, for an image of one block, about 1 MiB, the bytes libspng 0.7 wrote before).
void write_png16(const std::filesystem::path& path, const Image16& image,
                 const ExecContext& ctx = {});
void write_png16(const std::filesystem::path& path, const Field2D& heights,
                 const HeightRange& range, const ExecContext& ctx = {});
// A width x height image whose rows are formed as the encoder asks for them: row(j, out) writes
// row j's samples into out (width of them), on any of ctx's workers, so it must only read
// shared data. The image is never whole in memory; the bytes are those of the Image16 overload
// with the same samples.
void write_png16(const std::filesystem::path& path, int width, int height,
                 const std::function<void(int j, std::span<std::uint16_t> out)>& row,
                 const ExecContext& ctx = {});
// Accepts only colour type 0 (greyscale) at bit depth 16; anything else is Error(parse) naming
// what was found. Sizes above kMaxGridSide per side or kMaxGridSamples in all are Error(limit).
// Before the image is allocated, the header is checked against the file's size: a file of S
// bytes holds at most 1032 * S bytes of image data (deflate's densest ratio); a header declaring
// more is Error(parse) with both figures.
Image16 read_png16(const std::filesystem::path& path);
Field2D read_png16(const std::filesystem::path& path, const HeightRange& range,
                   double spacing_m = 1.0);

// 8-bit PNG with 1 (grey), 3 (RGB) or 4 (RGBA) interleaved channels, row 0 first; pixels holds
// width * height * channels bytes. Throws Error(invalid_argument) on other channel counts or a
// size mismatch. Compressed on ctx's workers, as write_png16.
void write_png8(const std::filesystem::path& path, int width, int height, int channels,
                std::span<const std::uint8_t> pixels, const ExecContext& ctx = {});
// The same image with its rows formed as the encoder asks for them: row(j, out) writes row j's
// width * channels bytes into out, on any of ctx's workers (so it must only read shared data).
// The image is never whole in memory; the bytes are those of the overload above.
void write_png8(const std::filesystem::path& path, int width, int height, int channels,
                const std::function<void(int j, std::span<std::uint8_t> out)>& row,
                const ExecContext& ctx = {});

// ---------------------------------------------------------------------------------------------
// RAW16: headerless little-endian uint16, row-major, row 0 first (Unity's "Import Raw",
// byte order "Windows"). Unity wants a square of side 2^n + 1 (33 .. 4097).

// When the image is not a square of side 2^n + 1, warn(ctx, ...) reports it ("<path>: size W x H
// is not a square of side 2^n + 1 ...; Unity's terrain importer will not accept it as is"),
// once, from the calling thread; the file is written either way.
void write_raw16(const std::filesystem::path& path, const Image16& image,
                 const ExecContext& ctx = {});
// The field through `range` (heights_to_image16 with ctx), then as above.
void write_raw16(const std::filesystem::path& path, const Field2D& heights,
                 const HeightRange& range, const ExecContext& ctx = {});
// With width = height = 0 the image is taken to be square and its side inferred from the file
// size; otherwise the file must hold exactly width * height samples. Mismatches are
// Error(parse) with the file size and the expected size.
Image16 read_raw16(const std::filesystem::path& path, int width = 0, int height = 0);

// ---------------------------------------------------------------------------------------------
// OpenEXR: scanline, ZIP compression, channels R, G, B of pixel type FLOAT, each equal to the
// height in metres (Terrain3D and Blender read RGB). Data window (0,0)-(w-1,h-1). The chunks
// (16 scanlines each) are compressed on ctx's workers; the bytes do not depend on their count.

void write_exr(const std::filesystem::path& path, const Field2D& heights,
               const ExecContext& ctx = {});
// Reads channel R, or Y when there is no R (any pixel type, converted to float). The data
// window size is checked against the caps before anything is allocated, and against the file's
// size: a file of S bytes may declare at most 1376 * S bytes of samples (all channels; the
// densest ratio of OpenEXR's lossless codecs, PXR24), more is Error(parse) with both figures
// (so nearly constant DWAA / DWAB images, which compress further, are refused too).
Field2D read_exr(const std::filesystem::path& path, double spacing_m = 1.0);

// ---------------------------------------------------------------------------------------------
// NumPy .npy (read only): a 2-D little-endian float32 ('<f4') or float64 ('<f8', converted to
// float) array in C order, format version 1, 2 or 3. Row r of the array is grid row j = r,
// column c is i = c; NaN samples are kept (no-data). Anything else (other dimensions, integer or
// big-endian types, Fortran order, a malformed header, data shorter or longer than the header
// declares) is Error(parse) naming what was found; sizes beyond kMaxGridSide / kMaxGridSamples
// are Error(limit). The header is checked against the file size before allocating.
Field2D read_npy(const std::filesystem::path& path, double spacing_m = 1.0);

// ---------------------------------------------------------------------------------------------
// Images for people and shaders

// 8-bit RGB tangent-space normal map of a height field (normals_clamped(), so it has the
// field's size): R = (n.x + 1) / 2 (+X), G = (n.z + 1) / 2 (+Z), B = (n.y + 1) / 2 (up), each
// scaled by 255 and rounded. Image row 0 is the smallest z, so G points along increasing rows:
// the OpenGL ("Y+") convention when the texture's V axis runs along +Z (as for a Unity terrain,
// whose heightmap row 0 is at z = 0). Flip G for DirectX ("Y-") consumers.
void write_normal_map_png(const std::filesystem::path& path, const Field2D& heights,
                          const ExecContext& ctx = {});
void write_normal_map_png(const std::filesystem::path& path, const Normals& normals,
                          const ExecContext& ctx = {});

// Colour ramps of the preview. temperate: sand, greens, olive, brown and grey rock, snow.
// arid: sand, ochre, red-brown rock, pale caprock.
enum class PreviewPalette { temperate, arid };
// "temperate" | "arid"; throws Error(invalid_argument) listing the names.
PreviewPalette parse_preview_palette(std::string_view name);

// Shaded relief preview.
struct PreviewParams {
  PreviewPalette palette = PreviewPalette::temperate;
  HeightRange range;                   // heights shown; colours are placed within it (see below)
  double sea_level_m = 0.0;            // [Units: m] finite; below it is water
  double ambient = 0.35;               // [Limit: 0..1] light that reaches slopes facing away
  double vertical_exaggeration = 1.0;  // [Limit: > 0, finite] for the hillshade only
  void validate() const;
};

// Colours a field into caller-owned 8-bit RGB (3 * width * height bytes, row 0 first).
// Hypsometric tint: water from shallow cyan-blue at the shore to deep navy at the range's
// minimum (or 200 m deep, whichever is less deep); land from beach sand (first 3 m above sea),
// lowland green, highland olive, brown rock, grey rock, to snow in the top 8% of the land span
// [sea_level_m, height_max_m]. Hillshade: Lambertian with light from the north-west (-X, -Z;
// image top is north) at 45 degrees altitude plus ambient, normalised so flat ground keeps its
// colour; water gets a quarter of the land's shading. The cell size is heights.grid.spacing_m.
// Colours come from a 4096-entry table: per pixel one lookup, one sqrt, one division.
// Deterministic; parallel over rows.
void render_preview(const Field2D& heights, const PreviewParams& params,
                    std::span<std::uint8_t> rgb, const ExecContext& ctx = {});
void write_preview_png(const std::filesystem::path& path, const Field2D& heights,
                       const PreviewParams& params, const ExecContext& ctx = {});

// Surface water of a map beyond the sea, drawn as water by the previews and the perspective
// render (terrane/stats.hpp). Each span is empty or holds one value per cell of the map (row 0
// first); the hydrology (terrane/erosion.hpp) gives both: Hydrology::water_level_m and
// Hydrology::river.
struct PreviewWater {
  std::span<const float> water_level_m;  // water where level > height (lakes, sea) [Units: m]
  std::span<const std::uint8_t> river;   // non-zero: a river cell
  // Throws Error(invalid_argument) when a non-empty span does not hold `cells` values.
  void validate(std::size_t cells, std::string_view who) const;
};
// As above, with lakes tinted by their depth (level - height) like the sea and river cells in
// the colour of shallow water; the sea below sea_level_m as before.
void render_preview(const Field2D& heights, const PreviewParams& params, const PreviewWater& water,
                    std::span<std::uint8_t> rgb, const ExecContext& ctx = {});
void write_preview_png(const std::filesystem::path& path, const Field2D& heights,
                       const PreviewParams& params, const PreviewWater& water,
                       const ExecContext& ctx = {});

// The preview's colours without shading, the one table shared by render_preview and the
// perspective render: 0..255 per channel (as float, r, g, b). preview_albedo: water by depth
// below params.sea_level_m, land by palette over [sea_level_m, range.height_max_m] (as
// described at render_preview). preview_water_albedo: water of the given depth [Units: m]
// (>= 0; 0 is the shore colour, also that of rivers). Pure; no validation of params.
std::array<float, 3> preview_albedo(const PreviewParams& params, double height_m);
std::array<float, 3> preview_water_albedo(double depth_m);

// ---------------------------------------------------------------------------------------------
// JSON sidecar describing an export.

struct SidecarFile {
  std::string path;    // as written (typically relative to the sidecar)
  std::string format;  // "png16", "raw16", "exr", "normal_png", "preview_png", ...
};

struct Sidecar {
  int width = 0;
  int height = 0;
  double spacing_m = 1.0;
  double origin_x_m = 0.0;
  double origin_z_m = 0.0;
  HeightRange range;
  double sea_level_m = 0.0;
  std::uint64_t seed = 0;         // a JSON unsigned integer (exact up to 2^64 - 1)
  std::string preset;             // preset name or path
  std::uint64_t preset_hash = 0;  // written as 16 lowercase hex digits
  std::vector<SidecarFile> files;
  std::vector<std::string> warnings;  // written only when not empty
  // A world's edits baked into the outputs: written as "edits": {"source", then "tiles" and
  // "hash" (height edits), "instance_chunks", "instance_overrides" and "instance_hash" (scatter
  // instance overrides), "paint_tiles" and "paint_hash" (splat paint), each group only when its
  // layer is not empty}, and only when one is not. source names them (e.g. "world my.world,
  // commit 7"); the hashes are the layers' content_hash() (edit.hpp), 16 hex digits.
  std::string edits_source;
  std::size_t edit_tiles = 0;
  std::uint64_t edits_hash = 0;
  std::size_t instance_chunks = 0;
  std::size_t instance_overrides = 0;
  std::uint64_t instance_hash = 0;
  std::size_t paint_tiles = 0;
  std::uint64_t paint_hash = 0;
};

// Keys: width, height, spacing_m, origin_x_m, origin_z_m, height_min_m, height_max_m,
// sea_level_m, seed, preset, preset_hash, files [{path, format}], terrane_version, warnings?,
// edits?.
// Validates sizes, spacing and range first (Error(invalid_argument) naming the field).
void write_sidecar_json(const std::filesystem::path& path, const Sidecar& sidecar);

// The library version written into sidecars ("major.minor.patch").
const char* terrane_version();

}  // namespace terrane
