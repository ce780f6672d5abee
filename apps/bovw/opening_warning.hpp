// The warning a command prints when a live database opened the slow way: its checkpoint was refused
// (damaged, another host's byte order, ...) and the index was rebuilt from every image's record.
// Nothing is lost, but an open of a million images takes ten times as long until the next write
// replaces the checkpoint; the user should know why.
#pragma once

#include <bovw/live_database.hpp>

#include <iostream>

namespace bovw::cli {

inline void warnIfCheckpointRefused(const LiveDatabase* live) {
  if (live && !live->opening().refused.empty())
    std::cerr << "bovw: warning: its checkpoint was not used, the index was rebuilt from the images' records (the next "
                 "write writes a new one): "
              << live->opening().refused << "\n";
}

}  // namespace bovw::cli
