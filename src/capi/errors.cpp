// The C API's statuses, per-thread messages, version and buffer checks (terrane.h).
#include <cstring>
#include <string>

#include "capi_internal.hpp"
#include "terrane/io.hpp"

namespace terrane::capi {
namespace {

thread_local std::string t_last_error;

}  // namespace

terrane_status fail(terrane_status status, const std::string& message) {
  try {
    t_last_error = message;
  } catch (...) {
    t_last_error.clear();
  }
  return status;
}

terrane_status status_of(ErrorCategory category) {
  switch (category) {
    case ErrorCategory::invalid_argument:
      return TERRANE_INVALID_ARGUMENT;
    case ErrorCategory::parse:
      return TERRANE_PARSE;
    case ErrorCategory::io:
      return TERRANE_IO;
    case ErrorCategory::limit:
      return TERRANE_LIMIT;
    case ErrorCategory::cancelled:
      return TERRANE_CANCELLED;
    case ErrorCategory::internal:
      break;
  }
  return TERRANE_INTERNAL;
}

terrane_status check_capacity(const void* buffer, std::size_t capacity, std::size_t needed,
                              std::size_t* count, const char* what) {
  if (count != nullptr) *count = needed;
  if (needed == 0 || (buffer != nullptr && capacity >= needed)) return TERRANE_OK;
  return fail(TERRANE_BUFFER_TOO_SMALL,
              std::string(what) + ": the buffer holds " +
                  (buffer == nullptr ? std::string("nothing (NULL)") : std::to_string(capacity)) +
                  ", " + std::to_string(needed) + " are needed");
}

}  // namespace terrane::capi

extern "C" {

const char* terrane_status_name(int32_t status) {
  switch (status) {
    case TERRANE_OK:
      return "ok";
    case TERRANE_INVALID_ARGUMENT:
      return "invalid_argument";
    case TERRANE_PARSE:
      return "parse";
    case TERRANE_IO:
      return "io";
    case TERRANE_LIMIT:
      return "limit";
    case TERRANE_INTERNAL:
      return "internal";
    case TERRANE_CANCELLED:
      return "cancelled";
    case TERRANE_BUFFER_TOO_SMALL:
      return "buffer_too_small";
    default:
      return "unknown";
  }
}

const char* terrane_last_error(void) {
  return terrane::capi::t_last_error.c_str();
}

const char* terrane_version(void) {
  return terrane::terrane_version();
}

uint32_t terrane_version_number(void) {
  return TERRANE_VERSION_MAJOR * 10000u + TERRANE_VERSION_MINOR * 100u + TERRANE_VERSION_PATCH;
}

}  // extern "C"
