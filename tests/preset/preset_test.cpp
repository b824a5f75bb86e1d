// The typed preset: every section parsed once into its structs; the schema tables drive parsing,
// limits, --set and the messages; --set reaches every field and explains a path that does not
// exist. (Graph-section syntax is tested in tests/graph.)
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "terrane/preset.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

Preset with(const std::string& name, std::vector<std::string> set) {
  return load_preset(name, set);
}

// A value strictly inside a table entry's range (integers: an integer), different from `now`.
double inside(const Range& r, bool integer, double now) {
  const double lo = std::isfinite(r.lo) ? r.lo : -10.0;
  const double hi = std::isfinite(r.hi) ? r.hi : lo + 20.0;
  double v = lo + (hi - lo) * 0.37;
  if (integer) v = std::floor(v) == lo && r.lo_open ? std::floor(v) + 1 : std::floor(v);
  if (v == now) v = integer ? (v + 1 <= hi ? v + 1 : v - 1) : lo + (hi - lo) * 0.61;
  return v;
}

// A value outside a table entry's range, or NaN when the range is unbounded on both sides.
double outside(const Range& r) {
  if (std::isfinite(r.hi)) return r.hi_open ? r.hi : r.hi + 1.0;
  if (std::isfinite(r.lo)) return r.lo_open ? r.lo : r.lo - 1.0;
  return std::nan("");
}

// For every scalar field of a table: --set <prefix>.<key>=<value inside> reaches the struct
// (read back through the table's own reference), and a value outside the range is refused
// with "<source>: <where>.<key> = <value> is outside the allowed range <range>".
template <class T>
void every_field_round_trips(const std::string& preset, const std::string& prefix,
                             const std::string& where, std::span<const Field<T>> table,
                             const std::function<T(const Preset&)>& get) {
  for (const Field<T>& f : table) {
    const std::string key(f.key);
    if (has_flag(f.flags, FieldFlag::unchecked)) continue;
    std::visit(
        [&](auto ref) {
          using M = std::remove_reference_t<decltype(ref(std::declval<T&>()))>;
          if constexpr (std::is_same_v<M, double> || std::is_same_v<M, int> ||
                        std::is_same_v<M, std::int64_t>) {
            constexpr bool integer = !std::is_same_v<M, double>;
            T base = get(load_preset(preset));
            const double v = inside(f.range, integer, double(ref(base)));
            const std::string text = integer ? std::to_string(std::int64_t(v)) : format_number(v);
            T got = get(with(preset, {prefix + "." + key + "=" + text}));
            EXPECT_EQ(double(ref(got)), v) << prefix << "." << key << "=" << text;
            if (has_flag(f.flags, FieldFlag::unbounded_null)) {
              T unbounded = get(with(preset, {prefix + "." + key + "=null"}));
              EXPECT_TRUE(std::isinf(double(ref(unbounded)))) << key;
              return;
            }
            const double bad = outside(f.range);
            if (std::isnan(bad)) return;
            const std::string bad_text =
                integer ? std::to_string(std::int64_t(bad)) : format_number(bad);
            const std::string msg =
                error_of([&] { (void)with(preset, {prefix + "." + key + "=" + bad_text}); });
            EXPECT_NE(msg.find(where + "." + key + " = " + bad_text +
                               " is outside the allowed range " + f.range.text(integer)),
                      std::string::npos)
                << msg;
          } else if constexpr (std::is_same_v<M, bool>) {
            T base = get(load_preset(preset));
            const bool v = !ref(base);
            T got = get(with(preset, {prefix + "." + key + "=" + (v ? "true" : "false")}));
            EXPECT_EQ(ref(got), v) << key;
          } else if constexpr (std::is_same_v<M, std::uint64_t>) {
            T got = get(with(preset, {prefix + "." + key + "=\"18446744073709551615\""}));
            EXPECT_EQ(ref(got), 18446744073709551615ull) << key;
          }
        },
        f.ref);
  }
}

TEST(TypedPreset, SectionsAreParsedOnce) {
  const Preset alpine = load_preset("alpine");
  ASSERT_EQ(alpine.post.size(), 2u);
  EXPECT_EQ(alpine.post[0].kind, RegionOpKind::thermal);
  EXPECT_EQ(alpine.post[1].kind, RegionOpKind::breach);
  EXPECT_EQ(alpine.post[1].breach.max_depth_m, 150.0);
  const Preset def = load_preset("default");
  ASSERT_EQ(def.post.size(), 2u);
  // No surface section: the built-in surface for the world (eight biomes, eight layers).
  EXPECT_EQ(def.surface.biomes.size(), 8u);
  EXPECT_EQ(def.surface.layers.size(), 8u);
  EXPECT_EQ(def.surface.sea_level_m, def.world.sea_level_m);
  const GraphSource g = def.generator();
  EXPECT_EQ(g.graph, &def.graph);
  EXPECT_EQ(g.seed, def.seed);
  EXPECT_EQ(g.source, "builtin preset 'default'");
}

TEST(TypedPreset, BuiltinNamesAreExactlyThePresetFiles) {
  EXPECT_EQ(builtin_preset_names(), (std::vector<std::string>{"default", "alpine", "islands",
                                                              "dunes", "canyons", "ranges"}));
}

TEST(TypedPreset, CanonicalJsonReparsesToTheSamePreset) {
  for (const std::string& name : builtin_preset_names()) {
    const Preset a = load_preset(name, std::vector<std::string>{"surface.blend.height_m=2.5"});
    const Preset b = parse_preset(a.canonical_json, a.source);
    EXPECT_EQ(b.canonical_json, a.canonical_json) << name;
    EXPECT_EQ(b.hash, a.hash) << name;
    EXPECT_EQ(b.surface.blend.height_m, 2.5) << name;
    EXPECT_EQ(b.post.size(), a.post.size()) << name;
  }
}

// --set reaches every field of every post operation kind through its schema table.
// A preset file with one operation of every kind that has a parameter table (the builtins need
// not use them all).
std::string post_fixture_path() {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "terrane_preset_test_post.json";
  std::ofstream(path) << R"({"name": "post_fixture", "graph": {"output": "h", "nodes": {)"
                         R"("h": {"type": "fbm", "frequency": 0.01}}},)"
                         R"("post": [{"op": "droplets"}, {"op": "thermal"},)"
                         R"({"op": "stream_power"}, {"op": "breach"}]})";
  return path.string();
}

TEST(SetOverrides, ReachEveryPostField) {
  const std::string fixture = post_fixture_path();
  every_field_round_trips<DropletParams>(fixture, "post.0", "post[0]", DropletParams::fields(),
                                         [](const Preset& p) { return p.post.at(0).droplets; });
  every_field_round_trips<ThermalParams>(fixture, "post.1", "post[1]", ThermalParams::fields(),
                                         [](const Preset& p) { return p.post.at(1).thermal; });
  every_field_round_trips<StreamPowerParams>(
      fixture, "post.2", "post[2]", StreamPowerParams::fields(),
      [](const Preset& p) { return p.post.at(2).stream_power; });
  every_field_round_trips<BreachParams>(fixture, "post.3", "post[3]", BreachParams::fields(),
                                        [](const Preset& p) { return p.post.at(3).breach; });
}

// --set reaches every scalar of the surface section, on presets that have none (objects on the
// way are created).
TEST(SetOverrides, ReachEverySurfaceField) {
  every_field_round_trips<ClimateParams>("default", "surface.climate", "surface.climate",
                                         ClimateParams::fields(),
                                         [](const Preset& p) { return p.surface.climate; });
  every_field_round_trips<BiomeBlend>("default", "surface.blend", "surface.blend",
                                      BiomeBlend::fields(),
                                      [](const Preset& p) { return p.surface.blend; });
  every_field_round_trips<SurfaceParams>("islands", "surface", "surface", SurfaceParams::fields(),
                                         [](const Preset& p) { return p.surface; });
  every_field_round_trips<NoiseParams>(
      "default", "surface.climate.temperature_noise", "surface.climate.temperature_noise",
      NoiseParams::fields(), [](const Preset& p) { return p.surface.climate.temperature_noise; });
  every_field_round_trips<WorldSettings>("dunes", "world", "world", WorldSettings::fields(),
                                         [](const Preset& p) { return p.world; });
}

TEST(SetOverrides, EntriesOfAGivenListAreReachable) {
  const std::string layers =
      R"(surface={"layers":[{"name":"rock"},{"name":"grass"}],)"
      R"("species":[{"name":"tree"},{"name":"bush","exclude":[{"species":"tree"}]}],)"
      R"("biomes":[{"name":"all","splat":{"grass":1},"scatter":{"tree":1,"bush":1}}]})";
  const Preset p =
      with("default",
           {layers, "surface.layers.1.slope_max_deg=30", "surface.species.1.exclude.0.distance_m=4",
            "surface.species.0.cluster_noise.octaves=5", "surface.biomes.0.height_min_m=10"});
  EXPECT_EQ(p.surface.layers.at(1).slope_max_deg, 30.0);
  EXPECT_EQ(p.surface.species.at(1).exclusions.at(0).distance_m, 4.0);
  EXPECT_EQ(p.surface.species.at(0).cluster_noise.octaves, 5);
  EXPECT_EQ(p.surface.biomes.at(0).height_min_m, 10.0);
  EXPECT_EQ(p.surface.rock_layer, 0);
}

TEST(SetOverrides, MissingPartsSayWhatIsMissingAndWhatExists) {
  const auto err = [](const std::string& name, const std::string& set) {
    return error_of([&] { (void)load_preset(name, std::vector<std::string>{set}); });
  };
  EXPECT_EQ(err("alpine", "post.5.talus_deg=1"),
            "builtin preset 'alpine': --set 'post.5.talus_deg=1': post.5: '5' is not an index of "
            "post, an array of 2");
  EXPECT_EQ(err("alpine", "post.0.talus=1"),
            "builtin preset 'alpine': --set 'post.0.talus=1': post.0.talus: no such field (did "
            "you mean 'talus_deg'?); fields here: op, talus_deg, strength, iterations");
  EXPECT_EQ(error_of([] {
              (void)load_preset("islands", std::vector<std::string>{"post=[]", "post.0.talus_deg=1"});
            }),
            "builtin preset 'islands': --set 'post.0.talus_deg=1': post.0: '0' is not an index of "
            "post, an array of 0");
  EXPECT_EQ(err("default", "surface.layers.0.name=x"),
            "builtin preset 'default': --set 'surface.layers.0.name=x': surface.layers: not set in "
            "the preset (the defaults apply), so it has no entry '0'; give the whole list, e.g. "
            "--set surface.layers=[...] (see docs/PRESETS.md)");
  const std::string climat = err("default", "surface.climat.lapse_rate_c_per_km=1");
  EXPECT_NE(climat.find("surface.climat: no such field (did you mean 'climate'?); fields here: "
                        "climate, blend, layers, species, biomes, rock_layer, rock_slope_deg, "
                        "rock_blend_deg"),
            std::string::npos)
      << climat;
  const std::string lapse = err("default", "surface.climate.lapse=1");
  EXPECT_NE(
      lapse.find("surface.climate.lapse: no such field (did you mean 'lapse_rate_c_per_km'?); "
                 "fields here: temperature_noise, "
                 "moisture_noise, temperature_mean_c"),
      std::string::npos)
      << lapse;
  EXPECT_EQ(err("default", "world.size.x=1"),
            "builtin preset 'default': --set 'world.size.x=1': world.size.x: world.size is "
            "integer 1025, which has no field 'x'");
}

TEST(SetOverrides, OutOfRangeNamesSourcePathValueAndRange) {
  EXPECT_EQ(error_of([] { (void)with("alpine", {"post.0.strength=0"}); }),
            "builtin preset 'alpine': post[0].strength = 0 is outside the allowed range (0, 1]");
  EXPECT_EQ(error_of([] { (void)with("default", {"surface.blend.height_m=-1"}); }),
            "builtin preset 'default': surface.blend.height_m = -1 is outside the allowed range "
            "(0, 100000]");
  EXPECT_EQ(error_of([] { (void)with("default", {"world.cell_size_m=0"}); }),
            "builtin preset 'default': world.cell_size_m = 0 is outside the allowed range "
            "(0, 10000]");
  EXPECT_EQ(error_of([] { (void)with("default", {"world.size=70000"}); }),
            "builtin preset 'default': world.size = 70000 is outside the allowed range 1..65536");
}

TEST(SetOverrides, UnknownKeysInEverySectionSuggestTheClosest) {
  const auto err = [](const std::string& set) {
    return error_of([&] { (void)load_preset("default", std::vector<std::string>{set}); });
  };
  EXPECT_EQ(err(R"(post=[{"op":"thermal","talus":3}])"),
            "builtin preset 'default': post[0].talus: unknown key 'talus' in a 'thermal' operation "
            "(did you mean 'talus_deg'?); allowed keys: op, talus_deg, strength, iterations");
  EXPECT_NE(err(R"(surface={"climate":{"lapse_rate":1}})")
                .find("surface.climate.lapse_rate: unknown key 'lapse_rate' in surface.climate "
                      "(did you mean 'lapse_rate_c_per_km'?)"),
            std::string::npos);
  EXPECT_NE(err(R"(world={"cell_size":2})")
                .find("world.cell_size: unknown key 'cell_size' in world (did you mean "
                      "'cell_size_m'?)"),
            std::string::npos);
}

TEST(Schema, OneFormatterAndOneRangeCheck) {
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(1e-7), "1e-07");
  EXPECT_EQ(format_number(0.1), "0.1");
  EXPECT_EQ(format_number(2e6), "2000000");
  EXPECT_EQ(format_number(-0.0), "-0");
  EXPECT_EQ(format_number(2e12), "2e+12");
  EXPECT_EQ(format_number(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_number(std::nan("")), "nan");
  EXPECT_EQ(Range::open_hi(0, 90).text(), "[0, 90)");
  EXPECT_EQ(Range::closed(1, 16).text(true), "1..16");
  EXPECT_FALSE(Range::open_lo(0, 1).contains(0.0));
  EXPECT_FALSE(Range::any().contains(std::numeric_limits<double>::infinity()));
  EXPECT_EQ(error_of([] { check_range("a.b", 2.0, Range::open_hi(0, 2)); }),
            "a.b = 2 is outside the allowed range [0, 2)");
  EXPECT_EQ(error_of([] { check_range("a.n", std::int64_t{-1}, 0, 5); }),
            "a.n = -1 is outside the allowed range 0..5");
  const std::string_view names[] = {"talus_deg", "strength"};
  EXPECT_EQ(closest_name("strenght", names), "strength");
  EXPECT_EQ(closest_name("zzz", names), "");
  EXPECT_EQ(closest_name("talus", names), "talus_deg");
  EXPECT_EQ(join_names(names), "talus_deg, strength");
}


// Issue 12, defect 2: 10^5 nested '[' in the file, in a node field or through --set is refused
// while parsing (no stack overflow in reading, dumping or describing it).
TEST(JsonDepth, DeepNestingIsRefusedWhileParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string msg = "JSON nested deeper than 64 levels";
  const auto category_and_message = [](const auto& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(to_string(e.category())) + ": " + e.what();
    }
    return std::string("no error");
  };
  const std::string in_node = category_and_message([&] {
    (void)parse_preset(R"({"graph": {"output": "a", "nodes": {"a": {"type": "constant", "value": )" +
                           deep + "}}}}",
                       "deep.json");
  });
  EXPECT_EQ(in_node, "limit exceeded: deep.json: " + msg);
  const std::string via_set = category_and_message(
      [&] { (void)load_preset("default", std::vector<std::string>{"post=" + deep}); });
  EXPECT_EQ(via_set, "limit exceeded: builtin preset 'default': --set 'post=" + std::string(72, '[') +
                         "...': " + msg);
  // 64 levels are fine (the limit is on what parsing accepts, not on what sections mean).
  const std::string ok = std::string(63, '[') + std::string(63, ']');
  const std::string shallow = category_and_message(
      [&] { (void)load_preset("default", std::vector<std::string>{"description=" + ok}); });
  EXPECT_NE(shallow.find("description"), std::string::npos) << shallow;  // a type error, not depth
  EXPECT_EQ(shallow.find(msg), std::string::npos) << shallow;
}


// Issue 12, defect 4: only regular files of at most kMaxPresetFileBytes are read; a directory,
// /dev/zero, a FIFO or an oversized file is refused at once, naming what it is.
TEST(PresetFile, NonRegularAndOversizedFilesAreRefusedBeforeReading) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("terrane_preset_file_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_EQ(error_of([&] { (void)load_preset(dir.string()); }),
            dir.string() + ": not a regular file (a directory); a preset is a JSON file");
  if (std::filesystem::exists("/dev/zero")) {
    EXPECT_EQ(error_of([] { (void)load_preset("/dev/zero"); }),
              "/dev/zero: not a regular file (a device, FIFO or socket); a preset is a JSON file");
  }
  const std::filesystem::path fifo = dir / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { (void)load_preset(fifo.string()); }),
            fifo.string() + ": not a regular file (a device, FIFO or socket); a preset is a JSON file");
  const std::filesystem::path big = dir / "big.json";
  std::ofstream(big) << "{}";
  std::filesystem::resize_file(big, kMaxPresetFileBytes + 1);
  EXPECT_EQ(error_of([&] { (void)load_preset(big.string()); }),
            big.string() + ": 4194305 bytes; a preset file may have at most 4194304 bytes (4 MiB)");
  std::filesystem::remove_all(dir);
}


// Issue 12, defect 4: parsing is linear and its limits are checked while parsing: a document of
// 300,000 empty objects is refused at the value limit, a 60,000-node graph (2.7 MB, within the
// file cap) at the node limit after a linear parse (it took 94 s with nlohmann's callback
// parser, which rescans the parent at every object end; 0.2 s now). Duplicate keys are found
// with their path, array indices included.
TEST(PresetLimits, ValuesAreBoundedWhileParsingAndNodesAfter) {
  std::string empties = R"({"graph": {"output": "a", "nodes": {"a": {"type": "constant"}}}, "x": [)";
  for (int i = 0; i < 300000; ++i) empties += i ? ",{}" : "{}";
  empties += "]}";
  EXPECT_EQ(error_of([&] { (void)parse_preset(empties, "empties.json"); }),
            "empties.json: JSON holds more than 262144 values");
  std::string nodes = R"({"graph": {"output": "n0", "nodes": {)";
  for (int i = 0; i < 60000; ++i) {
    if (i != 0) nodes += ',';
    nodes += "\"n";
    nodes += std::to_string(i);
    nodes += R"(": {"type": "constant", "value": 1})";
  }
  nodes += "}}}";
  EXPECT_EQ(error_of([&] { (void)parse_preset(nodes, "nodes.json"); }),
            "nodes.json: graph.nodes: 60000 nodes is more than the limit of 1024");
  EXPECT_EQ(error_of([] {
              (void)parse_preset(
                  R"({"graph": {"output": "a", "nodes": {"a": {"type": "constant"}}}, "post": [{"kind": "thermal"}, {"kind": "thermal", "kind": "breach"}]})",
                  "dup.json");
            }),
            "dup.json: post[1].kind: duplicate key 'kind'");
}


// A message is one line even when it echoes input with control characters: a key holding a
// newline (the fuzzer's find, "freque\ncy" in a ridged node) and a node name with a tab come
// back escaped, so a log line or the CLI's "error: ..." stays one line.
TEST(PresetErrors, EchoedKeysWithControlCharactersStayOnOneLine) {
  const std::string key = error_of([] {
    (void)parse_preset(
        R"({"graph": {"output": "g", "nodes": {"g": {"type": "ridged", "freque\ncy": 0.01}}}})",
        "key.json");
  });
  EXPECT_EQ(key.find('\n'), std::string::npos) << key;
  EXPECT_NE(key.find("key.json: graph.nodes.g.freque\\ncy: unknown key 'freque\\ncy'"),
            std::string::npos)
      << key;
  const std::string name = error_of([] {
    (void)parse_preset(
        R"({"graph": {"output": "a\tb\u0001", "nodes": {"g": {"type": "constant"}}}})",
        "name.json");
  });
  EXPECT_EQ(name.find('\t'), std::string::npos) << name;
  EXPECT_NE(name.find("a\\tb\\x01"), std::string::npos) << name;
  EXPECT_EQ(one_line_message("x\ny\rz\x7f\xc3\xa9"), "x\\ny\\rz\\x7f\xc3\xa9");
}


// Issue 12, defect 6: nlohmann's own exceptions never leak raw: a number a double cannot hold
// and a --set string that is not UTF-8 are named with their source.
TEST(PresetMessages, JsonLibraryErrorsNameTheSource) {
  EXPECT_EQ(error_of([] {
              (void)parse_preset(R"({"seed": 1e400, "graph": {"output": "a", "nodes": {"a": {"type": "constant"}}}})",
                                 "big.json");
            }),
            "big.json: number overflow parsing '1e400'");
  const std::string bad_utf8 = error_of(
      [] { (void)load_preset("islands", std::vector<std::string>{"description=a\xff"}); });
  EXPECT_EQ(bad_utf8.find("[json.exception"), std::string::npos) << bad_utf8;
  EXPECT_NE(bad_utf8.find("builtin preset 'islands': --set 'description="), std::string::npos);
  EXPECT_NE(bad_utf8.find("': the value is not valid UTF-8 text"), std::string::npos) << bad_utf8;
}

}  // namespace
}  // namespace terrane
