// ExecContext helpers: cancellation as a status and the log sink.
#include "terrane/core.hpp"

namespace terrane {

const char* to_string(LogLevel level) {
  switch (level) {
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warning:
      return "warning";
  }
  return "?";
}

void throw_if_cancelled(const ExecContext& ctx) {
  if (ctx.cancelled()) throw Error(ErrorCategory::cancelled, "cancelled");
}

void log_message(const ExecContext& ctx, LogLevel level, std::string_view message) {
  if (ctx.log) ctx.log(level, message);
}

}  // namespace terrane
