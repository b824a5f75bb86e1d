/* The C API in 40 lines: a preset, a height grid, a query and a streamed view.
 * Build: cc -std=c99 hello_terrane.c -lterrane; run: ./hello_terrane [PRESET] */
#include <stdio.h>
#include <terrane/terrane.h>

#define FAIL(call) do { if ((call) != TERRANE_OK) { \
  fprintf(stderr, "error: %s\n", terrane_last_error()); return 2; } } while (0)

int main(int argc, char** argv) {
  static float heights[256 * 256];
  terrane_preset* preset; terrane_query* query; terrane_streamer* streamer;
  terrane_streamer_params params;
  terrane_streamer_stats stats = {0};
  terrane_viewer viewer = {0};
  double lo = 1e30, hi = -1e30, y; int i;
  FAIL(terrane_preset_load(argc > 1 ? argv[1] : "default", NULL, 0, &preset));
  FAIL(terrane_heights(preset, 0.0, 0.0, 256, 256, 4.0, 0, heights, 256 * 256, NULL));
  for (i = 0; i < 256 * 256; ++i) {
    lo = heights[i] < lo ? heights[i] : lo;
    hi = heights[i] > hi ? heights[i] : hi;
  }
  printf("%s: 1 km x 1 km at 4 m, heights %.1f .. %.1f m\n", terrane_preset_name(preset), lo, hi);
  FAIL(terrane_query_create(preset, &query));
  FAIL(terrane_query_height(query, 500.0, 500.0, &y));
  printf("ground at (500, 500): %.2f m\n", y);
  terrane_streamer_params_init(&params);
  params.view_distance_m = 1000.0, params.worker_priority = 2; /* normal: no vsync waits here */
  FAIL(terrane_streamer_create(preset, &params, &streamer));
  viewer.x_m = 500.0, viewer.y_m = y + 2.0, viewer.z_m = 500.0;
  FAIL(terrane_streamer_set_viewers(streamer, &viewer, 1));
  for (i = 0; !stats.view_complete; ++i) { /* a game does one round per frame */
    FAIL(terrane_streamer_update(streamer));
    FAIL(terrane_streamer_poll(streamer, 0, 4.0, NULL));
    FAIL(terrane_streamer_get_stats(streamer, &stats));
  }
  printf("view complete after %d frames: %llu chunks\n", i, (unsigned long long)stats.visible);
  terrane_streamer_free(streamer), terrane_query_free(query), terrane_preset_free(preset);
  return 0;
}
