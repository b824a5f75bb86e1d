// libterrane.so: the C API's functions come from the static library `terrane`, linked whole
// into this shared object (src/capi/CMakeLists.txt); terrane.map exports only terrane_*.
// This file gives the target its one translation unit: it checks that the header is usable from
// C++ on its own.
#include "terrane/terrane.h"

static_assert(sizeof(terrane_chunk_key) == 24, "terrane_chunk_key: int64, int64, int32 + pad");
static_assert(sizeof(terrane_instance) == 64, "terrane_instance is 64 bytes in every binding");
