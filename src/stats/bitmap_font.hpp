// A tiny built-in bitmap font for the chart sheet (no font library): 5 x 7 glyphs for
// A-Z (lower case is drawn as upper case), 0-9 and the punctuation charts need.
#pragma once

#include <cstdint>
#include <string_view>

namespace terrane::stats_detail {

inline constexpr int kGlyphW = 5, kGlyphH = 7;

// The 7 rows of a glyph, bit 4 = leftmost column; a blank glyph for unknown characters.
const std::uint8_t* glyph(char c);

// Width in pixels of `text` drawn at `scale` (6 columns per character, the last without gap).
inline int text_width(std::string_view text, int scale) {
  return text.empty() ? 0 : (int(text.size()) * (kGlyphW + 1) - 1) * scale;
}

}  // namespace terrane::stats_detail
