// Writes that never leave a half-written file behind: write a temporary beside the target, then rename.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace bovw {

struct StreamWrite {
  std::string path;
  std::function<void(std::ostream&)> write;
};

// Several outputs of one job, all or nothing: every temporary is written first, and only when all
// succeeded are they renamed over their targets. If any writer fails, no target is touched.
void writeFilesAtomically(const std::vector<StreamWrite>& writes);

// Calls `write` with a stream to a temporary file in the target's directory, flushes it, and
// renames it to `path`. If `write` throws or any step fails, the temporary is removed, `path` is
// untouched, and the exception propagates (IoError for the file system's failures).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// For writers that need a file name (cv::FileStorage, image encoders): `write` receives the
// temporary path to create; it is renamed to `path` on success and removed on failure.
void writePathAtomically(const std::string& path, const std::function<void(const std::string&)>& write);

}  // namespace bovw
