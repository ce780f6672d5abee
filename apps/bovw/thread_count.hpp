// The thread-count options (--threads) of the bovw subcommands, spelled and checked one way.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace bovw::cli {

// A whole number of threads: at least 1, or at least 0 where 0 means "all cores". Anything else
// (negative, zero where not allowed, not a whole number) is a usage error (exit 2) naming the option.
inline CLI::Validator threadCount(bool zero_means_all_cores) {
  return CLI::Validator(
      [zero_means_all_cores](std::string& value) -> std::string {
        const int least = zero_means_all_cores ? 0 : 1;
        const std::string expected = zero_means_all_cores ? "a whole number >= 0 (0: all cores)" : "a whole number >= 1";
        std::size_t used = 0;
        long n = 0;
        try {
          n = std::stol(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != value.size() || n < least || n > 4096)
          return "thread count must be " + expected + ", got '" + value + "'";
        return std::string();
      },
      zero_means_all_cores ? "THREADS>=0" : "THREADS>=1", "thread count");
}

}  // namespace bovw::cli
