// The compiled form of a generator graph: a flat list of instructions over register buffers of
// one block of samples. Built by compile.cpp, run by evaluate.cpp.
#pragma once

#include <string>
#include <vector>

#include "terrane/graph.hpp"

namespace terrane {

enum class Op : unsigned char {
  noise,           // dst = samplers[table] at positions displaced by (dx, dz) registers
  warp,            // (dst, dst2) = displacement of context (dx, dz) + warps[table]
  add,             // dst = a + b
  sub,             // dst = a - b
  mul,             // dst = a * b
  min,             // dst = min(a, b)
  max,             // dst = max(a, b)
  abs,             // dst = |a|
  neg,             // dst = -a
  clamp,           // dst = clamp(a, p[0], p[1])
  scale_bias,      // dst = a * p[0] + p[1]
  pow,             // dst = sign(a) |a|^p[0]
  blend,           // dst = a + (b - a) * clamp(c, 0, 1)
  select,          // threshold p[0], falloff p[1], mask c
  curve,           // dst = curves[table](a)
  terrace,         // levels[table], sharpness p[0]
  radial_falloff,  // centre (p[0], p[1]), radius p[2], falloff p[3], displaced by (dx, dz)
  remap,           // dst = p[2] + (a - p[0]) * p[4], clamped to [p[5], p[6]] when flag
  input,           // dst = the caller's input field input_names[table] at the samples
  y,               // dst = the samples' world y (volume programs only)
};

struct Instr {
  Op op = Op::add;
  int dst = -1;                // output register
  int dst2 = -1;               // warp: z displacement register
  int dst3 = -1;               // warp in a volume: y displacement register
  int a = -1, b = -1, c = -1;  // input registers
  int dx = -1, dz = -1;        // displacement registers of the warp context (-1: none)
  int dy = -1;                 // volume programs: y displacement register of the context
  int table = -1;              // index into noises / warps / curves / level_sets
  bool flag = false;           // remap: clamp
  double p[7] = {0, 0, 0, 0, 0, 0, 0};
};

struct CompiledGraph::Program {
  WorldSettings world;
  std::vector<Instr> code;
  std::vector<std::pair<int, float>> constants;  // registers filled once per scratch buffer
  int register_count = 0;
  int output_register = -1;
  std::vector<NoiseParams> noises;  // seeds already combined with the preset seed
  std::vector<WarpParams> warps;
  std::vector<MonotoneCurve> curves;
  std::vector<std::vector<float>> level_sets;
  std::vector<std::string> input_names;  // Op::input tables; CompiledGraph::required_inputs()
  OutputMapping mapping = OutputMapping::world_heights;
  bool volume = false;  // compiled by compile_volume: evaluated over GridSpec3
};

}  // namespace terrane
