// GLSL 3.30 core sources of terrane-view's programs.
//
// Positions reach the GPU relative to a reference point R near the camera that lies on a
// 4096 m lattice: a chunk's origin minus R is an exact float (integer metres below 2^24 for any
// view) and its local vertex positions are exact too, so (origin - R) + local is the same float
// for a vertex two chunks share, and subtracting the camera's offset from R (the same uniform
// for every chunk) keeps it identical: shared border vertices rasterise bit-identically (no
// sparkle cracks), and a camera 1e8 m from the origin renders without jitter.
#pragma once

namespace terrane::view::shaders {

// Inserted after the #version line of every program (build_program): the fog all of them share.
// Exponential fog of density u_fog_density (0: none) that also reaches the horizon colour at the
// view distance, where the streamed world ends (the density is 1.5 / view distance).
//
// It also holds block_covered(), with which the programs of the height-field world (terrain,
// scatter, sea, lakes and rivers) leave out what the block world (--blocks) draws instead: the
// block renderer's cover mask (block_renderer.hpp) has one texel per chunk column around the
// camera, bit r set where chunk row r (from u_block_base_y) is on the GPU. A point is covered
// when it lies within a radius of the camera (horizontally: u_block_inner_m for the ground,
// u_block_outer_m for trees) and the chunks at its height +- u_block_margin_m are all there;
// beyond the inner radius both grounds are drawn (the overlap band, see block_renderer.cpp).
inline constexpr const char* kCommon = R"(
float fog_factor(float dist, float density) {
  if (density <= 0.0) return 0.0;
  return max(1.0 - exp(-dist * density), smoothstep(0.75, 1.0, dist * density / 1.5));
}
uniform usampler2D u_block_mask;
uniform int u_block_on;          // 0: no block world, nothing is covered
uniform vec2 u_block_origin;     // x, z of mask texel (0, 0)'s corner - reference point [m]
uniform float u_block_chunk_m;   // chunk side [m]
uniform float u_block_base_y;    // bottom of mask row 0 (world y) [m]
uniform float u_block_inner_m;   // the ground is covered within this horizontal distance
uniform float u_block_outer_m;   // the block view distance: scatter is covered within it
uniform float u_block_margin_m;
// p: position relative to the reference point; dist_xz: horizontal distance to the camera;
// radius: u_block_inner_m (ground) or u_block_outer_m (scatter: block trees end there).
bool block_covered(vec3 p, float dist_xz, float radius) {
  if (u_block_on == 0 || dist_xz > radius) return false;
  ivec2 c = ivec2(floor((p.xz - u_block_origin) / u_block_chunk_m));
  ivec2 size = textureSize(u_block_mask, 0);
  if (c.x < 0 || c.y < 0 || c.x >= size.x || c.y >= size.y) return false;
  int r0 = int(floor((p.y - u_block_margin_m - u_block_base_y) / u_block_chunk_m));
  int r1 = int(floor((p.y + u_block_margin_m - u_block_base_y) / u_block_chunk_m));
  if (r0 < 0 || r1 > 31) return false;
  uint need = (r1 - r0 >= 31 ? 0xFFFFFFFFu : ((1u << uint(r1 - r0 + 1)) - 1u)) << uint(r0);
  return (texelFetch(u_block_mask, c, 0).r & need) == need;
}
)";

inline constexpr const char* kTerrainVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in float a_morph;
layout(location = 3) in vec4 a_colour;  // splat colour; a = dominant splat layer / 255
layout(location = 4) in vec4 a_biome;   // dominant biome's colour; a = its index / 255
uniform mat4 u_view_proj;
uniform vec3 u_origin_rel;   // chunk origin - reference point (exact)
uniform vec3 u_cam_offset;   // camera - reference point
uniform vec2 u_origin_mod;   // chunk origin modulo 512 m (detail noise, seamless)
uniform vec2 u_morph;        // geomorph start and end distance [m]
uniform int u_pin;           // bit e: edge e borders a finer chunk, whose stitch needs it unmorphed
uniform int u_cells;
uniform float u_grow;        // growth animation: 0 = flat at sea level, 1 = full height
uniform float u_sea;
out vec3 v_rel;
out vec3 v_normal;
out vec4 v_colour;
out vec3 v_biome;
out vec2 v_cell;
out vec2 v_detail;
out float v_height;
void main() {
  int n1 = u_cells + 1;
  int i = gl_VertexID % n1;
  int j = gl_VertexID / n1;
  vec3 rel = (u_origin_rel + a_pos) - u_cam_offset;
  float k = clamp((length(rel.xz) - u_morph.x) / (u_morph.y - u_morph.x), 0.0, 1.0);
  bool pinned = ((u_pin & 1) != 0 && i == 0) || ((u_pin & 2) != 0 && i == u_cells) ||
                ((u_pin & 4) != 0 && j == 0) || ((u_pin & 8) != 0 && j == u_cells);
  if (pinned) k = 0.0;
  float y = mix(a_pos.y, a_morph, k);
  y = u_sea + (y - u_sea) * u_grow;
  rel.y = (u_origin_rel.y + y) - u_cam_offset.y;
  v_rel = rel;
  v_normal = normalize(vec3(a_normal.x * u_grow, a_normal.y, a_normal.z * u_grow));
  v_colour = a_colour;
  v_biome = a_biome.rgb;
  v_cell = vec2(float(i), float(j));
  v_detail = u_origin_mod + a_pos.xz;
  v_height = y;
  gl_Position = u_view_proj * vec4(rel, 1.0);
}
)";

inline constexpr const char* kTerrainFragment = R"(#version 330 core
in vec3 v_rel;
in vec3 v_normal;
in vec4 v_colour;
in vec3 v_biome;
in vec2 v_cell;
in vec2 v_detail;
in float v_height;
uniform vec3 u_sun;
uniform vec3 u_fog_colour;
uniform float u_fog_density;  // 0 = no fog
uniform int u_overlay;        // 0 none, 1 lod, 2 chunk borders, 3 slope classes, 4 layer ids,
                              // 5 biomes, 9 wireframe lines (flat dark)
uniform vec3 u_lod_colour;
uniform float u_walkable_deg;
uniform int u_cells;
uniform float u_clip_m;       // > 0: nothing beyond this horizontal distance (crack tests)
uniform vec3 u_cam_offset;
out vec4 o_colour;
vec3 layer_colour(float id) {
  float h = fract(id * 0.618034 + 0.13);
  return clamp(abs(fract(h + vec3(0.0, 0.667, 0.333)) * 6.0 - 3.0) - 1.0, 0.0, 1.0) * 0.8 + 0.1;
}
void main() {
  if (u_clip_m > 0.0 && length(v_rel.xz) > u_clip_m) discard;
  if (block_covered(v_rel + u_cam_offset, length(v_rel.xz), u_block_inner_m)) discard;
  if (u_overlay == 9) {
    o_colour = vec4(0.05, 0.05, 0.05, 1.0);
    return;
  }
  vec3 n = normalize(v_normal);
  vec3 base = v_colour.rgb;
  // Procedural detail: a few sines of world position, periodic in 512 m (seamless).
  // Wavelengths of 40 to 100 m, faded out with distance before they alias.
  vec2 p = v_detail * (6.2831853 / 512.0);
  float d = sin(p.x * 11.0 + 2.0 * sin(p.y * 5.0)) * sin(p.y * 13.0 + 2.0 * sin(p.x * 7.0));
  base *= 1.0 + 0.08 * d * exp(-length(v_rel) / 1500.0);
  float slope = degrees(acos(clamp(n.y, -1.0, 1.0)));
  if (u_overlay == 1) {
    base = mix(base, u_lod_colour, 0.65);
  } else if (u_overlay == 3) {
    vec3 c = slope < 15.0 ? vec3(0.2, 0.7, 0.25)
           : slope < 30.0 ? vec3(0.75, 0.8, 0.2)
           : slope < u_walkable_deg ? vec3(0.95, 0.55, 0.15) : vec3(0.85, 0.15, 0.15);
    base = c;
  } else if (u_overlay == 4) {
    base = layer_colour(floor(v_colour.a * 255.0 + 0.5));
  } else if (u_overlay == 5) {
    base = v_biome;
  }
  float diffuse = max(dot(n, u_sun), 0.0);
  float sky = 0.5 + 0.5 * n.y;
  vec3 lit = base * (0.28 * sky + 0.9 * diffuse);
  if (u_overlay == 2) {
    vec2 e = min(v_cell, vec2(float(u_cells)) - v_cell);
    vec2 w = fwidth(v_cell) * 1.5;
    if (e.x < w.x || e.y < w.y) lit = vec3(1.0, 0.9, 0.1);
  }
  lit = mix(lit, u_fog_colour, fog_factor(length(v_rel), u_fog_density));
  o_colour = vec4(lit, 1.0);
}
)";

// Full-screen triangle: sky gradient and sun from the view direction.
inline constexpr const char* kSkyVertex = R"(#version 330 core
uniform mat4 u_inv_view_proj;
out vec3 v_dir;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2)) * 2.0 - 1.0;
  vec4 w = u_inv_view_proj * vec4(p, 1.0, 1.0);
  v_dir = w.xyz / w.w;
  gl_Position = vec4(p, 1.0, 1.0);
}
)";

inline constexpr const char* kSkyFragment = R"(#version 330 core
in vec3 v_dir;
uniform vec3 u_sun;
uniform vec3 u_fog_colour;
out vec4 o_colour;
void main() {
  vec3 d = normalize(v_dir);
  vec3 zenith = vec3(0.22, 0.42, 0.78);
  vec3 c = mix(u_fog_colour, zenith, pow(clamp(d.y, 0.0, 1.0), 0.45));
  if (d.y < 0.0) c = u_fog_colour;
  float s = max(dot(d, u_sun), 0.0);
  c += vec3(1.0, 0.9, 0.7) * (pow(s, 600.0) * 2.0 + pow(s, 12.0) * 0.15);
  o_colour = vec4(c, 1.0);
}
)";

// Sea: a disc of quads at sea level around the camera (camera-relative positions).
inline constexpr const char* kWaterVertex = R"(#version 330 core
layout(location = 0) in vec2 a_xz;   // unit disc
uniform mat4 u_view_proj;
uniform float u_radius;
uniform float u_height_rel;          // sea level - camera height
out vec3 v_rel;
void main() {
  v_rel = vec3(a_xz.x * u_radius, u_height_rel, a_xz.y * u_radius);
  gl_Position = u_view_proj * vec4(v_rel, 1.0);
}
)";

inline constexpr const char* kWaterFragment = R"(#version 330 core
in vec3 v_rel;
uniform vec3 u_sun;
uniform vec3 u_fog_colour;
uniform float u_fog_density;
uniform vec3 u_cam_offset;
out vec4 o_colour;
void main() {
  if (block_covered(v_rel + u_cam_offset, length(v_rel.xz), u_block_inner_m)) discard;
  vec3 v = normalize(-v_rel);
  vec3 n = vec3(0.0, 1.0, 0.0);
  float fresnel = 0.04 + 0.96 * pow(1.0 - max(v.y, 0.0), 5.0);
  vec3 deep = vec3(0.03, 0.16, 0.26);
  vec3 sky = mix(u_fog_colour, vec3(0.22, 0.42, 0.78), 0.5);
  vec3 c = mix(deep, sky, fresnel);
  vec3 h = normalize(v + u_sun);
  c += vec3(1.0, 0.9, 0.7) * pow(max(dot(n, h), 0.0), 400.0) * 1.5;
  float f = fog_factor(length(v_rel), u_fog_density);
  c = mix(c, u_fog_colour, f);
  o_colour = vec4(c, mix(0.82, 1.0, f));
}
)";

// Lakes and rivers of the water layer: positions relative to the region's origin (a lattice
// point, so origin - reference is exact like a chunk's); w = 0 lake, 1 river.
inline constexpr const char* kSheetVertex = R"(#version 330 core
layout(location = 0) in vec4 a_pos;
uniform mat4 u_view_proj;
uniform vec3 u_origin_rel;
uniform vec3 u_cam_offset;
out vec3 v_rel;
out float v_river;
void main() {
  v_rel = (u_origin_rel + a_pos.xyz) - u_cam_offset;
  v_river = a_pos.w;
  gl_Position = u_view_proj * vec4(v_rel, 1.0);
}
)";

inline constexpr const char* kSheetFragment = R"(#version 330 core
in vec3 v_rel;
in float v_river;
uniform vec3 u_sun;
uniform vec3 u_fog_colour;
uniform float u_fog_density;
uniform vec3 u_cam_offset;
out vec4 o_colour;
void main() {
  if (block_covered(v_rel + u_cam_offset, length(v_rel.xz), u_block_inner_m)) discard;
  vec3 v = normalize(-v_rel);
  float fresnel = 0.04 + 0.96 * pow(1.0 - max(v.y, 0.0), 5.0);
  vec3 deep = mix(vec3(0.05, 0.20, 0.30), vec3(0.16, 0.34, 0.42), v_river);
  vec3 c = mix(deep, mix(u_fog_colour, vec3(0.22, 0.42, 0.78), 0.5), fresnel);
  vec3 h = normalize(v + u_sun);
  c += vec3(1.0, 0.9, 0.7) * pow(max(h.y, 0.0), 400.0) * 1.2;
  float f = fog_factor(length(v_rel), u_fog_density);
  o_colour = vec4(mix(c, u_fog_colour, f), mix(0.85, 1.0, f));
}
)";

// Scatter instances: one small mesh per species kind, instanced.
inline constexpr const char* kScatterVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_colour;
layout(location = 3) in vec3 i_pos;     // relative to the chunk origin
layout(location = 4) in vec3 i_shape;   // yaw [rad], scale_xz, scale_y
uniform mat4 u_view_proj;
uniform vec3 u_origin_rel;
uniform vec3 u_cam_offset;
uniform float u_grow;
uniform float u_sea;
uniform float u_reach;  // instances shrink away over the last fifth of the scatter distance
out vec3 v_rel;
out vec3 v_normal;
out vec3 v_colour;
void main() {
  float c = cos(i_shape.x), s = sin(i_shape.x);
  vec3 p = vec3(a_pos.x * i_shape.y, a_pos.y * i_shape.z, a_pos.z * i_shape.y);
  vec3 base = vec3(i_pos.x, u_sea + (i_pos.y - u_sea) * u_grow, i_pos.z);
  vec3 base_rel = (u_origin_rel + base) - u_cam_offset;
  float fade = 1.0 - smoothstep(0.8 * u_reach, u_reach, length(base_rel.xz));
  // The block world has its own trees: an instance standing on covered ground is collapsed.
  vec3 foot = base_rel + u_cam_offset + vec3(0.0, 1.0, 0.0);
  if (block_covered(foot, length(base_rel.xz), u_block_outer_m)) fade = 0.0;
  p = vec3(c * p.x + s * p.z, p.y, -s * p.x + c * p.z) * (u_grow * fade);
  vec3 rel = (u_origin_rel + base) - u_cam_offset + p;
  v_rel = rel;
  v_normal = vec3(c * a_normal.x + s * a_normal.z, a_normal.y, -s * a_normal.x + c * a_normal.z);
  v_colour = a_colour;
  gl_Position = u_view_proj * vec4(rel, 1.0);
}
)";

inline constexpr const char* kScatterFragment = R"(#version 330 core
in vec3 v_rel;
in vec3 v_normal;
in vec3 v_colour;
uniform vec3 u_sun;
uniform vec3 u_fog_colour;
uniform float u_fog_density;
out vec4 o_colour;
void main() {
  vec3 n = normalize(v_normal);
  vec3 lit = v_colour * (0.3 * (0.5 + 0.5 * n.y) + 0.85 * max(dot(n, u_sun), 0.0));
  lit = mix(lit, u_fog_colour, fog_factor(length(v_rel), u_fog_density));
  o_colour = vec4(lit, 1.0);
}
)";

// Block chunks (block_renderer.cpp), by vertex pulling: one instance per packed quad (the
// library's PackedQuad as two 32-bit halves), 6 vertices each from gl_VertexID. Positions are
// chunk-corner relative like the terrain's (u_origin_rel exact for block sizes of whole or
// binary-fraction metres), so the quads of neighbouring chunks meet without cracks.
inline constexpr const char* kBlockVertex = R"(#version 330 core
layout(location = 0) in uvec2 a_quad;  // PackedQuad bits 0..31, 32..63
uniform mat4 u_view_proj;
uniform vec3 u_origin_rel;  // the chunk's minimum corner - reference point [m]
uniform vec3 u_cam_offset;
uniform float u_block_m;
uniform sampler2D u_palette;  // 256 ids a row: sRGB colour, alpha by kind
uniform int u_ao_mode;  // 0 none, 1 baked into the quads, 2 from the chunk's occupancy
out vec3 v_rel;
out vec3 v_local;  // position in the chunk's blocks (occupancy AO)
flat out vec3 v_normal;
flat out uint v_face;
out vec4 v_colour;
out float v_ao;
// Corners of the two triangles: split along c0-c2, or along c1-c3 (second half).
const int kCorner[12] = int[12](0, 1, 2, 0, 2, 3, 0, 1, 3, 1, 2, 3);
// The library's AO factors (kBlockAoFactor), applied to the sRGB values every program here
// shades in (as block games do; in linear light, like the GLB export, they would look weaker).
const float kAo[4] = float[4](1.0, 0.8, 0.65, 0.5);
void main() {
  uint lo = a_quad.x, hi = a_quad.y;
  vec3 p = vec3(float(lo & 63u), float((lo >> 6) & 63u), float((lo >> 12) & 63u));
  float w = float((lo >> 18) & 63u) + 1.0, h = float((lo >> 24) & 63u) + 1.0;
  uint face = (lo >> 30) | ((hi & 1u) << 2);
  uint block = (hi >> 1) & 0xFFFFu;
  uint ao = (hi >> 17) & 0xFFu;
  int axis = int(face >> 1);
  bool positive = (face & 1u) == 0u;
  // The face's (u, v) axes: (z, y) for x faces, (x, z) for y faces, (x, y) for z faces.
  vec3 U = axis == 0 ? vec3(0.0, 0.0, 1.0) : vec3(1.0, 0.0, 0.0);
  vec3 V = axis == 1 ? vec3(0.0, 0.0, 1.0) : vec3(0.0, 1.0, 0.0);
  vec3 A = axis == 0 ? vec3(1.0, 0.0, 0.0) : axis == 1 ? vec3(0.0, 1.0, 0.0) : vec3(0.0, 0.0, 1.0);
  vec3 n = positive ? A : -A;
  if (positive) p += A;  // a face toward +axis lies on the block's far side
  int o[4] = int[4](int(ao & 3u), int((ao >> 2) & 3u), int((ao >> 4) & 3u), int((ao >> 6) & 3u));
  // Counter-clockwise seen from outside: c0 c1 c2 turns about cross(U, V); flip where that
  // points inwards.
  int k = gl_VertexID;
  if (dot(cross(U, V), n) < 0.0 && k % 3 != 0) k += (k % 3 == 1) ? 1 : -1;
  // Split along the diagonal whose corners are less occluded: AO then interpolates the same
  // whichever way the quad is turned.
  int c = kCorner[(o[0] + o[2] > o[1] + o[3] ? 6 : 0) + k];
  float su = (c == 1 || c == 2) ? 1.0 : 0.0, sv = c >= 2 ? 1.0 : 0.0;
  vec3 local = p + U * (su * w) + V * (sv * h);
  v_local = local;
  v_face = face;
  v_rel = (u_origin_rel + local * u_block_m) - u_cam_offset;
  // Greedy quads meet in T-junctions (a long quad's edge against several short ones), where
  // rasterisation can leave pixel-sized cracks: each quad grows by about a tenth of a pixel
  // in its plane (1.5e-4 of the distance), which fills them and shows nowhere.
  float grow = 1.5e-4 * length(v_rel);
  v_rel += (U * (2.0 * su - 1.0) + V * (2.0 * sv - 1.0)) * grow;
  v_normal = n;
  v_colour = texelFetch(u_palette, ivec2(int(block & 255u), int(block >> 8)), 0);
  v_ao = u_ao_mode == 1 ? kAo[o[c]] : 1.0;
  gl_Position = u_view_proj * vec4(v_rel, 1.0);
}
)";

inline constexpr const char* kBlockFragment = R"(#version 330 core
in vec3 v_rel;
in vec3 v_local;
flat in vec3 v_normal;
flat in uint v_face;
in vec4 v_colour;
in float v_ao;
uniform int u_ao_mode;
// The chunk's padded opaque column masks (BlockChunkResident::occupancy): texel (x, z) holds
// bits 0..31 (r) and 32..63 (g) of column z * P + x; chunk block (x, y, z) is bit y + 1 of
// texel (x + 1, z + 1).
uniform usampler2D u_occupancy;
const float kAoFactor[4] = float[4](1.0, 0.8, 0.65, 0.5);
bool solid(ivec3 b) {
  ivec3 q = b + ivec3(1);
  uvec2 column = texelFetch(u_occupancy, q.xz, 0).rg;
  uint word = q.y < 32 ? column.r : column.g;
  return ((word >> uint(q.y & 31)) & 1u) != 0u;
}
// The library's per-vertex AO (side, side, corner in the layer in front of the face, 3 where
// both sides are solid) at the four corners of the face under this fragment, interpolated
// bilinearly: the same values at every block corner as the baked quads, whatever the merge.
float occupancy_ao() {
  int axis = int(v_face >> 1u);
  bool positive = (v_face & 1u) == 0u;
  ivec3 A = axis == 0 ? ivec3(1, 0, 0) : axis == 1 ? ivec3(0, 1, 0) : ivec3(0, 0, 1);
  ivec3 U = axis == 0 ? ivec3(0, 0, 1) : ivec3(1, 0, 0);
  ivec3 V = axis == 1 ? ivec3(0, 0, 1) : ivec3(0, 1, 0);
  float u = dot(v_local, vec3(U)), v = dot(v_local, vec3(V));
  int plane = int(floor(dot(v_local, vec3(A)) + 0.5));
  int iu = int(floor(u)), iv = int(floor(v));
  ivec3 front = A * (positive ? plane : plane - 1) + U * iu + V * iv;
  float c[4];
  for (int k = 0; k < 4; ++k) {
    ivec3 du = U * ((k & 1) == 0 ? -1 : 1), dv = V * ((k & 2) == 0 ? -1 : 1);
    bool s1 = solid(front + du), s2 = solid(front + dv), corner = solid(front + du + dv);
    int o = (s1 && s2) ? 3 : int(s1) + int(s2) + int(corner);
    c[k] = kAoFactor[o];
  }
  float fu = clamp(u - float(iu), 0.0, 1.0), fv = clamp(v - float(iv), 0.0, 1.0);
  return mix(mix(c[0], c[1], fu), mix(c[2], c[3], fu), fv);
}
uniform vec3 u_sun;
uniform vec3 u_fog_colour;
uniform float u_fog_density;
uniform float u_reach_m;  // nothing beyond this horizontal distance: the block view's edge
uniform int u_wire;       // 1: wireframe lines (flat dark)
out vec4 o_colour;
void main() {
  float dist = length(v_rel.xz);
  if (dist > u_reach_m) discard;
  if (u_wire == 1) {
    o_colour = vec4(0.05, 0.05, 0.05, 1.0);
    return;
  }
  vec3 n = v_normal;
  float diffuse = max(dot(n, u_sun), 0.0);
  // Near the terrain's light on top faces (0.85 against 0.93), with more ambient: a block
  // world is mostly walls, and walls facing away from the sun would be black under the
  // terrain's 0.14 (sides also a little darker than tops, as block games shade them).
  float ao = u_ao_mode == 2 ? occupancy_ao() : v_ao;
  vec3 lit = v_colour.rgb * ao * (0.45 + 0.55 * diffuse) * (0.85 + 0.15 * n.y);
  float alpha = v_colour.a;
  if (alpha < 0.7) {
    // Liquid: shaded as the sea disc (kWaterFragment) with the block's colour for its depth,
    // so block water meets the sea beyond the block view without a change of colour.
    vec3 v = normalize(-v_rel);
    float fresnel = 0.04 + 0.96 * pow(1.0 - abs(dot(v, n)), 5.0);
    vec3 sky_colour = mix(u_fog_colour, vec3(0.22, 0.42, 0.78), 0.5);
    lit = mix(v_colour.rgb * 0.35, sky_colour, fresnel);
    vec3 hv = normalize(v + u_sun);
    lit += vec3(1.0, 0.9, 0.7) * pow(max(dot(n, hv), 0.0), 400.0) * 1.5;
    alpha = 0.82;
  }
  float f = fog_factor(length(v_rel), u_fog_density);
  o_colour = vec4(mix(lit, u_fog_colour, f), mix(alpha, 1.0, f));
}
)";

// The navigation overlay (nav_overlay.cpp): navmesh polygons, their edges, the path and the
// crowd. Positions are relative to the navmesh origin, a tile corner (whole metres for the
// default tiles), so origin - reference is exact like a chunk's origin; colours per vertex.
inline constexpr const char* kNavVertex = R"(#version 330 core
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_colour;
uniform mat4 u_view_proj;
uniform vec3 u_origin_rel;  // navmesh origin - reference point
uniform vec3 u_cam_offset;
out vec3 v_rel;
out vec4 v_colour;
void main() {
  v_rel = (u_origin_rel + a_pos) - u_cam_offset;
  v_colour = a_colour;
  gl_Position = u_view_proj * vec4(v_rel, 1.0);
}
)";

inline constexpr const char* kNavFragment = R"(#version 330 core
in vec3 v_rel;
in vec4 v_colour;
uniform vec3 u_fog_colour;
uniform float u_fog_density;
uniform float u_alpha;  // times the vertex's alpha
out vec4 o_colour;
void main() {
  float f = fog_factor(length(v_rel), u_fog_density);
  o_colour = vec4(mix(v_colour.rgb, u_fog_colour, f), v_colour.a * u_alpha);
}
)";

}  // namespace terrane::view::shaders
