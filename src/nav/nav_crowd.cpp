// NavCrowd: DetourCrowd agents on one agent type's navmesh, in world coordinates. After a
// re-centre of the NavWorld (a new epoch), update() moves every crowd agent to the new origin
// (removed and added again at its world position, with its target requested again).
#include <cmath>

#include <recastnavigation/DetourCrowd.h>
#include <recastnavigation/DetourNavMesh.h>
#include <recastnavigation/DetourNavMeshQuery.h>

#include "nav/nav_world_impl.hpp"
#include "terrane/schema.hpp"

namespace terrane {

struct NavCrowd::Impl {
  const NavWorld* world = nullptr;
  int agent = 0;
  dtCrowd* crowd = nullptr;
  std::uint64_t epoch = 0;
  double ox = 0.0, oz = 0.0;  // origin the crowd's positions are relative to
  struct Member {
    bool active = false;
    int index = -1;  // in dtCrowd
    double speed = 3.5;
    bool has_target = false;
    std::array<double, 3> target{};
  };
  std::vector<Member> members;
  ~Impl() { dtFreeCrowd(crowd); }

  dtCrowdAgentParams agent_params(double speed) const {
    const NavAgent& a = world->builder().params().agents[std::size_t(agent)];
    dtCrowdAgentParams p{};
    p.radius = float(a.radius_m);
    p.height = float(a.height_m);
    p.maxAcceleration = 8.0f;
    p.maxSpeed = float(speed);
    p.collisionQueryRange = float(a.radius_m * 12.0);
    p.pathOptimizationRange = float(a.radius_m * 30.0);
    p.updateFlags = DT_CROWD_ANTICIPATE_TURNS | DT_CROWD_OPTIMIZE_VIS | DT_CROWD_OPTIMIZE_TOPO |
                    DT_CROWD_OBSTACLE_AVOIDANCE | DT_CROWD_SEPARATION;
    p.obstacleAvoidanceType = 3;
    p.separationWeight = 2.0f;
    return p;
  }
  bool request(int index, const std::array<double, 3>& t) {
    const float pos[3] = {float(t[0] - ox), float(t[1]), float(t[2] - oz)};
    float on[3];
    dtPolyRef ref = 0;
    crowd->getNavMeshQuery()->findNearestPoly(pos, crowd->getQueryHalfExtents(),
                                              crowd->getFilter(0), &ref, on);
    return ref != 0 && crowd->requestMoveTarget(index, ref, on);
  }
};

NavCrowd::NavCrowd(const NavWorld& world, int agent, int max_agents)
    : impl_(std::make_unique<Impl>()) {
  if (agent < 0 || agent >= world.impl().agents) {
    throw Error(ErrorCategory::invalid_argument,
                "NavCrowd: agent " + std::to_string(agent) + " is not one of the " +
                    std::to_string(world.impl().agents) + " agents");
  }
  if (max_agents < 1 || max_agents > 1024) {
    throw Error(ErrorCategory::invalid_argument,
                "NavCrowd: max_agents = " + std::to_string(max_agents) + " is outside 1..1024");
  }
  Impl& c = *impl_;
  c.world = &world;
  c.agent = agent;
  c.crowd = dtAllocCrowd();
  const NavAgent& a = world.builder().params().agents[std::size_t(agent)];
  if (c.crowd == nullptr ||
      !c.crowd->init(max_agents, float(a.radius_m), world.impl().meshes[std::size_t(agent)])) {
    throw Error(ErrorCategory::internal, "NavCrowd: dtCrowd::init failed");
  }
  c.epoch = world.epoch();
  c.ox = world.origin_x_m();
  c.oz = world.origin_z_m();
}

NavCrowd::~NavCrowd() = default;

int NavCrowd::add(double x_m, double y_m, double z_m, double max_speed_m_s) {
  Impl& c = *impl_;
  if (!(max_speed_m_s > 0.0 && max_speed_m_s <= 100.0)) {
    throw Error(
        ErrorCategory::invalid_argument,
        "NavCrowd::add: max_speed_m_s = " + format_number(max_speed_m_s) + " is outside (0, 100]");
  }
  if (c.epoch != c.world->epoch()) update(0.0);
  const float pos[3] = {float(x_m - c.ox), float(y_m), float(z_m - c.oz)};
  const dtCrowdAgentParams p = c.agent_params(max_speed_m_s);
  const int index = c.crowd->addAgent(pos, &p);
  if (index < 0) return -1;
  if (c.crowd->getAgent(index)->state == DT_CROWDAGENT_STATE_INVALID) {
    c.crowd->removeAgent(index);
    return -1;
  }
  Impl::Member m;
  m.active = true;
  m.index = index;
  m.speed = max_speed_m_s;
  for (std::size_t id = 0; id < c.members.size(); ++id) {
    if (!c.members[id].active) {
      c.members[id] = m;
      return int(id);
    }
  }
  c.members.push_back(m);
  return int(c.members.size() - 1);
}

void NavCrowd::remove(int id) {
  Impl& c = *impl_;
  if (id < 0 || std::size_t(id) >= c.members.size() || !c.members[std::size_t(id)].active) return;
  c.crowd->removeAgent(c.members[std::size_t(id)].index);
  c.members[std::size_t(id)].active = false;
}

bool NavCrowd::set_target(int id, double x_m, double y_m, double z_m) {
  Impl& c = *impl_;
  if (id < 0 || std::size_t(id) >= c.members.size() || !c.members[std::size_t(id)].active) {
    throw Error(ErrorCategory::invalid_argument,
                "NavCrowd::set_target: no agent " + std::to_string(id));
  }
  Impl::Member& m = c.members[std::size_t(id)];
  m.target = {x_m, y_m, z_m};
  m.has_target = c.request(m.index, m.target);
  return m.has_target;
}

void NavCrowd::update(double dt_s) {
  Impl& c = *impl_;
  if (c.epoch != c.world->epoch()) {
    // Re-centred: positions move to the new origin.
    const double nox = c.world->origin_x_m(), noz = c.world->origin_z_m();
    for (Impl::Member& m : c.members) {
      if (!m.active) continue;
      const dtCrowdAgent* ag = c.crowd->getAgent(m.index);
      const float pos[3] = {float(double(ag->npos[0]) + c.ox - nox), ag->npos[1],
                            float(double(ag->npos[2]) + c.oz - noz)};
      c.crowd->removeAgent(m.index);
      const dtCrowdAgentParams p = c.agent_params(m.speed);
      m.index = c.crowd->addAgent(pos, &p);
      if (m.index < 0) m.active = false;
    }
    c.ox = nox;
    c.oz = noz;
    c.epoch = c.world->epoch();
    for (Impl::Member& m : c.members) {
      if (m.active && m.has_target) m.has_target = c.request(m.index, m.target);
    }
  }
  if (dt_s > 0.0) c.crowd->update(float(dt_s), nullptr);
}

NavCrowdAgentState NavCrowd::state(int id) const {
  const Impl& c = *impl_;
  NavCrowdAgentState s;
  if (id < 0 || std::size_t(id) >= c.members.size() || !c.members[std::size_t(id)].active) return s;
  const Impl::Member& m = c.members[std::size_t(id)];
  const dtCrowdAgent* ag = c.crowd->getAgent(m.index);
  s.x_m = double(ag->npos[0]) + c.ox;
  s.y_m = double(ag->npos[1]);
  s.z_m = double(ag->npos[2]) + c.oz;
  s.vx_m_s = double(ag->vel[0]);
  s.vz_m_s = double(ag->vel[2]);
  s.active = ag->active;
  s.has_target = m.has_target;
  return s;
}

int NavCrowd::size() const {
  int n = 0;
  for (const auto& m : impl_->members) n += m.active ? 1 : 0;
  return n;
}

}  // namespace terrane
