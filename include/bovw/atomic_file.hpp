// Outputs that are all or nothing: each is written to a temporary file beside its target, every
// write is checked (a full disk is an error, not a short file), the temporary is synced to disk and
// only then renamed over the target. A failed or killed write leaves the target as it was; the
// temporary of a killed run (".bovw-tmp-<pid>-<n>-<name>") is removed by the next write of a bovw
// process into that folder. docs/FORMATS.md, "Writing files".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bovw {

struct StreamWrite {
  std::string path;
  std::function<void(std::ostream&)> write;
};

namespace detail {
class TemporaryFile;
}

// Outputs written now and put in place later, in two phases: the constructor writes and syncs every
// temporary (the "prepare" phase), commit() renames them all over their targets. Between the two a
// job of several processes can agree that every process has prepared its outputs
// (bovw/rank_agreement.hpp) before any of them commits, so that no target is replaced unless every
// part of the job succeeded. Destroyed uncommitted (a failure elsewhere, an exception), it removes
// its temporaries and leaves every target as it was.
class PreparedFiles {
 public:
  // Writes every output to its temporary. Throws IoError naming the target (a target that is a
  // directory, a full disk) or what a writer throws; nothing is left behind then.
  explicit PreparedFiles(const std::vector<StreamWrite>& writes);
  ~PreparedFiles();
  PreparedFiles(PreparedFiles&&) noexcept;
  PreparedFiles& operator=(PreparedFiles&&) noexcept;

  // Renames every temporary over its target, in the order given (so a file that must appear last,
  // a manifest, is given last). Throws IoError naming the target that could not be replaced.
  void commit();

 private:
  std::vector<std::unique_ptr<detail::TemporaryFile>> temporaries_;
};

// Outputs written while the work that makes them runs (a folder's histograms, as the pipeline
// finishes them), then put in place together: stream(i) writes the temporary of paths[i];
// commit() checks and syncs every temporary, then renames each over its target in the order given.
// Destroyed uncommitted (a failure, an exception), it removes its temporaries and leaves every
// target as it was. Its streams can seek (npy::Int32MatrixWriter completes its header at the end).
class StreamedFiles {
 public:
  // Creates the temporaries. Throws IoError naming a target that cannot be written.
  explicit StreamedFiles(const std::vector<std::string>& paths);
  ~StreamedFiles();
  StreamedFiles(StreamedFiles&&) noexcept;
  StreamedFiles& operator=(StreamedFiles&&) noexcept;

  std::ostream& stream(std::size_t i);
  // Throws IoError naming the target that could not be written or replaced.
  void commit();

 private:
  std::vector<std::unique_ptr<detail::TemporaryFile>> temporaries_;
};

// Several outputs of one job, all or nothing: every temporary is written and synced first, and only
// when all succeeded are they renamed over their targets. If any writer fails, no target is touched.
void writeFilesAtomically(const std::vector<StreamWrite>& writes);

// Calls `write` with a stream to a temporary file in the target's folder, checks that every byte
// reached the disk, and renames it to `path`. If `write` throws or any step fails, the temporary
// is removed, `path` is untouched, and the exception propagates (IoError naming `path`, with the
// system's reason, for the file system's failures).
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Why writeFileAtomically(path, ...) could not write `path` now, or nothing if it could: for a
// program to call before the work whose result goes there, so that a bad output costs no time. The
// check is the write's own first step: the temporary beside `path` is created and removed again, so
// a missing folder, a file where the folder should be, a folder without write permission and a
// read-only file system are all found by the code that writes later. The problem is said of what
// to fix: "it is a directory", "the folder 'out' does not exist", "'out' is not a folder",
// "cannot write in folder '/ro': Permission denied", or the system's reason (a link loop).
std::optional<std::string> writeProblem(const std::string& path);

}  // namespace bovw
