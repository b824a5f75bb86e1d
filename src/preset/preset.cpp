// Preset documents: JSON text -> overrides -> validated Preset; loading by builtin name or path.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "preset/json_reader.hpp"
#include "preset/preset_internal.hpp"

namespace terrane {
namespace preset_detail {

namespace {

// Builds the document from nlohmann's SAX events, in time linear in the text (nlohmann's
// callback parser rescans the enclosing container at every object end: quadratic), and
// checks while parsing what must not wait for the whole document:
//  - duplicate object keys, which nlohmann would silently resolve to the last one (a typo
//    magnet in hand-edited presets);
//  - nesting at most kMaxJsonDepth, so that nothing later (the sections' readers, dump(), the
//    messages' descriptions) recurses deeper;
//  - at most kMaxJsonValues values, so that memory stays proportional to a real preset.
class DocumentBuilder {
 public:
  explicit DocumentBuilder(std::string_view source) : source_(source) {}

  json take() { return std::move(root_); }

  bool null() { return add(json(nullptr)); }
  bool boolean(bool v) { return add(json(v)); }
  bool number_integer(json::number_integer_t v) { return add(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return add(json(v)); }
  bool number_float(json::number_float_t v, const std::string& /*text*/) { return add(json(v)); }
  bool string(json::string_t& v) { return add(json(std::move(v))); }
  bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) { return open(json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    if (f.container->contains(k)) {
      throw Error(ErrorCategory::parse,
                  std::string(source_) + ": " + path_to(k) + ": duplicate key '" + k + "'");
    }
    f.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    // Rethrown as its own type, so that parse_json_text reports the line and column.
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) throw *pe;
    if (const auto* oor = dynamic_cast<const json::out_of_range*>(&e)) throw *oor;
    throw Error(ErrorCategory::parse, std::string(source_) + ": " + e.what());
  }

 private:
  struct Frame {
    json* container;
    std::string key;  // the current member's key (objects)
  };

  // The dotted path of the member `k` of the innermost container, as messages print paths.
  std::string path_to(const std::string& k) const {
    std::string path;
    for (const Frame& fr : frames_) {
      if (&fr == &frames_.back()) break;
      path += fr.container->is_object() ? (path.empty() ? "" : ".") + fr.key
                                        : "[" + std::to_string(fr.container->size() - 1) + "]";
    }
    if (frames_.back().container->is_object()) return path + (path.empty() ? "" : ".") + k;
    return path;
  }

  void count_value() {
    if (++values_ <= kMaxJsonValues) return;
    throw Error(ErrorCategory::limit, std::string(source_) + ": JSON holds more than " +
                                          std::to_string(kMaxJsonValues) + " values");
  }

  // Stores v at the current position (the root, the current key, or the array's end); returns
  // where it now lives.
  json* place(json&& v) {
    count_value();
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.container->is_object()) return &((*f.container)[f.key] = std::move(v));
    f.container->push_back(std::move(v));
    return &f.container->back();
  }
  bool add(json&& v) {
    place(std::move(v));
    return true;
  }
  bool open(json&& empty) {
    if (frames_.size() >= std::size_t(kMaxJsonDepth)) {
      throw Error(ErrorCategory::limit, std::string(source_) + ": JSON nested deeper than " +
                                            std::to_string(kMaxJsonDepth) + " levels");
    }
    json* where = place(std::move(empty));
    frames_.push_back({where, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  std::string_view source_;
  json root_;
  std::vector<Frame> frames_;
  std::size_t values_ = 0;
};

}  // namespace

json parse_json_text(std::string_view text, std::string_view source) {
  try {
    DocumentBuilder builder(source);
    json::sax_parse(text.begin(), text.end(), &builder);
    return builder.take();
  } catch (const json::parse_error& e) {
    // e.byte is the 1-based offset of the byte where parsing stopped.
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    std::size_t line = 1, column = 1;
    for (std::size_t k = 0; k < end; ++k) {
      if (text[k] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    // Keep nlohmann's description, without its "[json.exception...] parse error at ...:" head.
    std::string what = e.what();
    const std::size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw Error(ErrorCategory::parse, std::string(source) + ": line " + std::to_string(line) +
                                          ", column " + std::to_string(column) +
                                          ": malformed JSON: " + what);
  } catch (const json::exception& e) {
    // Not a syntax error but a value nlohmann cannot hold (out_of_range.406: a number such as
    // 1e400 that overflows a double): named without nlohmann's "[json.exception...]" head.
    std::string what = e.what();
    if (const std::size_t close = what.find("] "); close != std::string::npos) {
      what = what.substr(close + 2);
    }
    throw Error(ErrorCategory::parse, std::string(source) + ": " + what);
  }
}

}  // namespace preset_detail

namespace preset_detail {

WorldSettings parse_world(const json* world, std::string_view source) {
  WorldSettings w;
  if (world == nullptr) return w;
  JsonFields f(*world, std::string(source) + ": world");
  f.fields(WorldSettings::fields(), w);
  f.finish("world");
  w.validate(std::string(source) + ": world");
  return w;
}

}  // namespace preset_detail

namespace {

using preset_detail::describe;
using preset_detail::fail;
using preset_detail::json;

void check_keys(const json& obj, const std::vector<std::string_view>& allowed,
                std::string_view source, const std::string& prefix, std::string_view what) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::string msg = "unknown key '" + it.key() + "' in " + std::string(what);
    std::string_view guess = closest_name(it.key(), allowed);
    if (!guess.empty()) msg += " (did you mean '" + std::string(guess) + "'?)";
    fail(ErrorCategory::invalid_argument, source, prefix + it.key(),
         msg + "; allowed keys: " + join_names(allowed));
  }
}

std::string string_field(const json& doc, const char* key, std::string_view fallback,
                         std::string_view source) {
  auto it = doc.find(key);
  if (it == doc.end()) return std::string(fallback);
  if (!it->is_string()) {
    fail(ErrorCategory::invalid_argument, source, key, "expected a string, got " + describe(*it));
  }
  return it->get<std::string>();
}

// Control bytes as \xNN, so that the message itself is one clean line.
std::string printable(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
      continue;
    }
    const char* hex = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

// A preset's name names its output files ("<name>.png", "<name>_preview.png", ...) inside the
// output directory, so it must be a plain file stem: no way out of the directory, nothing
// hidden, nothing a file system or shell treats specially. An empty name is allowed: the files
// are then named "terrain..." (terrane/bake.hpp).
void check_file_stem(const std::string& name, std::string_view source) {
  constexpr std::size_t kMaxNameBytes = 100;
  if (name.empty()) return;
  const auto refuse = [&](const std::string& why) {
    fail(ErrorCategory::invalid_argument, source, "name",
         "'" + printable(name) + "' cannot name output files: " + why +
             " (a name is up to " + std::to_string(kMaxNameBytes) +
             " bytes without '/', '\\', control characters, a leading '.' or '-', or a "
             "trailing '.' or space)");
  };
  if (name.size() > kMaxNameBytes) refuse("it is " + std::to_string(name.size()) + " bytes long");
  for (const char ch : name) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '/' || c == '\\') refuse("it contains a path separator");
    if (c < 0x20 || c == 0x7f) refuse("it contains a control character");
  }
  if (name.front() == '.') refuse("it starts with '.'");
  if (name.front() == '-') refuse("it starts with '-'");
  if (name.back() == '.' || name.back() == ' ') refuse("it ends with '.' or a space");
}

const json* section(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it == doc.end() ? nullptr : &*it;
}

Preset parse_document(json doc, std::string_view source, std::string_view default_name,
                      std::span<const std::string> overrides) {
  for (const std::string& o : overrides) preset_detail::apply_override(doc, o, source);
  if (!doc.is_object()) {
    fail(ErrorCategory::invalid_argument, source, "",
         "a preset is a JSON object, got " + describe(doc));
  }
  check_keys(doc, preset_detail::root_keys(), source, "", "the preset");
  Preset p;
  p.source = std::string(source);
  p.name = string_field(doc, "name", default_name, source);
  check_file_stem(p.name, source);
  p.description = string_field(doc, "description", "", source);
  if (auto it = doc.find("seed"); it != doc.end()) {
    p.seed = preset_detail::parse_seed_value(*it, source, "seed");
  }
  p.world = preset_detail::parse_world(section(doc, "world"), source);
  auto graph = doc.find("graph");
  if (graph == doc.end()) {
    fail(ErrorCategory::invalid_argument, source, "graph",
         "missing: a preset needs a \"graph\" object (see docs/PRESETS.md)");
  }
  if (!graph->is_object()) {
    fail(ErrorCategory::invalid_argument, source, "graph",
         "expected an object, got " + describe(*graph));
  }
  p.graph = preset_detail::parse_graph(*graph, p.world, source);
  p.graph.validate(source);
  for (const GraphNode& n : p.graph.nodes) {
    if (n.kind == NodeKind::y) {
      fail(ErrorCategory::invalid_argument, source, "graph.nodes." + n.id,
           "a 'y' node reads the height of a 3D sample: it exists only in a voxel density graph "
           "(voxel.density), not in the preset's height-field graph");
    }
    if (n.kind != NodeKind::input) continue;
    fail(ErrorCategory::invalid_argument, source, "graph.nodes." + n.id,
         "an 'input' node reads a field computed after the graph (height, river, ...); inputs "
         "exist only in a post \"graph\" operation, not in the preset's graph (see "
         "docs/PRESETS.md)");
  }
  p.post = preset_detail::parse_post(section(doc, "post"), p);
  p.surface = preset_detail::parse_surface(section(doc, "surface"), p);
  p.has_voxel = doc.contains("voxel");
  p.voxel = preset_detail::parse_voxel(section(doc, "voxel"), p);
  p.canonical_json = doc.dump();
  p.hash = preset_hash(p.canonical_json);
  return p;
}

}  // namespace

std::uint64_t preset_hash(std::string_view canonical_json) {
  return hash_bytes(canonical_json.data(), canonical_json.size());
}

Preset parse_preset(std::string_view json_text, std::string_view source,
                    std::span<const std::string> overrides) {
  std::string stem = std::filesystem::path(source).stem().string();
  return parse_document(preset_detail::parse_json_text(json_text, source), source, stem, overrides);
}

Preset load_preset(std::string_view name_or_path, std::span<const std::string> overrides) {
  const std::vector<std::string> names = builtin_preset_names();
  if (std::find(names.begin(), names.end(), name_or_path) != names.end()) {
    const std::string source = "builtin preset '" + std::string(name_or_path) + "'";
    return parse_document(preset_detail::parse_json_text(builtin_preset_json(name_or_path), source),
                          source, name_or_path, overrides);
  }
  const std::filesystem::path path{std::string(name_or_path)};
  // Only a regular file of bounded size is read: a directory, FIFO or device (/dev/zero) would
  // read forever, block or mislead, and a huge file would be parsed whole (issue 12, defect 4).
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw Error(ErrorCategory::io,
                std::string(name_or_path) + ": not a regular file (" +
                    (std::filesystem::is_directory(status) ? "a directory" : "a device, FIFO or socket") +
                    "); a preset is a JSON file");
  }
  if (!ec && std::filesystem::exists(status)) {
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    if (!ec && bytes > kMaxPresetFileBytes) {
      throw Error(ErrorCategory::limit,
                  std::string(name_or_path) + ": " + std::to_string(bytes) +
                      " bytes; a preset file may have at most " +
                      std::to_string(kMaxPresetFileBytes) + " bytes (4 MiB)");
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    throw Error(ErrorCategory::io, std::string(name_or_path) + ": not a builtin preset (" + list +
                                       ") and no readable file by that name");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw Error(ErrorCategory::io, std::string(name_or_path) + ": read error");
  }
  return parse_document(preset_detail::parse_json_text(text.str(), name_or_path), name_or_path,
                        path.stem().string(), overrides);
}

std::string apply_override(std::string_view json_text, std::string_view assignment,
                           std::string_view source) {
  json doc = preset_detail::parse_json_text(json_text, source);
  preset_detail::apply_override(doc, assignment, source);
  return doc.dump();
}

}  // namespace terrane

namespace terrane {

CompiledGraph compile(const Preset& preset) {
  return compile(preset.generator());
}

Preset apply_overrides(const Preset& preset, std::span<const std::string> overrides) {
  return parse_document(preset_detail::parse_json_text(preset.canonical_json, preset.source),
                        preset.source, preset.name, overrides);
}

std::string append_post_override(const Preset& preset, std::span<const RegionOpKind> kinds) {
  json post = json::array();
  const json doc = json::parse(preset.canonical_json);
  if (auto it = doc.find("post"); it != doc.end()) post = *it;
  for (RegionOpKind kind : kinds) {
    if (kind == RegionOpKind::graph) {
      throw Error(ErrorCategory::invalid_argument,
                  "'graph' has no default (it needs its nodes); add {\"op\": \"graph\", "
                  "\"output\": ..., \"nodes\": {...}} to the preset's post list instead (see "
                  "docs/PRESETS.md); allowed: thermal, droplets, stream_power, blur, breach");
    }
    post.push_back({{"op", to_string(kind)}});
  }
  return "post=" + post.dump();
}

}  // namespace terrane
