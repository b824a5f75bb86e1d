#include "terrane/core.hpp"

namespace terrane {

const char* to_string(ErrorCategory c) {
  switch (c) {
    case ErrorCategory::invalid_argument: return "invalid argument";
    case ErrorCategory::parse: return "parse error";
    case ErrorCategory::io: return "i/o error";
    case ErrorCategory::limit: return "limit exceeded";
    case ErrorCategory::internal: return "internal error";
    case ErrorCategory::cancelled: return "cancelled";
  }
  return "error";
}

std::string one_line_message(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

}  // namespace terrane
