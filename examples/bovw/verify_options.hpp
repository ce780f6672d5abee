// Options of the subcommands that can re-rank results geometrically (search, evaluate).
#pragma once

#include <bovw/geometric_verification.hpp>

#include <CLI/CLI.hpp>

#include <cstddef>

namespace bovw::cli {

struct VerifyOptions {
  std::size_t shortlist = 0;  // --verify N; 0: no verification
  VerificationOptions settings;

  void addTo(CLI::App* command);
  bool enabled() const { return shortlist > 0; }
  VerificationOptions options() const;
};

}  // namespace bovw::cli
