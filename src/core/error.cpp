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

}  // namespace terrane
