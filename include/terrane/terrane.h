/* terrane C API: the library for every language that binds C (Unity's P/Invoke, Godot's
 * GDExtension, Rust, Python). Plain C99; compiles as C++ too. docs/CAPI.md is the guide.
 *
 * Link with libterrane.so (it exports these terrane_* functions and nothing else) or, from
 * C++, with the static library terrane::terrane, which holds them too.
 *
 * Conventions
 *   - Every function is prefixed terrane_, every type terrane_*; handles are opaque structs made
 *     by *_load / *_parse / *_create / *_open and freed by *_free (which accept NULL).
 *   - Functions that can fail return terrane_status. TERRANE_OK is 0; on any other value the call
 *     changed nothing the caller owns except what the function says (*count on
 *     TERRANE_BUFFER_TOO_SMALL).
 *   - Messages: terrane_last_error() is the message of the last failed call made on the calling
 *     thread: one line naming the argument, its value and the allowed range (the C++ library's
 *     terrane::Error text). It stays valid until the next failing call on that thread. A handle
 *     used from one owner thread (a streamer, a world) also keeps the message of its own last
 *     failure (terrane_streamer_last_error, terrane_world_last_error).
 *   - Buffers are the caller's. Where a size varies, the function takes the buffer's capacity in
 *     elements and writes the number it needs to *count: with a buffer too small (or NULL) it
 *     returns TERRANE_BUFFER_TOO_SMALL and writes nothing but *count. *_bound functions give a
 *     size ahead of the call.
 *   - No exception crosses this boundary and no C++ type appears in it. A bug inside terrane is
 *     TERRANE_INTERNAL with its message, never an abort.
 *   - Thread-safety is stated per function. "Any thread": concurrent calls are safe (with the
 *     same or different handles). "Owner thread": calls on that handle must not overlap (they
 *     may come from different threads one after another).
 *   - Strings passed in and returned are UTF-8 and NUL-terminated (file paths too); returned
 *     strings belong to the library (valid as the function says: as long as the handle, or
 *     until the next failing call for messages) and are never freed by the caller.
 *   - Lifetimes: a query, streamer or world made from a preset does not borrow it (each keeps
 *     what it needs): the preset may be freed first. A query made from a streamer or world
 *     keeps the state it was made with and outlives them too.
 *   - Units: metres, seconds, degrees. Y is up; the ground spans x and z. World positions are
 *     double; mesh vertices are float relative to their chunk's origin.
 *   - Determinism: every output is a function of (preset, seed, coordinates, edits), the same
 *     bytes on every machine, thread count and SIMD target as through the C++ API.
 */
#ifndef TERRANE_TERRANE_H
#define TERRANE_TERRANE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TERRANE_API __attribute__((visibility("default")))
#else
#define TERRANE_API
#endif

/* ------------------------------------------------------------------------------------------ */
/* Status, errors, version                                                                    */

typedef enum terrane_status {
  TERRANE_OK = 0,
  TERRANE_INVALID_ARGUMENT = 1, /* a value outside its range, a NULL pointer or handle */
  TERRANE_PARSE = 2,            /* malformed JSON or file contents */
  TERRANE_IO = 3,               /* a file could not be read or written */
  TERRANE_LIMIT = 4,            /* a request beyond a documented resource cap */
  TERRANE_INTERNAL = 5,         /* a bug: please report it with the message */
  TERRANE_CANCELLED = 6,        /* the work was cancelled */
  TERRANE_BUFFER_TOO_SMALL = 7  /* *count holds the size needed */
} terrane_status;

/* "ok", "invalid_argument", "parse", "io", "limit", "internal", "cancelled",
 * "buffer_too_small"; "unknown" for any other value. Any thread. */
TERRANE_API const char* terrane_status_name(int32_t status);

/* The message of the last failed call on this thread ("" when none). Any thread. */
TERRANE_API const char* terrane_last_error(void);

#define TERRANE_VERSION_MAJOR 0
#define TERRANE_VERSION_MINOR 1
#define TERRANE_VERSION_PATCH 0
/* "0.1.0", and major * 10000 + minor * 100 + patch of the library loaded (compare with the
 * TERRANE_VERSION_* this header was written for). Any thread. */
TERRANE_API const char* terrane_version(void);
TERRANE_API uint32_t terrane_version_number(void);

/* ------------------------------------------------------------------------------------------ */
/* Presets                                                                                    */

typedef struct terrane_preset terrane_preset;

/* The builtin presets: how many, and the name of one (NULL outside 0 .. count - 1). Any
 * thread. */
TERRANE_API size_t terrane_builtin_preset_count(void);
TERRANE_API const char* terrane_builtin_preset_name(size_t index);

/* A builtin preset by name ("default", "alpine", ...) or a preset JSON file by path, with
 * `override_count` "a.b.c=value" assignments applied in order (the CLI's --set; `overrides` may
 * be NULL when the count is 0). Any thread. */
TERRANE_API terrane_status terrane_preset_load(const char* name_or_path,
                                               const char* const* overrides, size_t override_count,
                                               terrane_preset** out);
/* A preset from JSON text of `length` bytes (not NUL-terminated); `source` names it in messages
 * (NULL: "json"). Overrides as terrane_preset_load. Any thread. */
TERRANE_API terrane_status terrane_preset_parse(const char* json, size_t length, const char* source,
                                                const char* const* overrides, size_t override_count,
                                                terrane_preset** out);
TERRANE_API void terrane_preset_free(terrane_preset* preset);

typedef struct terrane_preset_info {
  uint64_t seed;
  uint64_t hash;        /* of the canonical JSON: equal hashes, equal worlds */
  double cell_size_m;   /* world.cell_size_m: the world's lattice */
  int32_t size;         /* world.size: samples per side of a bake */
  double height_min_m;  /* world.height_min_m */
  double height_max_m;  /* world.height_max_m */
  double sea_level_m;   /* world.sea_level_m */
  int32_t splat_layers; /* the surface's splat layers */
  int32_t species;      /* the surface's scatter species */
  int32_t has_post;     /* nonzero: the preset has post operations (bakes only) */
} terrane_preset_info;

/* Reads a loaded preset. Any thread. */
TERRANE_API terrane_status terrane_preset_get_info(const terrane_preset* preset,
                                                   terrane_preset_info* out);
/* The preset's name, the name of splat layer `index`, of species `index` (NULL for a NULL
 * preset or an index outside the range). Valid as long as the preset. Any thread. */
TERRANE_API const char* terrane_preset_name(const terrane_preset* preset);
TERRANE_API const char* terrane_preset_layer_name(const terrane_preset* preset, size_t index);
TERRANE_API const char* terrane_preset_species_name(const terrane_preset* preset, size_t index);
/* The canonical JSON (after overrides; sorted keys, compact, not NUL-terminated) into `buffer`
 * of `capacity` bytes; *count = its length. Any thread. */
TERRANE_API terrane_status terrane_preset_json(const terrane_preset* preset, char* buffer,
                                               size_t capacity, size_t* count);

/* ------------------------------------------------------------------------------------------ */
/* Height grids: the world's pure terrain function                                            */

/* Heights [m] of the world's surface (the preset's graph without its post operations: the
 * heights the streamed chunks, the queries and the navmesh use, seamless across any split) on
 * a grid of width x height samples: sample (i, j) lies at x = x0_m + i * cell_m,
 * z = z0_m + j * cell_m and goes to out[j * width + i]. When x0_m and z0_m are whole multiples
 * of cell_m, the samples are those of the world's lattice at that spacing, bit for bit the
 * streamed chunks' vertices where they coincide. cell_m 0 means the preset's world.cell_size_m.
 * threads: 0 = all cores; the bytes never depend on it. `capacity` is out's length in floats.
 * Errors: width or height outside 1..65536, more than 2^30 samples, a cell that is not finite
 * and > 0, a grid reaching beyond the world (|x|, |z| <= 2^40 m); out below width * height:
 * TERRANE_BUFFER_TOO_SMALL with *count = width * height (count may be NULL otherwise). Any
 * thread. Cost: about 28 ns per sample on one core for `default` (docs/PERFORMANCE.md). */
TERRANE_API terrane_status terrane_heights(const terrane_preset* preset, double x0_m, double z0_m,
                                           int32_t width, int32_t height, double cell_m,
                                           int32_t threads, float* out, size_t capacity,
                                           size_t* count);
/* width * height, or 0 for sizes outside the limits. Any thread. */
TERRANE_API size_t terrane_heights_bound(int32_t width, int32_t height);

/* ------------------------------------------------------------------------------------------ */
/* Scatter: the preset's objects (trees, rocks) over a rectangle                              */

typedef struct terrane_instance {
  double x_m, z_m;         /* world position */
  float y_m;               /* height of the level-0 surface under it */
  float yaw_deg;           /* rotation about +y */
  float scale_xz, scale_y; /* scale factors */
  float normal[3];         /* up vector (the terrain normal when the species aligns) */
  int32_t species;         /* index into the preset's species (terrane_preset_species_name) */
  uint64_t id;             /* stable id: the same instance has the same id in every run */
  uint64_t state;          /* 0 as generated; a world's instance overrides set it */
} terrane_instance;

/* The instances whose position lies in [x0_m, x1_m) x [z0_m, z1_m): the ones the streamed
 * world's level-0 chunks hold there, in a fixed order; to the byte with 128-cell chunks (the
 * default: y_m and the normal come from the level-0 triangle under the instance, and other chunk
 * sizes split some cells along the other diagonal). The rectangle spans at most 65536 m per
 * side; the cost follows its area (plus the scatter's margin), so a first call to size the
 * buffer costs as much as the second. Errors as terrane_heights; TERRANE_BUFFER_TOO_SMALL with
 * *count the number of instances. Any thread. */
TERRANE_API terrane_status terrane_scatter(const terrane_preset* preset, double x0_m, double z0_m,
                                           double x1_m, double z1_m, terrane_instance* out,
                                           size_t capacity, size_t* count);

/* ------------------------------------------------------------------------------------------ */
/* Bakes: `terrane generate`                                                                  */

typedef struct terrane_bake_options {
  const char* out_dir;   /* created when missing; NULL: "out" */
  const char* formats;   /* comma list as --formats ("png16,preview", "glb", ...); NULL: default */
  const char* engine;    /* "unity", "unreal", "godot"; NULL or "": none */
  const char* erode;     /* comma list as --erode ("thermal,droplets"); NULL: none */
  int32_t size;          /* samples per side; 0: the preset's */
  int32_t width, height; /* a non-square map (both or neither); 0: none */
  double cell_m;         /* 0: the preset's */
  double origin_x_m, origin_z_m;
  int32_t has_seed; /* nonzero: use `seed` */
  uint64_t seed;
  int32_t tiles;   /* mesh tiles per side (glb / obj); 0 or 1: one */
  int32_t lod;     /* mesh level of detail (glb / obj) */
  int32_t threads; /* 0: all cores */
} terrane_bake_options;

typedef struct terrane_bake_result {
  uint32_t files;        /* files written, the sidecar included */
  uint64_t bytes;        /* their total size */
  uint32_t warnings;     /* non-fatal findings (listed in the sidecar) */
  int32_t width, height; /* the map as generated (after engine snapping) */
  double generation_s, total_s;
} terrane_bake_result;

/* Sets every field to its default (zeros and NULLs). Any thread. */
TERRANE_API void terrane_bake_options_init(terrane_bake_options* options);
/* What `terrane generate` does with the preset and these options: the map, its post operations,
 * every requested file under out_dir and the JSON sidecar, written atomically (a failed bake
 * leaves out_dir as it was). result may be NULL. Any thread (concurrent bakes must use
 * different directories). */
TERRANE_API terrane_status terrane_bake(const terrane_preset* preset,
                                        const terrane_bake_options* options,
                                        terrane_bake_result* result);

/* ------------------------------------------------------------------------------------------ */
/* Queries: exact answers on the level-0 surface, whatever is loaded                          */

typedef struct terrane_query terrane_query;

/* Queries of a preset's world (no edits). Any thread; the query is then usable from any number
 * of threads at once. */
TERRANE_API terrane_status terrane_query_create(const terrane_preset* preset, terrane_query** out);
TERRANE_API void terrane_query_free(terrane_query* query);
/* The height [m] of the level-0 triangle under (x, z). Any thread. */
TERRANE_API terrane_status terrane_query_height(const terrane_query* query, double x_m, double z_m,
                                                double* height_m);
/* Its unit normal (x, y, z; +y up). Any thread. */
TERRANE_API terrane_status terrane_query_normal(const terrane_query* query, double x_m, double z_m,
                                                float normal[3]);

typedef struct terrane_ray_hit {
  double distance_m; /* along the normalised direction */
  double x_m, y_m, z_m;
  float normal[3];
} terrane_ray_hit;
/* The first hit of origin + t * direction/|direction| with the surface, 0 <= t <= max_distance_m
 * (at most 1e6 m): *hit = 1 and *out filled on a hit, *hit = 0 otherwise (out may be NULL).
 * Any thread. */
TERRANE_API terrane_status terrane_query_raycast(const terrane_query* query, const double origin[3],
                                                 const double direction[3], double max_distance_m,
                                                 int32_t* hit, terrane_ray_hit* out);

/* ------------------------------------------------------------------------------------------ */
/* The streamed world: chunks with LOD around moving viewers                                  */

typedef struct terrane_streamer terrane_streamer;
typedef struct terrane_world terrane_world; /* see "Worlds" below */

typedef struct terrane_streamer_params {
  int32_t chunk_cells;     /* cells per chunk side, a power of two in 8..1024; default 128 */
  double view_distance_m;  /* radius of the visible disc; default 2000, at most 1e6 */
  double lod0_distance_m;  /* level-0 band; 0: automatic (default) */
  uint64_t budget_bytes;   /* resident chunk bytes; 0: automatic (default) */
  int32_t threads;         /* worker threads; 0: all cores (default) */
  int32_t surface;         /* nonzero: splat weights and scatter per chunk; default 0 */
  int32_t worker_priority; /* 0 background (default), 1 low, 2 normal */
} terrane_streamer_params;

typedef struct terrane_viewer {
  double x_m, y_m, z_m;
  double vx_m_s, vy_m_s, vz_m_s; /* velocity, for look-ahead; at most 20000 m/s */
} terrane_viewer;

typedef struct terrane_chunk_key {
  int64_t cx, cz; /* node column and row at its level */
  int32_t level;  /* 0 = finest; a level-L node spans 2^L x 2^L level-0 chunks */
} terrane_chunk_key;

typedef enum terrane_chunk_event_kind {
  TERRANE_CHUNK_READY = 0,   /* generated and resident: upload its buffers */
  TERRANE_CHUNK_EVICTED = 1, /* gone: free its buffers */
  TERRANE_CHUNK_UPDATED = 2  /* regenerated after an edit: upload them again */
} terrane_chunk_event_kind;

typedef struct terrane_chunk_event {
  int32_t kind; /* terrane_chunk_event_kind */
  terrane_chunk_key key;
} terrane_chunk_event;

typedef struct terrane_visible_chunk {
  terrane_chunk_key key;
  int32_t stitch[4]; /* per edge (-x, +x, -z, +z): how many levels coarser the neighbour is */
} terrane_visible_chunk;

typedef struct terrane_chunk_info {
  uint32_t vertices;  /* (N+1)^2 */
  uint32_t instances; /* scatter instances (level 0 with surface data) */
  double origin_x_m;  /* world position of vertex 0 (positions are relative to it) */
  double origin_z_m;
  float height_min_m, height_max_m;
  uint64_t content_hash; /* equal hashes, equal bytes (the C++ ChunkData::content_hash) */
} terrane_chunk_info;

typedef struct terrane_streamer_stats {
  uint64_t desired, queued, running, resident_chunks, resident_bytes, budget_bytes, visible, holes,
      generated, evicted, updated;
  int32_t view_complete; /* nonzero: every wanted chunk is resident and visible */
} terrane_streamer_stats;

/* Sets the defaults above. Any thread. */
TERRANE_API void terrane_streamer_params_init(terrane_streamer_params* params);
/* Starts the streamer and its worker threads. Any thread; the streamer is then used from its
 * owner thread. */
TERRANE_API terrane_status terrane_streamer_create(const terrane_preset* preset,
                                                   const terrane_streamer_params* params,
                                                   terrane_streamer** out);
/* Cancels and joins the workers. Owner thread. */
TERRANE_API void terrane_streamer_free(terrane_streamer* streamer);
/* The message of the last failed call on this streamer ("" when none). Owner thread. */
TERRANE_API const char* terrane_streamer_last_error(const terrane_streamer* streamer);

/* Once a frame, on the owner thread: set_viewers, update, poll; then read events and visible.
 * None of them waits for a worker. poll takes at most max_chunks finished chunks (0: no limit)
 * within max_ms milliseconds; *delivered (may be NULL) says how many. */
TERRANE_API terrane_status terrane_streamer_set_viewers(terrane_streamer* streamer,
                                                        const terrane_viewer* viewers,
                                                        size_t count);
TERRANE_API terrane_status terrane_streamer_update(terrane_streamer* streamer);
TERRANE_API terrane_status terrane_streamer_poll(terrane_streamer* streamer, uint32_t max_chunks,
                                                 double max_ms, size_t* delivered);
/* The events since the start of the last update, in order. Owner thread. */
TERRANE_API terrane_status terrane_streamer_events(const terrane_streamer* streamer,
                                                   terrane_chunk_event* out, size_t capacity,
                                                   size_t* count);
/* The visible set after the last update or poll: disjoint chunks covering the viewers' discs
 * with their stitch masks (crack-free). Owner thread. */
TERRANE_API terrane_status terrane_streamer_visible(const terrane_streamer* streamer,
                                                    terrane_visible_chunk* out, size_t capacity,
                                                    size_t* count);
TERRANE_API terrane_status terrane_streamer_get_stats(const terrane_streamer* streamer,
                                                      terrane_streamer_stats* out);

/* A resident chunk (of a ready or updated event not yet evicted, or of the visible set);
 * TERRANE_INVALID_ARGUMENT when it is not resident. Owner thread. */
TERRANE_API terrane_status terrane_streamer_chunk_info(const terrane_streamer* streamer,
                                                       terrane_chunk_key key,
                                                       terrane_chunk_info* out);
/* Its vertex arrays, each for `vertex_capacity` vertices (any pointer may be NULL to skip that
 * array; all four NULL: only *count is written, TERRANE_OK): positions and normals (x, y, z),
 * uvs (u, v: world x, z wrapped at 4096 m), morph_y (the parent level's height at the vertex,
 * for geomorphing). *count = vertices. Owner thread. */
TERRANE_API terrane_status terrane_streamer_chunk_mesh(const terrane_streamer* streamer,
                                                       terrane_chunk_key key, float* positions,
                                                       float* normals, float* uvs, float* morph_y,
                                                       size_t vertex_capacity, size_t* count);
/* The triangle list (counter-clockwise seen from +y) of a chunk drawn with this stitch mask,
 * into `capacity` uint32: the same for every chunk of the streamer, so a renderer shares one
 * index buffer per mask. Owner thread. */
TERRANE_API terrane_status terrane_streamer_indices(const terrane_streamer* streamer,
                                                    const int32_t stitch[4], uint32_t* out,
                                                    size_t capacity, size_t* count);
/* A level-0 chunk's scatter instances (with surface data). Owner thread. */
TERRANE_API terrane_status terrane_streamer_chunk_instances(const terrane_streamer* streamer,
                                                            terrane_chunk_key key,
                                                            terrane_instance* out, size_t capacity,
                                                            size_t* count);
/* Streams `world`'s edits (heights, paint, scatter instances; its preset must be the streamer's
 * world: the same cell size and splat layers): every later chunk is made with them, and the
 * resident chunks that the strokes applied since this world's previous set_world touched (all
 * of them on a world's first call, or after another streamer) are regenerated on the workers and
 * swapped in together by a later poll (TERRANE_CHUNK_UPDATED events), so an edit never shows
 * half done. Call it after terrane_world_apply / undo to see strokes as they are made. Owner
 * thread of both. */
TERRANE_API terrane_status terrane_streamer_set_world(terrane_streamer* streamer,
                                                      terrane_world* world);
/* Queries with the streamer's current edits (none unless a world's); free with
 * terrane_query_free. Owner thread (the query is then usable from any thread). */
TERRANE_API terrane_status terrane_streamer_query(const terrane_streamer* streamer,
                                                  terrane_query** out);

/* ------------------------------------------------------------------------------------------ */
/* Navigation: a walking path between two points                                              */

typedef struct terrane_nav_agent {
  double radius_m;  /* default 0.5 */
  double height_m;  /* default 2 */
  double climb_m;   /* default 0.6 */
  double slope_deg; /* default 40, in (0, 90) */
  double drop_m;    /* one-way drops it may jump down; default 3 */
} terrane_nav_agent;

typedef enum terrane_path_status {
  TERRANE_PATH_OK = 0,
  TERRANE_PATH_PARTIAL = 1,   /* the target is unreachable: the path ends nearest to it */
  TERRANE_PATH_NO_START = 2,  /* no walkable ground near the start */
  TERRANE_PATH_NO_TARGET = 3, /* no walkable ground near the target */
  TERRANE_PATH_FAILED = 4     /* other (the search ran out of nodes, ...) */
} terrane_path_status;

typedef struct terrane_path_result {
  int32_t status; /* terrane_path_status */
  double length_m;
  uint32_t polygons;
} terrane_path_result;

/* Sets the defaults above. Any thread. */
TERRANE_API void terrane_nav_agent_init(terrane_nav_agent* agent);
/* The path `terrane path` finds: navmesh tiles over the two points' box plus margin_m (0: 64 m,
 * as the CLI) are built (threads: 0 = all cores), then the straight path is written as x, y, z
 * triples into `points` (capacity in points; *count = points in the path; a call with too small
 * a buffer does the whole work again: give room for 256 points). An unreachable target is a
 * status in *result, not an error. agent NULL: the defaults. Any thread. */
TERRANE_API terrane_status terrane_nav_path(const terrane_preset* preset,
                                            const terrane_nav_agent* agent, double from_x_m,
                                            double from_z_m, double to_x_m, double to_z_m,
                                            double margin_m, int32_t threads, double* points,
                                            size_t capacity, size_t* count,
                                            terrane_path_result* result);

/* ------------------------------------------------------------------------------------------ */
/* Worlds: a preset + seed + edits in a file (`terrane world`, terrane-view)                  */

/* Creates a world file for the preset with no edits (overwrite nonzero: replace an existing
 * file) and opens it for editing. Any thread; the world is then used from its owner thread. */
TERRANE_API terrane_status terrane_world_create(const char* path, const terrane_preset* preset,
                                                int32_t overwrite, terrane_world** out);
/* Opens a world file (read_only nonzero: never written; a game loading a save). Refuses a world
 * whose generator differs from this library's, or of a newer schema. Any thread. */
TERRANE_API terrane_status terrane_world_open(const char* path, int32_t read_only,
                                              terrane_world** out);
/* Closes it; edits not committed are lost. Owner thread. */
TERRANE_API void terrane_world_free(terrane_world* world);
/* The message of the last failed call on this world ("" when none). Owner thread. */
TERRANE_API const char* terrane_world_last_error(const terrane_world* world);
/* The world's preset (with its recorded seed); free it with terrane_preset_free. Owner
 * thread. */
TERRANE_API terrane_status terrane_world_preset(const terrane_world* world, terrane_preset** out);

typedef enum terrane_brush_kind {
  /* height brushes at (x, z) */
  TERRANE_BRUSH_RAISE = 0,   /* + strength metres (times the falloff weight) */
  TERRANE_BRUSH_LOWER = 1,   /* - strength metres */
  TERRANE_BRUSH_SMOOTH = 2,  /* towards the 3 x 3 mean by strength (0..1) */
  TERRANE_BRUSH_FLATTEN = 3, /* towards target_m by strength (0..1) */
  TERRANE_BRUSH_NOISE = 4,   /* + strength metres of noise */
  /* block brushes: a sphere at (x, y, z) */
  TERRANE_BRUSH_DIG = 10,     /* blocks become air */
  TERRANE_BRUSH_FILL = 11,    /* blocks become `block` */
  TERRANE_BRUSH_RESTORE = 12, /* blocks are the generated ones again */
  /* splat paint at (x, z) */
  TERRANE_BRUSH_PAINT = 20,   /* towards splat layer `layer` by strength (0..1) */
  TERRANE_BRUSH_UNPAINT = 21, /* back towards the generated splat by strength */
  /* scatter instances at (x, z) */
  TERRANE_BRUSH_FELL = 30,  /* removes the instances within the radius (back after regrow_s) */
  TERRANE_BRUSH_PLANT = 31, /* adds one of `species` at the centre, turned by yaw_deg */
  TERRANE_BRUSH_REGROW = 32 /* drops the overrides within the radius: the generated ones again */
} terrane_brush_kind;

typedef struct terrane_brush {
  int32_t kind;         /* terrane_brush_kind */
  double x_m, y_m, z_m; /* centre; y only for block brushes */
  double radius_m;      /* height and paint: (0, 1e4]; blocks: (0, 64 blocks] */
  double strength;      /* see the kinds */
  double falloff_start; /* weight 1 within falloff_start * radius, smooth to 0 at the radius */
  double target_m;      /* flatten's height */
  const char* block;    /* fill: a block name of the preset's voxel palette */
  const char* layer;    /* paint: a splat layer name of the preset */
  const char* species;  /* plant: a species name of the preset */
  double regrow_s;      /* fell: seconds until the instances come back; 0: never */
  double yaw_deg;       /* plant: rotation about +y */
} terrane_brush;

/* Sets the brush's defaults for `kind` (radius 10 m, or 3 m for blocks; strength 1; falloff
 * 0.5; target 0; no block, layer or species; regrow_s and yaw_deg 0). Any thread. */
TERRANE_API void terrane_brush_init(terrane_brush* brush, int32_t kind);
/* Applies a stroke to the world's edits (not yet to the file): *changed (may be NULL) = 1 when
 * it changed anything. From now on terrane_world_heights and terrane_world_query see it (and a
 * streamer after terrane_streamer_set_world). A read-only world takes strokes too (a preview)
 * but cannot commit them. Owner thread. */
TERRANE_API terrane_status terrane_world_apply(terrane_world* world, const terrane_brush* brush,
                                               int32_t* changed);
/* Takes the newest stroke back (any layer; a stroke that changed nothing left nothing to take
 * back); *undone = 0 when there was none. Owner thread. */
TERRANE_API terrane_status terrane_world_undo(terrane_world* world, int32_t* undone);
/* Writes every layer's edits in one transaction with a one-line description (NULL: "C API");
 * *seq (may be NULL) = the commit's number. A read-only world is TERRANE_INVALID_ARGUMENT.
 * Owner thread. */
TERRANE_API terrane_status terrane_world_commit(terrane_world* world, const char* description,
                                                uint64_t* seq);

typedef struct terrane_world_info {
  uint64_t seed;
  uint64_t preset_hash;
  uint64_t commits;
  double cell_size_m;
  uint64_t height_tiles;       /* edited chunks of the height layer (as committed) */
  uint64_t block_overrides;    /* overridden blocks (as committed) */
  uint64_t painted_vertices;   /* (as committed) */
  uint64_t instance_overrides; /* felled, planted, ... instances (as committed) */
  uint32_t pending_strokes;    /* strokes applied since the last commit or open */
} terrane_world_info;
TERRANE_API terrane_status terrane_world_get_info(const terrane_world* world,
                                                  terrane_world_info* out);
/* Heights of the edited world (committed or not) on a grid, as terrane_heights; with height
 * edits the grid must lie on the world's lattice (cell_m a whole multiple of the world's cell,
 * x0_m and z0_m multiples of it). Owner thread. */
TERRANE_API terrane_status terrane_world_heights(const terrane_world* world, double x0_m,
                                                 double z0_m, int32_t width, int32_t height,
                                                 double cell_m, int32_t threads, float* out,
                                                 size_t capacity, size_t* count);
/* Queries of the edited world as it is now. Owner thread (the query is then usable from any
 * thread and keeps that state). */
TERRANE_API terrane_status terrane_world_query(const terrane_world* world, terrane_query** out);

#ifdef __cplusplus
}
#endif

#endif /* TERRANE_TERRANE_H */
