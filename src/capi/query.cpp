// The C API's queries (terrane.h): terrane::TerrainQuery behind a handle.
#include "capi_internal.hpp"

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

extern "C" {

terrane_status terrane_query_create(const terrane_preset* preset, terrane_query** out) {
  return guarded([&] {
    require(out, "out");
    *out = nullptr;
    require(preset, "preset");
    auto q = std::make_unique<terrane_query>();
    q->query = std::make_shared<const TerrainQuery>(preset->generator);
    *out = q.release();
    return TERRANE_OK;
  });
}

void terrane_query_free(terrane_query* query) {
  delete query;
}

terrane_status terrane_query_height(const terrane_query* query, double x_m, double z_m,
                                    double* height_m) {
  return guarded([&] {
    require(query, "query");
    require(height_m, "height_m");
    *height_m = query->query->height_at(x_m, z_m);
    return TERRANE_OK;
  });
}

terrane_status terrane_query_normal(const terrane_query* query, double x_m, double z_m,
                                    float normal[3]) {
  return guarded([&] {
    require(query, "query");
    require(normal, "normal");
    const std::array<float, 3> n = query->query->normal_at(x_m, z_m);
    normal[0] = n[0];
    normal[1] = n[1];
    normal[2] = n[2];
    return TERRANE_OK;
  });
}

terrane_status terrane_query_raycast(const terrane_query* query, const double origin[3],
                                     const double direction[3], double max_distance_m, int32_t* hit,
                                     terrane_ray_hit* out) {
  return guarded([&] {
    require(query, "query");
    require(origin, "origin");
    require(direction, "direction");
    require(hit, "hit");
    const std::optional<RayHit> h = query->query->raycast(
        origin[0], origin[1], origin[2], direction[0], direction[1], direction[2], max_distance_m);
    *hit = h ? 1 : 0;
    if (h && out != nullptr) {
      out->distance_m = h->distance_m;
      out->x_m = h->x_m;
      out->y_m = h->y_m;
      out->z_m = h->z_m;
      out->normal[0] = h->normal[0];
      out->normal[1] = h->normal[1];
      out->normal[2] = h->normal[2];
    }
    return TERRANE_OK;
  });
}

}  // extern "C"
