// Outputs that are all or nothing: each is written to a temporary file beside its target, every
// write is checked (a full disk is an error, not a short file), the temporary is synced to disk and
// only then renamed over the target. A failed or killed write leaves the target as it was; the
// temporary of a killed run (".bovw-tmp-<pid>-<n>-<name>") is removed by the next write of a bovw
// process into that folder. docs/FORMATS.md, "Writing files".
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

// Several outputs of one job, all or nothing: every temporary is written and synced first, and only
// when all succeeded are they renamed over their targets. If any writer fails, no target is touched.
void writeFilesAtomically(const std::vector<StreamWrite>& writes);

// Calls `write` with a stream to a temporary file in the target's folder, checks that every byte
// reached the disk, and renames it to `path`. If `write` throws or any step fails, the temporary
// is removed, `path` is untouched, and the exception propagates (IoError naming `path`, with the
// system's reason, for the file system's failures).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace bovw
