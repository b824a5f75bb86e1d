// Bad-input assertions for every module's tests (docs/DESIGN.md §1.6: one precise message naming the
// file, JSON path, value and allowed range). expect_error runs a callable that must throw a
// terrane::Error of the given category whose message contains every needle; a missing throw, a
// foreign exception type, the wrong category and each missing needle are separate failures,
// reported at the caller's line with the whole message.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <initializer_list>
#include <source_location>
#include <string>
#include <string_view>

#include "terrane/core.hpp"

namespace terrane::test {

// Returns the message ("" when nothing or something other than terrane::Error was thrown).
template <typename F>
std::string expect_error(F&& f, ErrorCategory category,
                         std::initializer_list<std::string_view> needles,
                         std::source_location where = std::source_location::current()) {
  const ::testing::ScopedTrace trace(where.file_name(), int(where.line()), "expect_error");
  try {
    f();
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(to_string(e.category()), std::string(to_string(category))) << message;
    for (std::string_view needle : needles) {
      EXPECT_NE(message.find(needle), std::string::npos)
          << "the message lacks '" << needle << "': " << message;
    }
    return message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-terrane exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error thrown; expected " << to_string(category) << " naming "
                << (needles.size() ? *needles.begin() : std::string_view("(anything)"));
  return "";
}

// The same with the whole message given exactly.
template <typename F>
void expect_error_eq(F&& f, ErrorCategory category, std::string_view message,
                     std::source_location where = std::source_location::current()) {
  const ::testing::ScopedTrace trace(where.file_name(), int(where.line()), "expect_error_eq");
  EXPECT_EQ(expect_error(f, category, {}, where), std::string(message));
}

}  // namespace terrane::test
