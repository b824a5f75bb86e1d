// The process the crash test kills: opens a world and commits random brush strokes until it is
// killed. Before each commit it prints "P <seq> <hash>" (the state it is about to commit), after
// the commit returned "C <seq>", each line flushed, so the test knows what must be in the file.
//
// With a third and fourth argument the writer kills itself (SIGKILL) at a chosen point, which a
// kill from outside hits only by chance (a commit takes about a millisecond):
//   wal-before K / wal-after K  before or after its K-th write to the WAL, i.e. inside a commit;
//   db-before K / db-after K    before or after its K-th write to the database file, i.e. inside
//                               a checkpoint (the background checkpointer's);
//   ack K                       after its K-th commit returned, before it says so.
// The points are counted by a VFS that wraps SQLite's default one and forwards every call.
#include <signal.h>
#include <sqlite3.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "store/store_support.hpp"
#include "terrane/store.hpp"

namespace {

enum class Target { none, wal, db, ack };
Target g_target = Target::none;
bool g_after = false;          // kill after the K-th write rather than before it
long g_k = 0;                  // which write or commit
std::atomic<long> g_count{0};  // writes (or commits) of the target counted so far

sqlite3_vfs* g_real_vfs = nullptr;

// Our file: SQLite's header, then which file it is, then the real VFS's file.
struct KillFile {
  sqlite3_file base;
  sqlite3_file* real;
  Target kind;
};

sqlite3_file* real(sqlite3_file* f) {
  return reinterpret_cast<KillFile*>(f)->real;
}

void count(Target kind, bool after) {
  if (kind != g_target || after != g_after) return;
  // Counted once per write: before it for "before", after it for "after".
  if (g_count.fetch_add(1) + 1 == g_k) raise(SIGKILL);
}

int kf_close(sqlite3_file* f) {
  return real(f)->pMethods->xClose(real(f));
}
int kf_read(sqlite3_file* f, void* p, int n, sqlite3_int64 off) {
  return real(f)->pMethods->xRead(real(f), p, n, off);
}
int kf_write(sqlite3_file* f, const void* p, int n, sqlite3_int64 off) {
  const Target kind = reinterpret_cast<KillFile*>(f)->kind;
  count(kind, false);
  const int rc = real(f)->pMethods->xWrite(real(f), p, n, off);
  count(kind, true);
  return rc;
}
int kf_truncate(sqlite3_file* f, sqlite3_int64 size) {
  return real(f)->pMethods->xTruncate(real(f), size);
}
int kf_sync(sqlite3_file* f, int flags) {
  return real(f)->pMethods->xSync(real(f), flags);
}
int kf_file_size(sqlite3_file* f, sqlite3_int64* size) {
  return real(f)->pMethods->xFileSize(real(f), size);
}
int kf_lock(sqlite3_file* f, int l) {
  return real(f)->pMethods->xLock(real(f), l);
}
int kf_unlock(sqlite3_file* f, int l) {
  return real(f)->pMethods->xUnlock(real(f), l);
}
int kf_check_reserved(sqlite3_file* f, int* out) {
  return real(f)->pMethods->xCheckReservedLock(real(f), out);
}
int kf_file_control(sqlite3_file* f, int op, void* arg) {
  return real(f)->pMethods->xFileControl(real(f), op, arg);
}
int kf_sector_size(sqlite3_file* f) {
  return real(f)->pMethods->xSectorSize(real(f));
}
int kf_device(sqlite3_file* f) {
  return real(f)->pMethods->xDeviceCharacteristics(real(f));
}
int kf_shm_map(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return real(f)->pMethods->xShmMap(real(f), region, size, extend, out);
}
int kf_shm_lock(sqlite3_file* f, int offset, int n, int flags) {
  return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
}
void kf_shm_barrier(sqlite3_file* f) {
  real(f)->pMethods->xShmBarrier(real(f));
}
int kf_shm_unmap(sqlite3_file* f, int del) {
  return real(f)->pMethods->xShmUnmap(real(f), del);
}
int kf_fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** out) {
  return real(f)->pMethods->xFetch(real(f), off, n, out);
}
int kf_unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  return real(f)->pMethods->xUnfetch(real(f), off, p);
}

const sqlite3_io_methods kKillMethods = {
    3,
    kf_close,
    kf_read,
    kf_write,
    kf_truncate,
    kf_sync,
    kf_file_size,
    kf_lock,
    kf_unlock,
    kf_check_reserved,
    kf_file_control,
    kf_sector_size,
    kf_device,
    kf_shm_map,
    kf_shm_lock,
    kf_shm_barrier,
    kf_shm_unmap,
    kf_fetch,
    kf_unfetch,
};

int kv_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  auto* kf = reinterpret_cast<KillFile*>(f);
  kf->real = reinterpret_cast<sqlite3_file*>(kf + 1);
  kf->kind = (flags & SQLITE_OPEN_WAL) != 0       ? Target::wal
             : (flags & SQLITE_OPEN_MAIN_DB) != 0 ? Target::db
                                                  : Target::none;
  const int rc = g_real_vfs->xOpen(g_real_vfs, name, kf->real, flags, out_flags);
  // The real file's methods must all be there for us to forward them (unix: version 3).
  kf->base.pMethods =
      rc == SQLITE_OK && kf->real->pMethods != nullptr && kf->real->pMethods->iVersion >= 3
          ? &kKillMethods
          : nullptr;
  if (rc == SQLITE_OK && kf->base.pMethods == nullptr) {
    if (kf->real->pMethods != nullptr) kf->real->pMethods->xClose(kf->real);
    return SQLITE_CANTOPEN;
  }
  return rc;
}

void install_kill_vfs() {
  g_real_vfs = sqlite3_vfs_find(nullptr);
  static sqlite3_vfs vfs;
  std::memcpy(&vfs, g_real_vfs, sizeof vfs);  // every other call goes to the real VFS
  vfs.zName = "terrane-crash-kill";
  vfs.szOsFile = int(sizeof(KillFile)) + g_real_vfs->szOsFile;
  vfs.pAppData = nullptr;
  vfs.xOpen = kv_open;
  sqlite3_vfs_register(&vfs, /*makeDflt=*/1);
}

bool parse_target(const char* what, const char* k) {
  const std::string w = what;
  g_target = w == "wal-before" || w == "wal-after" ? Target::wal
             : w == "db-before" || w == "db-after" ? Target::db
             : w == "ack"                          ? Target::ack
                                                   : Target::none;
  g_after = w == "wal-after" || w == "db-after";
  g_k = std::strtol(k, nullptr, 10);
  return g_target != Target::none && g_k > 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace terrane;
  if ((argc != 3 && argc != 5) || (argc == 5 && !parse_target(argv[3], argv[4]))) {
    std::fprintf(
        stderr, "usage: crash_writer WORLD SEED [wal-before|wal-after|db-before|db-after|ack K]\n");
    return 2;
  }
  if (g_target == Target::wal || g_target == Target::db) install_kill_vfs();
  try {
    WorldStore store = WorldStore::open(argv[1]);
    const CompiledGraph base = compile(store.preset());
    HeightEdits edits(store.height_edits());
    std::mt19937_64 rng(std::strtoull(argv[2], nullptr, 10));
    std::uniform_real_distribution<double> where(-400.0, 400.0), radius(3.0, 40.0);
    std::uniform_int_distribution<int> kind(0, 3);
    for (;;) {
      HeightBrush b;
      const int k = kind(rng);
      b.kind = k == 0   ? BrushKind::raise
               : k == 1 ? BrushKind::lower
               : k == 2 ? BrushKind::smooth
                        : BrushKind::noise;
      b.x_m = where(rng);
      b.z_m = where(rng);
      b.radius_m = radius(rng);
      b.strength_m = b.kind == BrushKind::smooth ? 0.5 : 2.0;
      b.noise.frequency = 0.1;
      edits.apply(b, base);
      // Now and then an undo, which must also come back exactly.
      if (k == 1 && b.radius_m < 10.0) edits.undo();
      const HeightEditSnapshot snap = edits.current();
      const std::uint64_t seq = store.info().commits + 1;
      std::printf("P %" PRIu64 " %016" PRIx64 "\n", seq, test::edits_hash(snap));
      std::fflush(stdout);
      store.commit(snap, "crash test stroke");
      if (g_target == Target::ack && g_count.fetch_add(1) + 1 == g_k) raise(SIGKILL);
      std::printf("C %" PRIu64 "\n", seq);
      std::fflush(stdout);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "crash_writer: %s\n", e.what());
    return 1;
  }
}
