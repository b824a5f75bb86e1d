// World files (store.hpp): an SQLite database in WAL mode with the preset, the generator's
// fingerprint, one zstd blob per edited chunk and a commit log. The crash safety is SQLite's
// atomic commit (https://www.sqlite.org/atomiccommit.html, https://www.sqlite.org/wal.html):
// every commit is one write transaction.
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <system_error>

#include "store/checkpointer.hpp"
#include "store/edit_blob.hpp"
#include "store/sqlite_db.hpp"
#include "terrane/io.hpp"
#include "terrane/store.hpp"

namespace terrane {

using store_detail::Db;
using store_detail::kBlockLayer;
using store_detail::kHeightLayer;
using store_detail::kInstanceLayer;
using store_detail::kPaintLayer;
using store_detail::Stmt;

namespace {

// "TRNW" in PRAGMA application_id: a terrane world, not some other SQLite file.
constexpr std::int32_t kApplicationId = 0x54524E57;

constexpr const char* kSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE chunks(layer INTEGER NOT NULL, cx INTEGER NOT NULL, cz INTEGER NOT NULL,
                    blob BLOB NOT NULL, PRIMARY KEY(layer, cx, cz)) WITHOUT ROWID;
CREATE TABLE log(seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, description TEXT NOT NULL);
)sql";

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

std::string real_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const char* synchronous_pragma(Durability d) {
  return d == Durability::full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL";
}

std::int64_t pragma_int(const Db& db, const char* sql) {
  Stmt s(db, sql);
  return s.step("reading the header") ? s.int64(0) : 0;
}

void remove_quietly(const std::filesystem::path& p) {
  std::error_code ec;
  std::filesystem::remove(p, ec);
}

std::filesystem::path with_suffix(const std::filesystem::path& p, const char* suffix) {
  return std::filesystem::path(p.string() + suffix);
}

// A block layer's chunks grouped by chunk column (cx, cz), rows ascending: the map's order.
using BlockColumnKey = std::pair<std::int64_t, std::int64_t>;
using BlockColumn = std::vector<std::pair<std::int64_t, const BlockEditSnapshot::Chunk*>>;
std::map<BlockColumnKey, BlockColumn> block_columns(const BlockEditSnapshot& s) {
  std::map<BlockColumnKey, BlockColumn> out;
  for (const auto& [key, chunk] : s.chunks())
    out[{key.cx, key.cz}].push_back({key.cy, chunk.get()});
  return out;
}

bool same_column(const BlockColumn& a, const BlockColumn& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].first != b[k].first) return false;
    if (a[k].second != b[k].second && *a[k].second != *b[k].second) return false;
  }
  return true;
}

// A row of the chunks table.
struct RowKey {
  std::int64_t layer = 0, cx = 0, cz = 0;
  friend auto operator<=>(const RowKey&, const RowKey&) = default;
};

}  // namespace

struct WorldStore::Impl {
  std::unique_ptr<Db> db;
  bool read_only = false;
  bool record_fingerprint = false;  // the next commit records this terrane's fingerprint
  std::uint64_t fingerprint_now = 0;
  Preset preset;
  WorldInfo info;
  std::shared_ptr<const HeightEditSnapshot> committed;
  std::shared_ptr<const BlockEditSnapshot> committed_blocks;
  std::shared_ptr<const InstanceEditSnapshot> committed_instances;
  std::shared_ptr<const SplatPaintSnapshot> committed_paint;
  // The size of every stored blob, by row.
  std::map<RowKey, std::size_t> blob_size;

  void count_blob(const RowKey& key, std::size_t bytes) {
    blob_size[key] = bytes;
    info.blob_bytes += bytes;
    info.layer_bytes[std::size_t(key.layer - 1)] += bytes;
  }
  std::unique_ptr<Stmt> upsert, erase, add_log, set_meta;
  // Declared after db: stopped (and its connection closed) before db closes, which then
  // checkpoints what is left and removes the WAL.
  std::unique_ptr<store_detail::Checkpointer> checkpointer;

  // After each commit, with the WAL's length in pages: past SQLite's usual threshold (1000
  // pages) the checkpointer takes over. The WAL starts again from its beginning only when a
  // write finds it wholly copied into the file, which a background checkpoint never sees while
  // commits follow each other closely (each adds frames before it finishes). So past twice the
  // threshold the commit checkpoints itself, as SQLite's own does: by then the checkpointer has
  // copied most of it.
  static int wal_hook(void* self, sqlite3* db, const char*, int pages) {
    if (pages >= 2000) {
      // PASSIVE: busy (the checkpointer is at it) only means the next commit tries again.
      sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    } else if (pages >= 1000) {
      static_cast<Impl*>(self)->checkpointer->request();
    }
    return SQLITE_OK;
  }

  void refresh_file_bytes() {
    info.file_bytes = std::size_t(pragma_int(*db, "PRAGMA page_count")) *
                      std::size_t(pragma_int(*db, "PRAGMA page_size"));
  }
};

WorldStore::WorldStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WorldStore::WorldStore(WorldStore&&) noexcept = default;
WorldStore& WorldStore::operator=(WorldStore&&) noexcept = default;
WorldStore::~WorldStore() = default;

const Preset& WorldStore::preset() const {
  return impl_->preset;
}
const WorldInfo& WorldStore::info() const {
  return impl_->info;
}
const HeightEditSnapshot& WorldStore::height_edits() const {
  return *impl_->committed;
}
const BlockEditSnapshot& WorldStore::block_edits() const {
  return *impl_->committed_blocks;
}
const InstanceEditSnapshot& WorldStore::instance_edits() const {
  return *impl_->committed_instances;
}
std::shared_ptr<const InstanceEditSnapshot> WorldStore::instance_snapshot() const {
  return impl_->committed_instances;
}
std::shared_ptr<const SplatPaintSnapshot> WorldStore::paint() const {
  return impl_->committed_paint;
}

bool is_world_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[16] = {};
  if (!in.read(head, sizeof head)) return false;
  return std::string_view(head, sizeof head) == std::string_view("SQLite format 3\0", 16);
}

WorldStore WorldStore::create(const std::filesystem::path& file, const Preset& preset,
                              const WorldCreateOptions& options) {
  const std::string name = file.string();
  std::error_code ec;
  if (std::filesystem::exists(file, ec) && !options.overwrite) {
    throw Error(ErrorCategory::io,
                "world " + name + ": the file exists (overwrite it deliberately, or pick another)");
  }
  const std::filesystem::path dir =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error(ErrorCategory::io,
                "world " + name + ": the directory " + dir.string() + " does not exist");
  }
  if (options.tile_cells < 8 || options.tile_cells > 1024) {
    throw Error(ErrorCategory::invalid_argument,
                "world " + name + ": tile_cells = " + std::to_string(options.tile_cells) +
                    " is outside the allowed range 8..1024");
  }
  const std::uint64_t fingerprint = generator_fingerprint(preset);
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path tmp = with_suffix(
      file, (".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)).c_str());
  try {
    {
      Db db(tmp.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      // 16 KiB pages: a chunk's blob (5-40 KiB) takes one to three pages instead of up to ten,
      // and a commit makes as many fewer writes.
      db.exec("PRAGMA page_size=16384", "creating the file");
      db.exec("PRAGMA journal_mode=WAL", "creating the file");
      db.exec(("PRAGMA application_id=" + std::to_string(kApplicationId)).c_str(),
              "creating the file");
      // Version 1 until the first commit of block (2) or instance (3) overrides or paint (4).
      db.exec("PRAGMA user_version=1", "creating the file");
      db.exec("BEGIN", "creating the file");
      db.exec(kSchema, "creating the file");
      Stmt meta(db, "INSERT INTO meta(key, value) VALUES(?, ?)");
      const std::pair<const char*, std::string> rows[] = {
          {"format", "terrane world"},
          {"created_by", terrane_version()},
          {"written_by", terrane_version()},
          {"fingerprint", hex64(fingerprint)},
          {"preset_name", preset.name},
          {"preset_json", preset.canonical_json},
          {"preset_hash", hex64(preset.hash)},
          {"seed", std::to_string(preset.seed)},
          {"cell_size_m", real_text(preset.world.cell_size_m)},
          {"tile_cells", std::to_string(options.tile_cells)},
          {"commits", "0"},
          {"created", std::to_string(std::int64_t(std::time(nullptr)))},
      };
      for (const auto& [key, value] : rows) {
        meta.bind(1, std::string_view(key));
        meta.bind(2, std::string_view(value));
        meta.step("creating the file");
        meta.reset();
      }
      db.exec("COMMIT", "creating the file");
    }
    // A file of the same name may leave its WAL behind; it must not meet the new database.
    remove_quietly(with_suffix(file, "-wal"));
    remove_quietly(with_suffix(file, "-shm"));
    std::filesystem::rename(tmp, file);
  } catch (const std::filesystem::filesystem_error& e) {
    remove_quietly(tmp);
    throw Error(ErrorCategory::io, "world " + name + ": cannot create: " + e.code().message());
  } catch (...) {
    remove_quietly(tmp);
    remove_quietly(with_suffix(tmp, "-wal"));
    remove_quietly(with_suffix(tmp, "-shm"));
    throw;
  }
  WorldOpenOptions open_options;
  open_options.durability = options.durability;
  return open(file, open_options);
}

WorldStore WorldStore::open(const std::filesystem::path& file, const WorldOpenOptions& options) {
  const std::string name = file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw Error(ErrorCategory::io,
                "world " + name + ": " +
                    (std::filesystem::exists(file, ec) ? "not a regular file" : "no such file"));
  }
  auto impl = std::make_unique<Impl>();
  impl->read_only = options.read_only;
  impl->db =
      std::make_unique<Db>(name, options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE);
  const Db& db = *impl->db;
  // The header first: SQLite reads the file lazily, so this is where "not a database" shows.
  const std::int64_t app = pragma_int(db, "PRAGMA application_id");
  const std::int64_t schema = pragma_int(db, "PRAGMA user_version");
  if (app != kApplicationId) {
    throw Error(ErrorCategory::io, "world " + name +
                                       ": not a terrane world file (an SQLite database of "
                                       "another application)");
  }
  if (schema > kWorldSchemaVersion) {
    throw Error(ErrorCategory::invalid_argument,
                "world " + name + " has schema version " + std::to_string(schema) +
                    "; this terrane (" + terrane_version() + ") reads versions 1 to " +
                    std::to_string(kWorldSchemaVersion) + ": open it with a newer terrane");
  }
  if (schema < 1) {
    throw Error(ErrorCategory::io, "world " + name + ": schema version " + std::to_string(schema) +
                                       " (the header is damaged)");
  }
  if (!options.read_only) db.exec(synchronous_pragma(options.durability), "opening");

  std::map<std::string, std::string> meta;
  {
    Stmt s(db, "SELECT key, value FROM meta");
    while (s.step("reading the world's settings")) meta[s.text(0)] = s.text(1);
  }
  auto need = [&](const char* key) -> const std::string& {
    const auto it = meta.find(key);
    if (it == meta.end()) {
      throw Error(ErrorCategory::io,
                  "world " + name + ": the setting '" + key + "' is missing (the file is damaged)");
    }
    return it->second;
  };
  auto number = [&](const char* key) {
    const std::string& text = need(key);
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') {
      throw Error(ErrorCategory::io, "world " + name + ": the setting '" + key + "' = '" + text +
                                         "' is not a number (the file is damaged)");
    }
    return v;
  };
  auto hex = [&](const char* key) {
    const std::string& text = need(key);
    char* end = nullptr;
    const std::uint64_t v = std::strtoull(text.c_str(), &end, 16);
    if (text.size() != 16 || *end != '\0') {
      throw Error(ErrorCategory::io, "world " + name + ": the setting '" + key + "' = '" + text +
                                         "' is not a 64-bit hex number (the file is damaged)");
    }
    return v;
  };

  WorldInfo& info = impl->info;
  info.path = name;
  info.schema_version = int(schema);
  info.created_by = need("created_by");
  info.written_by = need("written_by");
  info.fingerprint = hex("fingerprint");
  info.preset_name = need("preset_name");
  info.preset_hash = hex("preset_hash");
  info.seed = std::strtoull(need("seed").c_str(), nullptr, 10);
  info.cell_size_m = number("cell_size_m");
  info.tile_cells = int(number("tile_cells"));
  info.commits = std::uint64_t(number("commits"));

  try {
    impl->preset = parse_preset(need("preset_json"), "world " + name);
  } catch (const Error& e) {
    throw Error(ErrorCategory::io, "world " + name + ": its preset does not load: " + e.what());
  }
  impl->preset.name = info.preset_name;
  if (impl->preset.world.cell_size_m != info.cell_size_m) {
    throw Error(ErrorCategory::io, "world " + name + ": cell_size_m " +
                                       real_text(info.cell_size_m) + " is not its preset's (" +
                                       real_text(impl->preset.world.cell_size_m) +
                                       "): the file is damaged");
  }
  impl->fingerprint_now = generator_fingerprint(impl->preset);
  if (impl->fingerprint_now != info.fingerprint) {
    if (!options.accept_generator_change) {
      throw Error(ErrorCategory::invalid_argument,
                  "world " + name + " was made by terrane " + info.written_by +
                      " (generator fingerprint " + hex64(info.fingerprint) + "); terrane " +
                      terrane_version() + " gives its preset '" + info.preset_name +
                      "' the fingerprint " + hex64(impl->fingerprint_now) +
                      ": the base terrain differs, so the edits would not sit where they were "
                      "made. Open it with terrane " +
                      info.written_by +
                      ", or accept the new base deliberately (accept_generator_change, "
                      "--accept-generator-change)");
    }
    info.generator_changed = true;
    impl->record_fingerprint = true;
  }

  // The height layer: every blob read, then decoded on all cores.
  struct Raw {
    HeightEditSnapshot::TileKey key;
    std::vector<std::uint8_t> blob;
  };
  std::vector<Raw> raws;
  {
    Stmt s(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    s.bind(1, kHeightLayer);
    while (s.step("reading the edits")) {
      const auto b = s.blob(2);
      raws.push_back({{s.int64(0), s.int64(1)}, std::vector<std::uint8_t>(b.begin(), b.end())});
    }
  }
  std::vector<std::shared_ptr<const HeightEditSnapshot::Tile>> tiles(raws.size());
  parallel_for(ExecContext{}, std::int64_t(raws.size()), 16, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t k = b; k < e; ++k) {
      const Raw& r = raws[std::size_t(k)];
      tiles[std::size_t(k)] =
          std::make_shared<const HeightEditSnapshot::Tile>(store_detail::decode_height_tile(
              r.blob, info.tile_cells,
              "world " + name + ": chunk (" + std::to_string(r.key.first) + ", " +
                  std::to_string(r.key.second) + ")"));
    }
  });
  HeightEditSnapshot::TileMap map;
  for (std::size_t k = 0; k < raws.size(); ++k) {
    map.emplace_hint(map.end(), raws[k].key, std::move(tiles[k]));
    impl->count_blob({kHeightLayer, raws[k].key.first, raws[k].key.second}, raws[k].blob.size());
  }
  try {
    impl->committed = std::make_shared<const HeightEditSnapshot>(info.cell_size_m, info.tile_cells,
                                                                 std::move(map));
  } catch (const Error& e) {
    throw Error(ErrorCategory::io, "world " + name + ": " + e.what() + " (the file is damaged)");
  }
  info.height_tiles = impl->committed->tile_count();
  info.delta_lo_m = impl->committed->delta_lo();
  info.delta_hi_m = impl->committed->delta_hi();

  // The block layer (schema 2): one blob per chunk column.
  const VoxelParams& voxel = impl->preset.voxel;
  BlockEditSnapshot::ChunkMap block_map;
  if (schema >= 2) {
    Stmt s(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    s.bind(1, kBlockLayer);
    while (s.step("reading the block overrides")) {
      const std::int64_t cx = s.int64(0), cz = s.int64(1);
      const auto blob = s.blob(2);
      auto chunks = store_detail::decode_block_column(blob, voxel.chunk_size,
                                                      "world " + name + ": block column (" +
                                                          std::to_string(cx) + ", " +
                                                          std::to_string(cz) + ")");
      for (auto& [cy, values] : chunks) {
        block_map.emplace(BlockEditKey{cx, cy, cz},
                          std::make_shared<const BlockEditSnapshot::Chunk>(std::move(values)));
      }
      impl->count_blob({kBlockLayer, cx, cz}, blob.size());
    }
  }
  try {
    impl->committed_blocks = std::make_shared<const BlockEditSnapshot>(
        voxel.block_size_m, voxel.chunk_size, int(voxel.palette.types.size()),
        std::move(block_map));
  } catch (const Error& e) {
    throw Error(ErrorCategory::io, "world " + name + ": " + e.what() + " (the file is damaged)");
  }
  info.block_chunks = impl->committed_blocks->chunk_count();
  info.block_overrides = impl->committed_blocks->override_count();

  // The instance layer (schema 3): one blob per instance chunk, of the world's chunk side.
  const double instance_side = double(info.tile_cells) * info.cell_size_m;
  InstanceEditSnapshot::ChunkMap instance_map;
  if (schema >= 3) {
    Stmt s(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    s.bind(1, kInstanceLayer);
    while (s.step("reading the instance overrides")) {
      const InstanceEditKey key{s.int64(0), s.int64(1)};
      const auto blob = s.blob(2);
      instance_map.emplace(
          key,
          std::make_shared<const InstanceEditSnapshot::Chunk>(store_detail::decode_instance_chunk(
              blob, instance_side,
              "world " + name + ": instance chunk (" + std::to_string(key.cx) + ", " +
                  std::to_string(key.cz) + ")")));
      impl->count_blob({kInstanceLayer, key.cx, key.cz}, blob.size());
    }
  }
  try {
    impl->committed_instances =
        std::make_shared<const InstanceEditSnapshot>(instance_side, std::move(instance_map));
  } catch (const Error& e) {
    throw Error(ErrorCategory::io, "world " + name + ": " + e.what() + " (the file is damaged)");
  }
  info.instance_chunks = impl->committed_instances->chunks().size();
  info.instance_overrides = impl->committed_instances->override_count();

  // The paint layer (schema 4): one blob per tile of the height layer's side.
  const int paint_layers = int(impl->preset.surface.layers.size());
  SplatPaintSnapshot::TileMap paint_map;
  if (schema >= 4) {
    Stmt s(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    s.bind(1, kPaintLayer);
    while (s.step("reading the splat paint")) {
      const SplatPaintSnapshot::TileKey key{s.int64(0), s.int64(1)};
      const auto blob = s.blob(2);
      paint_map.emplace(
          key, std::make_shared<const SplatPaintSnapshot::Tile>(store_detail::decode_paint_tile(
                   blob, info.tile_cells, paint_layers,
                   "world " + name + ": paint tile (" + std::to_string(key.first) + ", " +
                       std::to_string(key.second) + ")")));
      impl->count_blob({kPaintLayer, key.first, key.second}, blob.size());
    }
  }
  try {
    impl->committed_paint = std::make_shared<const SplatPaintSnapshot>(
        info.cell_size_m, info.tile_cells, paint_layers, std::move(paint_map));
  } catch (const Error& e) {
    throw Error(ErrorCategory::io, "world " + name + ": " + e.what() + " (the file is damaged)");
  }
  info.paint_tiles = impl->committed_paint->tile_count();
  info.painted_vertices = impl->committed_paint->painted_vertices();
  impl->refresh_file_bytes();

  if (!options.read_only) {
    impl->upsert =
        std::make_unique<Stmt>(db,
                               "INSERT INTO chunks(layer, cx, cz, blob) VALUES(?, ?, ?, ?) "
                               "ON CONFLICT(layer, cx, cz) DO UPDATE SET blob = excluded.blob");
    impl->erase =
        std::make_unique<Stmt>(db, "DELETE FROM chunks WHERE layer = ? AND cx = ? AND cz = ?");
    impl->add_log =
        std::make_unique<Stmt>(db, "INSERT INTO log(seq, time, description) VALUES(?, ?, ?)");
    impl->set_meta = std::make_unique<Stmt>(db, "UPDATE meta SET value = ? WHERE key = ?");
    impl->checkpointer = std::make_unique<store_detail::Checkpointer>(name);
    // Replaces SQLite's automatic checkpoint inside the commit.
    sqlite3_wal_hook(db.get(), &Impl::wal_hook, impl.get());
  }
  return WorldStore(std::move(impl));
}

WorldCommit WorldStore::commit(const HeightEditSnapshot& edits, std::string_view description) {
  return commit(std::make_shared<const HeightEditSnapshot>(edits), description);
}

WorldCommit WorldStore::commit(std::shared_ptr<const HeightEditSnapshot> shared,
                               std::string_view description) {
  if (!shared) {
    throw Error(ErrorCategory::invalid_argument, "world " + impl_->info.path + ": no snapshot");
  }
  return commit(WorldEdits{std::move(shared), nullptr}, description);
}

WorldCommit WorldStore::commit(const WorldEdits& layers, std::string_view description) {
  Impl& m = *impl_;
  const std::string& name = m.info.path;
  if (m.read_only) {
    throw Error(ErrorCategory::io, "world " + name + ": opened read-only, nothing is written");
  }
  std::shared_ptr<const HeightEditSnapshot> shared = layers.heights ? layers.heights : m.committed;
  std::shared_ptr<const BlockEditSnapshot> shared_blocks =
      layers.blocks ? layers.blocks : m.committed_blocks;
  std::shared_ptr<const InstanceEditSnapshot> shared_instances =
      layers.instances ? layers.instances : m.committed_instances;
  const InstanceEditSnapshot& instances = *shared_instances;
  if (instances.chunk_size_m() != m.committed_instances->chunk_size_m()) {
    throw Error(ErrorCategory::invalid_argument,
                "world " + name + ": instance overrides in chunks of " +
                    real_text(instances.chunk_size_m()) + " m; the world's are " +
                    real_text(m.committed_instances->chunk_size_m()) + " m (tile_cells x cell)");
  }
  const HeightEditSnapshot& edits = *shared;
  const BlockEditSnapshot& blocks = *shared_blocks;
  const BlockEditSnapshot& world_blocks = *m.committed_blocks;
  if (blocks.block_size_m() != world_blocks.block_size_m() ||
      blocks.chunk_size() != world_blocks.chunk_size() ||
      blocks.block_types() != world_blocks.block_types()) {
    throw Error(ErrorCategory::invalid_argument,
                "world " + name + ": block overrides of " + real_text(blocks.block_size_m()) +
                    " m blocks, chunks of " + std::to_string(blocks.chunk_size()) + " and " +
                    std::to_string(blocks.block_types()) + " block types; the world's are " +
                    real_text(world_blocks.block_size_m()) + " m, " +
                    std::to_string(world_blocks.chunk_size()) + " and " +
                    std::to_string(world_blocks.block_types()));
  }
  if (edits.cell_size_m() != m.info.cell_size_m || edits.tile_cells() != m.info.tile_cells) {
    throw Error(ErrorCategory::invalid_argument,
                "world " + name + ": height edits of cell " + real_text(edits.cell_size_m()) +
                    " m and tiles of " + std::to_string(edits.tile_cells()) +
                    " vertices, the world's are " + real_text(m.info.cell_size_m) + " m and " +
                    std::to_string(m.info.tile_cells));
  }
  std::shared_ptr<const SplatPaintSnapshot> shared_paint =
      layers.paint ? layers.paint : m.committed_paint;
  const SplatPaintSnapshot& paint = *shared_paint;
  if (paint.cell_size_m() != m.info.cell_size_m || paint.tile_cells() != m.info.tile_cells ||
      paint.layers() != m.committed_paint->layers()) {
    throw Error(ErrorCategory::invalid_argument,
                "world " + name + ": splat paint of cell " + real_text(paint.cell_size_m()) +
                    " m, tiles of " + std::to_string(paint.tile_cells()) + " vertices and " +
                    std::to_string(paint.layers()) + " layers; the world's are " +
                    real_text(m.info.cell_size_m) + " m, " + std::to_string(m.info.tile_cells) +
                    " and " + std::to_string(m.committed_paint->layers()));
  }

  // The rows to write (with the function that makes each blob) and the rows to delete. A chunk
  // object shared with the newest commit is unchanged (copy-on-write), so a world of many edited
  // chunks costs a pointer compare per chunk.
  struct Write {
    RowKey key;
    std::function<std::vector<std::uint8_t>()> encode;
  };
  std::vector<Write> writes;
  std::vector<RowKey> gone;
  // One layer's changed and vanished chunks, in one walk over both sorted maps.
  const auto diff = [&](std::int64_t layer, const auto& before, const auto& after,
                        const auto& key_xz, const auto& encode) {
    if (&before == &after) return;
    const auto row = [&](const auto& key) {
      const auto [x, z] = key_xz(key);
      return RowKey{layer, x, z};
    };
    auto old = before.begin();
    for (auto now = after.begin(); now != after.end(); ++now) {
      for (; old != before.end() && old->first < now->first; ++old) gone.push_back(row(old->first));
      const bool same_key = old != before.end() && old->first == now->first;
      if (!(same_key && (old->second == now->second || *old->second == *now->second))) {
        writes.push_back(
            {row(now->first), [&encode, c = now->second.get()] { return encode(*c); }});
      }
      if (same_key) ++old;
    }
    for (; old != before.end(); ++old) gone.push_back(row(old->first));
  };
  const auto tile_xz = [](const std::pair<std::int64_t, std::int64_t>& k) { return k; };
  const auto encode_height = [&](const HeightEditSnapshot::Tile& t) {
    return store_detail::encode_height_tile(t, m.info.tile_cells);
  };
  diff(kHeightLayer, m.committed->tiles(), edits.tiles(), tile_xz, encode_height);
  // The block layer by chunk column: a column with a changed chunk is written whole.
  std::map<BlockColumnKey, BlockColumn> before_columns, after_columns;
  if (shared_blocks != m.committed_blocks) {
    before_columns = block_columns(*m.committed_blocks);
    after_columns = block_columns(blocks);
    for (const auto& [key, column] : after_columns) {
      const auto it = before_columns.find(key);
      if (it != before_columns.end() && same_column(it->second, column)) continue;
      writes.push_back({RowKey{kBlockLayer, key.first, key.second}, [&, c = &column] {
                          std::vector<store_detail::BlockColumnChunk> chunks;
                          for (const auto& [cy, values] : *c) chunks.push_back({cy, values});
                          return store_detail::encode_block_column(chunks, blocks.chunk_size());
                        }});
    }
    for (const auto& entry : before_columns) {
      if (!after_columns.contains(entry.first)) {
        gone.push_back(RowKey{kBlockLayer, entry.first.first, entry.first.second});
      }
    }
  }
  const auto encode_instances = [&](const InstanceEditSnapshot::Chunk& c) {
    return store_detail::encode_instance_chunk(c, instances.chunk_size_m());
  };
  const auto instance_xz = [](const InstanceEditKey& k) { return std::pair{k.cx, k.cz}; };
  if (shared_instances != m.committed_instances) {
    diff(kInstanceLayer, m.committed_instances->chunks(), instances.chunks(), instance_xz,
         encode_instances);
  }
  const auto encode_paint = [&](const SplatPaintSnapshot::Tile& t) {
    return store_detail::encode_paint_tile(t, paint.tile_cells(), paint.layers());
  };
  if (shared_paint != m.committed_paint) {
    diff(kPaintLayer, m.committed_paint->tiles(), paint.tiles(), tile_xz, encode_paint);
  }
  std::vector<std::vector<std::uint8_t>> blobs(writes.size());
  parallel_for(ExecContext{.threads = writes.size() > 1 ? 0 : 1}, std::int64_t(writes.size()), 1,
               [&](std::int64_t b, std::int64_t e) {
                 for (std::int64_t k = b; k < e; ++k) {
                   blobs[std::size_t(k)] = writes[std::size_t(k)].encode();
                 }
               });
  // The schema this commit needs: a layer's number is the schema version that added it (2 for
  // block overrides, 3 for instance overrides, 4 for paint).
  int schema = m.info.schema_version;
  for (const Write& w : writes) schema = std::max(schema, int(w.key.layer));
  const bool raise_schema = schema > m.info.schema_version;

  WorldCommit result;
  result.seq = m.info.commits + 1;
  const Db& db = *m.db;
  db.exec("BEGIN IMMEDIATE", "starting a commit");
  try {
    for (std::size_t k = 0; k < writes.size(); ++k) {
      m.upsert->bind(1, writes[k].key.layer);
      m.upsert->bind(2, writes[k].key.cx);
      m.upsert->bind(3, writes[k].key.cz);
      m.upsert->bind_blob(4, blobs[k]);
      m.upsert->step("writing the edits");
      m.upsert->reset();
      result.bytes_written += blobs[k].size();
    }
    for (const RowKey& key : gone) {
      m.erase->bind(1, key.layer);
      m.erase->bind(2, key.cx);
      m.erase->bind(3, key.cz);
      m.erase->step("writing the edits");
      m.erase->reset();
    }
    if (raise_schema) {
      db.exec(("PRAGMA user_version=" + std::to_string(schema)).c_str(),
              "raising the schema version");
    }
    m.add_log->bind(1, std::int64_t(result.seq));
    m.add_log->bind(2, std::int64_t(std::time(nullptr)));
    m.add_log->bind(3, description);
    m.add_log->step("writing the log");
    m.add_log->reset();
    auto meta = [&](const char* key, const std::string& value) {
      m.set_meta->bind(1, std::string_view(value));
      m.set_meta->bind(2, std::string_view(key));
      m.set_meta->step("writing the world's settings");
      m.set_meta->reset();
    };
    meta("commits", std::to_string(result.seq));
    if (m.info.written_by != terrane_version()) meta("written_by", terrane_version());
    if (m.record_fingerprint) meta("fingerprint", hex64(m.fingerprint_now));
    db.exec("COMMIT", "committing");
  } catch (...) {
    m.upsert->reset();
    m.erase->reset();
    m.add_log->reset();
    m.set_meta->reset();
    sqlite3_exec(db.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }

  // Only now, with the transaction durable, does the in-memory state follow.
  const auto uncount = [&](const RowKey& key) {
    const auto it = m.blob_size.find(key);
    if (it == m.blob_size.end()) return;
    m.info.blob_bytes -= it->second;
    m.info.layer_bytes[std::size_t(key.layer - 1)] -= it->second;
    m.blob_size.erase(it);
  };
  for (std::size_t k = 0; k < writes.size(); ++k) {
    uncount(writes[k].key);
    m.count_blob(writes[k].key, blobs[k].size());
  }
  for (const RowKey& key : gone) uncount(key);
  m.info.schema_version = schema;
  result.tiles_written = writes.size();
  result.tiles_deleted = gone.size();
  // Each layer's counts where the layer changed; the painted vertices from the changed tiles
  // only (counting them all would read every amount of the layer on every commit).
  if (shared_instances != m.committed_instances) {
    m.info.instance_chunks = instances.chunks().size();
    m.info.instance_overrides = instances.override_count();
  }
  if (shared_blocks != m.committed_blocks) {
    m.info.block_chunks = blocks.chunk_count();
    m.info.block_overrides = blocks.override_count();
  }
  if (shared_paint != m.committed_paint) {
    const auto painted = [&](const SplatPaintSnapshot& layer, const RowKey& key) -> std::size_t {
      const auto it = layer.tiles().find({key.cx, key.cz});
      return it == layer.tiles().end()
                 ? 0
                 : SplatPaintSnapshot::painted_vertices(*it->second, layer.layers());
    };
    for (const Write& w : writes) {
      if (w.key.layer != kPaintLayer) continue;
      m.info.painted_vertices += painted(paint, w.key);
      m.info.painted_vertices -= painted(*m.committed_paint, w.key);
    }
    for (const RowKey& key : gone) {
      if (key.layer == kPaintLayer) m.info.painted_vertices -= painted(*m.committed_paint, key);
    }
    m.info.paint_tiles = paint.tile_count();
  }
  m.committed = std::move(shared);
  m.committed_blocks = std::move(shared_blocks);
  m.committed_instances = std::move(shared_instances);
  m.committed_paint = std::move(shared_paint);
  m.info.commits = result.seq;
  m.info.written_by = terrane_version();
  if (m.record_fingerprint) {
    m.info.fingerprint = m.fingerprint_now;
    m.record_fingerprint = false;
  }
  m.info.height_tiles = edits.tile_count();
  m.info.delta_lo_m = edits.delta_lo();
  m.info.delta_hi_m = edits.delta_hi();
  m.refresh_file_bytes();
  return result;
}

std::vector<WorldLogEntry> WorldStore::log(std::size_t count) const {
  Stmt s(*impl_->db, "SELECT seq, time, description FROM log ORDER BY seq DESC LIMIT ?");
  s.bind(1, std::int64_t(std::min<std::size_t>(count, std::size_t(INT64_MAX))));
  std::vector<WorldLogEntry> out;
  while (s.step("reading the log")) {
    out.push_back({std::uint64_t(s.int64(0)), s.int64(1), s.text(2)});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::string WorldStore::check() const {
  const Db& db = *impl_->db;
  std::string problems;
  try {
    Stmt s(db, "PRAGMA integrity_check");
    while (s.step("checking the file")) {
      const std::string row = s.text(0);
      if (row != "ok") problems += row + "\n";
    }
    Stmt t(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    t.bind(1, kHeightLayer);
    while (t.step("checking the edits")) {
      try {
        store_detail::decode_height_tile(
            t.blob(2), impl_->info.tile_cells,
            "chunk (" + std::to_string(t.int64(0)) + ", " + std::to_string(t.int64(1)) + ")");
      } catch (const Error& e) {
        problems += std::string(e.what()) + "\n";
      }
    }
    Stmt b(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    b.bind(1, kBlockLayer);
    while (b.step("checking the block overrides")) {
      try {
        auto chunks =
            store_detail::decode_block_column(b.blob(2), impl_->committed_blocks->chunk_size(),
                                              "block column (" + std::to_string(b.int64(0)) + ", " +
                                                  std::to_string(b.int64(1)) + ")");
        BlockEditSnapshot::ChunkMap map;
        for (auto& [cy, values] : chunks) {
          map.emplace(BlockEditKey{b.int64(0), cy, b.int64(1)},
                      std::make_shared<const BlockEditSnapshot::Chunk>(std::move(values)));
        }
        const BlockEditSnapshot& layer = *impl_->committed_blocks;
        (void)BlockEditSnapshot(layer.block_size_m(), layer.chunk_size(), layer.block_types(),
                                std::move(map));
      } catch (const Error& e) {
        problems += std::string(e.what()) + "\n";
      }
    }
    Stmt i(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    i.bind(1, kInstanceLayer);
    while (i.step("checking the instance overrides")) {
      try {
        const InstanceEditKey key{i.int64(0), i.int64(1)};
        const double side = impl_->committed_instances->chunk_size_m();
        auto chunk =
            std::make_shared<const InstanceEditSnapshot::Chunk>(store_detail::decode_instance_chunk(
                i.blob(2), side,
                "instance chunk (" + std::to_string(key.cx) + ", " + std::to_string(key.cz) + ")"));
        (void)InstanceEditSnapshot(side, {{key, std::move(chunk)}});
      } catch (const Error& e) {
        problems += std::string(e.what()) + "\n";
      }
    }
    Stmt p(db, "SELECT cx, cz, blob FROM chunks WHERE layer = ?");
    p.bind(1, kPaintLayer);
    while (p.step("checking the splat paint")) {
      try {
        const SplatPaintSnapshot::TileKey key{p.int64(0), p.int64(1)};
        const SplatPaintSnapshot& layer = *impl_->committed_paint;
        auto tile = std::make_shared<const SplatPaintSnapshot::Tile>(
            store_detail::decode_paint_tile(p.blob(2), layer.tile_cells(), layer.layers(),
                                            "paint tile (" + std::to_string(key.first) + ", " +
                                                std::to_string(key.second) + ")"));
        (void)SplatPaintSnapshot(layer.cell_size_m(), layer.tile_cells(), layer.layers(),
                                 {{key, std::move(tile)}});
      } catch (const Error& e) {
        problems += std::string(e.what()) + "\n";
      }
    }
  } catch (const Error& e) {
    problems += std::string(e.what()) + "\n";
  }
  if (problems.empty()) return "ok";
  problems.pop_back();
  return problems;
}

}  // namespace terrane
