/* The C API's reference outputs for the bindings' tests (Python, C#): the same regions and the
 * same streamed chunks through terrane.h from plain C99, written into the directory given as the
 * only argument:
 *   heights_default.f32  preset "default": terrane_heights(x0 1000, z0 -2000, 300 x 200, cell 0)
 *   heights_alpine.f32   preset "alpine" with "seed=7": (x0 0, z0 0, 128 x 128, cell 2)
 *     (raw little-endian float32, row-major)
 *   chunks.txt           "cx cz level hash" (hash: 16 hex digits of terrane_chunk_info's
 *                        content_hash) for every visible chunk once preset "default" streamed
 *                        with 16-cell chunks (480 m), a 3000 m view (levels 0 to 2), one
 *                        viewer at (100, 0, 100), until the view is complete (update, then
 *                        poll(0, 50 ms), then a 1 ms sleep, each round; normal worker
 *                        priority).
 * Built with -std=c99 -pedantic: it is also the check that terrane.h is C99. */
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "terrane/terrane.h"

static int check(terrane_status s, const char* what) {
  if (s == TERRANE_OK) return 1;
  fprintf(stderr, "%s: %s: %s\n", what, terrane_status_name(s), terrane_last_error());
  return 0;
}

static int write_heights(const char* dir, const char* file, const char* preset_name,
                         const char* override, double x0, double z0, int w, int h, double cell) {
  terrane_preset* preset = NULL;
  const char* overrides[1];
  size_t n = terrane_heights_bound(w, h);
  float* heights = (float*)malloc(n * sizeof(float));
  char path[4096];
  FILE* f;
  int ok = 0;
  overrides[0] = override;
  if (heights != NULL &&
      check(terrane_preset_load(preset_name, overrides, override ? 1u : 0u, &preset), "load") &&
      check(terrane_heights(preset, x0, z0, w, h, cell, 0, heights, n, NULL), "heights")) {
    snprintf(path, sizeof path, "%s/%s", dir, file);
    f = fopen(path, "wb");
    ok = f != NULL && fwrite(heights, sizeof(float), n, f) == n;
    if (f != NULL && fclose(f) != 0) ok = 0;
  }
  terrane_preset_free(preset);
  free(heights);
  return ok;
}

static int write_chunks(const char* dir) {
  terrane_preset* preset = NULL;
  terrane_streamer* streamer = NULL;
  terrane_streamer_params params;
  terrane_viewer viewer;
  terrane_streamer_stats stats;
  terrane_visible_chunk* visible = NULL;
  struct timespec frame;
  size_t count = 0, k;
  int round, ok = 0;
  char path[4096];
  FILE* f = NULL;
  frame.tv_sec = 0;
  frame.tv_nsec = 1000000;
  terrane_streamer_params_init(&params);
  params.chunk_cells = 16;
  params.view_distance_m = 3000.0;
  params.worker_priority = 2; /* normal: the tests run beside others on busy cores */
  memset(&viewer, 0, sizeof viewer);
  viewer.x_m = 100.0;
  viewer.z_m = 100.0;
  if (!check(terrane_preset_load("default", NULL, 0, &preset), "load") ||
      !check(terrane_streamer_create(preset, &params, &streamer), "streamer") ||
      !check(terrane_streamer_set_viewers(streamer, &viewer, 1), "viewers")) {
    goto done;
  }
  memset(&stats, 0, sizeof stats);
  for (round = 0; round < 100000 && !stats.view_complete; ++round) {
    if (!check(terrane_streamer_update(streamer), "update") ||
        !check(terrane_streamer_poll(streamer, 0, 50.0, NULL), "poll") ||
        !check(terrane_streamer_get_stats(streamer, &stats), "stats")) {
      goto done;
    }
    nanosleep(&frame, NULL); /* a frame's wait: poll never waits for the workers */
  }
  if (!stats.view_complete) goto done;
  terrane_streamer_visible(streamer, NULL, 0, &count);
  visible = (terrane_visible_chunk*)malloc((count ? count : 1) * sizeof *visible);
  if (visible == NULL ||
      !check(terrane_streamer_visible(streamer, visible, count, &count), "vis")) {
    goto done;
  }
  snprintf(path, sizeof path, "%s/chunks.txt", dir);
  f = fopen(path, "w");
  if (f == NULL) goto done;
  for (k = 0; k < count; ++k) {
    terrane_chunk_info info;
    if (!check(terrane_streamer_chunk_info(streamer, visible[k].key, &info), "info")) goto done;
    fprintf(f, "%lld %lld %d %016llx\n", (long long)visible[k].key.cx, (long long)visible[k].key.cz,
            (int)visible[k].key.level, (unsigned long long)info.content_hash);
  }
  ok = count > 0;
done:
  if (f != NULL && fclose(f) != 0) ok = 0;
  free(visible);
  terrane_streamer_free(streamer);
  terrane_preset_free(preset);
  return ok;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  if (!write_heights(argv[1], "heights_default.f32", "default", NULL, 1000.0, -2000.0, 300, 200,
                     0.0) ||
      !write_heights(argv[1], "heights_alpine.f32", "alpine", "seed=7", 0.0, 0.0, 128, 128, 2.0) ||
      !write_chunks(argv[1])) {
    return 1;
  }
  printf("capi_reference: wrote %s/heights_default.f32, heights_alpine.f32, chunks.txt\n", argv[1]);
  return 0;
}
