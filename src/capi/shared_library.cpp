// libterrane.so: the C API's functions come from the static library `terrane`, linked whole
// into this shared object (src/capi/CMakeLists.txt); terrane.map exports only terrane_*.
// This file gives the target its one translation unit: it checks that the header is usable from
// C++ on its own.
#include "terrane/terrane.h"

#include <cstddef>

// The struct layouts the bindings declare again (bindings/csharp/Terrane.cs, whose test checks
// the same numbers; python/src): a change here is a change of the ABI, made in all of them.
static_assert(sizeof(void*) != 8 || sizeof(terrane_preset_info) == 72);
static_assert(sizeof(terrane_instance) == 64 && offsetof(terrane_instance, species) == 44 &&
              offsetof(terrane_instance, id) == 48);
static_assert(sizeof(void*) != 8 || sizeof(terrane_bake_options) == 104);
static_assert(sizeof(terrane_bake_result) == 48);
static_assert(sizeof(terrane_ray_hit) == 48);
static_assert(sizeof(terrane_streamer_params) == 48);
static_assert(sizeof(terrane_viewer) == 48);
static_assert(sizeof(terrane_chunk_key) == 24);
static_assert(sizeof(terrane_chunk_event) == 32);
static_assert(sizeof(terrane_visible_chunk) == 40);
static_assert(sizeof(terrane_chunk_info) == 40);
static_assert(sizeof(terrane_streamer_stats) == 96);
static_assert(sizeof(terrane_nav_agent) == 40);
static_assert(sizeof(terrane_path_result) == 24);
static_assert(sizeof(void*) != 8 || sizeof(terrane_brush) == 104);
static_assert(sizeof(terrane_world_info) == 72);
