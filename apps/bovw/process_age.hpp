// How long this process has run, for a profile that starts at the process's birth (`bovw search
// --profile`): the time before main (loading and initialising the shared libraries) is part of
// what a one-shot command costs, and no clock inside the process saw it begin.
#pragma once

#include <optional>

namespace bovw::cli {

// Seconds since the kernel started this process, in steps of its clock tick (10 ms on Linux);
// nullopt where /proc is not there.
std::optional<double> secondsSinceProcessStart();

}  // namespace bovw::cli
