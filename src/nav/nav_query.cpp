// NavQuery: Detour queries in world coordinates (double), converted to the navmesh's
// origin-relative floats and back.
#include <cmath>

#include <recastnavigation/DetourCommon.h>
#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshQuery.h>

#include "nav/nav_world_impl.hpp"
#include "terrane/schema.hpp"

namespace terrane {

struct NavQuery::Impl {
  const NavWorld* world = nullptr;
  int agent = 0;
  dtNavMeshQuery* query = nullptr;
  float endpoint_extents[3] = {2.0f, 8.0f, 2.0f};
  ~Impl() { dtFreeNavMeshQuery(query); }

  const dtNavMesh& mesh() const { return *world->impl().meshes[std::size_t(agent)]; }
  // World -> navmesh coordinates; false beyond kNavMaxOriginDistance.
  bool to_local(const std::array<double, 3>& p, float* out) const {
    const double x = p[0] - world->origin_x_m(), z = p[2] - world->origin_z_m();
    if (!std::isfinite(x) || !std::isfinite(z) || !std::isfinite(p[1]) ||
        std::max(std::abs(x), std::abs(z)) > kNavMaxOriginDistance) {
      return false;
    }
    out[0] = float(x);
    out[1] = float(p[1]);
    out[2] = float(z);
    return true;
  }
  std::array<double, 3> to_world(const float* p) const {
    return {double(p[0]) + world->origin_x_m(), double(p[1]), double(p[2]) + world->origin_z_m()};
  }
  NavStatus locate(const std::array<double, 3>& p, const float* extents,
                   const dtQueryFilter& filter, dtPolyRef& ref, float* local, float* on) const {
    if (!to_local(p, local)) return NavStatus::out_of_range;
    if (!world->loaded(agent, p[0], p[2])) return NavStatus::not_loaded;
    ref = 0;
    if (dtStatusFailed(query->findNearestPoly(local, extents, &filter, &ref, on)) || ref == 0) {
      return NavStatus::no_start;
    }
    return NavStatus::ok;
  }
};

namespace {

dtQueryFilter make_filter(const NavFilter& f) {
  dtQueryFilter q;
  for (int a = 0; a < kNavAreaCount; ++a) q.setAreaCost(a, f.area_cost[std::size_t(a)]);
  q.setIncludeFlags(f.include);
  q.setExcludeFlags(f.exclude);
  return q;
}

constexpr int kMaxCorridor = 4096;
constexpr int kMaxStraight = 2048;

thread_local std::uint64_t random_state = 0;
float next_random() {
  std::uint64_t z = (random_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(z >> 40) * (1.0f / 16777216.0f);  // [0, 1)
}

}  // namespace

NavQuery::NavQuery(const NavWorld& world, int agent, int max_nodes)
    : impl_(std::make_unique<Impl>()) {
  if (agent < 0 || agent >= world.impl().agents) {
    throw Error(ErrorCategory::invalid_argument,
                "NavQuery: agent " + std::to_string(agent) + " is not one of the " +
                    std::to_string(world.impl().agents) + " agents");
  }
  if (max_nodes < 64 || max_nodes > 65535) {
    throw Error(ErrorCategory::invalid_argument,
                "NavQuery: max_nodes = " + std::to_string(max_nodes) + " is outside 64..65535");
  }
  impl_->world = &world;
  impl_->agent = agent;
  impl_->query = dtAllocNavMeshQuery();
  if (impl_->query == nullptr ||
      dtStatusFailed(impl_->query->init(world.impl().meshes[std::size_t(agent)], max_nodes))) {
    throw Error(ErrorCategory::internal, "NavQuery: dtNavMeshQuery::init failed");
  }
}

NavQuery::~NavQuery() = default;

void NavQuery::set_endpoint_search(double horizontal_m, double vertical_m) {
  for (double v : {horizontal_m, vertical_m}) {
    if (!(v > 0.0 && v <= 1000.0)) {
      throw Error(ErrorCategory::invalid_argument,
                  "NavQuery::set_endpoint_search: " + format_number(v) + " m is outside (0, 1000]");
    }
  }
  impl_->endpoint_extents[0] = impl_->endpoint_extents[2] = float(horizontal_m);
  impl_->endpoint_extents[1] = float(vertical_m);
}

NavStatus NavQuery::nearest(double x_m, double y_m, double z_m, NavLocation& out,
                            double search_m) const {
  if (!(search_m > 0.0 && search_m <= 1000.0)) {
    throw Error(
        ErrorCategory::invalid_argument,
        "NavQuery::nearest: search_m = " + format_number(search_m) + " is outside (0, 1000]");
  }
  const Impl& q = *impl_;
  const float extents[3] = {float(search_m), float(2.0 * search_m), float(search_m)};
  const dtQueryFilter filter = make_filter(NavFilter{});
  float local[3], on[3];
  dtPolyRef ref = 0;
  const NavStatus st = q.locate({x_m, y_m, z_m}, extents, filter, ref, local, on);
  if (st != NavStatus::ok) return st;
  const auto w = q.to_world(on);
  out = NavLocation{w[0], w[1], w[2], ref};
  return NavStatus::ok;
}

NavPath NavQuery::path(const std::array<double, 3>& from, const std::array<double, 3>& to,
                       const NavFilter& f) const {
  const Impl& q = *impl_;
  NavPath path;
  path.epoch = q.world->epoch();
  const dtQueryFilter filter = make_filter(f);
  float a[3], b[3], sa[3], sb[3];
  dtPolyRef start = 0, end = 0;
  NavStatus st = q.locate(from, q.endpoint_extents, filter, start, a, sa);
  if (st != NavStatus::ok) {
    path.status = st;
    return path;
  }
  st = q.locate(to, q.endpoint_extents, filter, end, b, sb);
  if (st != NavStatus::ok) {
    path.status = st == NavStatus::no_start ? NavStatus::no_target : st;
    return path;
  }
  std::vector<dtPolyRef> corridor(kMaxCorridor);
  int n = 0;
  const dtStatus fs =
      q.query->findPath(start, end, sa, sb, &filter, corridor.data(), &n, kMaxCorridor);
  if (dtStatusFailed(fs) || n == 0) {
    path.status = NavStatus::failed;
    return path;
  }
  path.status = corridor[std::size_t(n - 1)] == end && !dtStatusDetail(fs, DT_PARTIAL_RESULT)
                    ? NavStatus::ok
                    : NavStatus::partial;
  float goal[3];
  dtVcopy(goal, sb);
  if (path.status == NavStatus::partial) {
    q.query->closestPointOnPoly(corridor[std::size_t(n - 1)], sb, goal, nullptr);
  }
  std::vector<float> straight(std::size_t(kMaxStraight) * 3);
  int ns = 0;
  if (dtStatusFailed(q.query->findStraightPath(sa, goal, corridor.data(), n, straight.data(),
                                               nullptr, nullptr, &ns, kMaxStraight, 0))) {
    path.status = NavStatus::failed;
    return path;
  }
  path.polys.assign(corridor.begin(), corridor.begin() + n);
  for (int i = 0; i < ns; ++i) {
    path.points.push_back(q.to_world(&straight[std::size_t(i) * 3]));
    if (i > 0) {
      const auto& p = path.points[std::size_t(i - 1)];
      const auto& c = path.points[std::size_t(i)];
      path.length_m += std::sqrt((c[0] - p[0]) * (c[0] - p[0]) + (c[1] - p[1]) * (c[1] - p[1]) +
                                 (c[2] - p[2]) * (c[2] - p[2]));
    }
  }
  return path;
}

NavRaycast NavQuery::raycast(const std::array<double, 3>& from, const std::array<double, 3>& to,
                             const NavFilter& f) const {
  const Impl& q = *impl_;
  NavRaycast r;
  const dtQueryFilter filter = make_filter(f);
  float a[3], sa[3], b[3];
  dtPolyRef start = 0;
  r.status = q.locate(from, q.endpoint_extents, filter, start, a, sa);
  if (r.status != NavStatus::ok) return r;
  if (!q.to_local(to, b)) {
    r.status = NavStatus::out_of_range;
    return r;
  }
  float t = 0.0f, normal[3] = {0, 0, 0};
  dtPolyRef visited[256];
  int nv = 0;
  if (dtStatusFailed(q.query->raycast(start, sa, b, &filter, &t, normal, visited, &nv, 256))) {
    r.status = NavStatus::failed;
    return r;
  }
  r.hit = t <= 1.0f;
  r.fraction = r.hit ? double(t) : 1.0;
  r.hit_normal = {double(normal[0]), double(normal[1]), double(normal[2])};
  return r;
}

NavStatus NavQuery::random_point(const std::array<double, 3>& from, double radius_m,
                                 std::uint64_t seed, NavLocation& out, const NavFilter& f) const {
  if (!(radius_m > 0.0 && radius_m <= kNavMaxOriginDistance)) {
    throw Error(ErrorCategory::invalid_argument,
                "NavQuery::random_point: radius_m = " + format_number(radius_m) +
                    " is outside (0, " + format_number(kNavMaxOriginDistance) + "]");
  }
  const Impl& q = *impl_;
  const dtQueryFilter filter = make_filter(f);
  float a[3], sa[3], pt[3];
  dtPolyRef start = 0, ref = 0;
  const NavStatus st = q.locate(from, q.endpoint_extents, filter, start, a, sa);
  if (st != NavStatus::ok) return st;
  random_state = seed;
  if (dtStatusFailed(q.query->findRandomPointAroundCircle(start, sa, float(radius_m), &filter,
                                                          next_random, &ref, pt)) ||
      ref == 0) {
    return NavStatus::failed;
  }
  const auto w = q.to_world(pt);
  out = NavLocation{w[0], w[1], w[2], ref};
  return NavStatus::ok;
}

NavStatus NavQuery::check(const NavPath& path, std::size_t* first_removed) const {
  const Impl& q = *impl_;
  if (path.epoch != q.world->epoch()) {
    if (first_removed != nullptr) *first_removed = 0;
    return NavStatus::corridor_removed;
  }
  for (std::size_t i = 0; i < path.polys.size(); ++i) {
    if (!q.mesh().isValidPolyRef(path.polys[i])) {
      if (first_removed != nullptr) *first_removed = i;
      return NavStatus::corridor_removed;
    }
  }
  return NavStatus::ok;
}

}  // namespace terrane
