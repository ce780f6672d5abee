// Checks of numeric options with messages a user can read: CLI11's own PositiveNumber says
// "Value 0 not in range 0.000000 to 1797693134862315708145274237317043567980705675250...".
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <string>

namespace bovw::cli {

namespace number_checks_detail {

// A validator that accepts a number for which `fits(value)` holds, and otherwise says what it must be.
template <typename Fits>
CLI::Validator numberCheck(const char* must_be, Fits fits) {
  return CLI::Validator(
      [must_be, fits](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size()) return "'" + text + "' is not a number";
        return fits(value) ? std::string() : "must be " + std::string(must_be) + ", not " + text;
      },
      must_be);
}

}  // namespace number_checks_detail

// "--work-group: must be positive, not 0"
inline const CLI::Validator kPositive =
    number_checks_detail::numberCheck("positive", [](double value) { return value > 0; });
inline const CLI::Validator kNonNegative =
    number_checks_detail::numberCheck("0 or more", [](double value) { return value >= 0; });

}  // namespace bovw::cli
