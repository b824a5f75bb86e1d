// The process the crash test kills: opens a world and commits random brush strokes until it is
// killed. Before each commit it prints "P <seq> <hash>" (the state it is about to commit), after
// the commit returned "C <seq>", each line flushed, so the test knows what must be in the file.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "store/store_support.hpp"
#include "terrane/store.hpp"

int main(int argc, char** argv) {
  using namespace terrane;
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer WORLD SEED\n");
    return 2;
  }
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
      std::printf("C %" PRIu64 "\n", seq);
      std::fflush(stdout);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "crash_writer: %s\n", e.what());
    return 1;
  }
}
