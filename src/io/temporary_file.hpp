// The temporary file behind an atomic write (include/bovw/atomic_file.hpp): created beside its
// target (same file system, so the rename is atomic), every write checked, synced to disk before
// it is renamed over the target, removed if anything fails. A target that is a symbolic link is
// followed: the file it names is replaced and the link stays. A replaced file keeps its permission bits.
//
// Name: ".bovw-tmp-<pid>-<n>-<target's file name>", hidden and recognisable. While it is written
// the file holds an exclusive flock(2), which the kernel drops when the process ends however it
// ends: a temporary that can be locked belongs to nobody, it is the leftover of a killed run. The
// first atomic write of a process into a folder removes such leftovers there (once per folder, so
// that writing 100,000 files into one folder does not list it 100,000 times).
#pragma once

#include "io/checked_file_buffer.hpp"

#include <bovw/error.hpp>

#include <memory>
#include <optional>
#include <ostream>
#include <string>

namespace bovw::detail {

// The temporary could not be created: what() names the target ("cannot write 'T': PROBLEM"),
// problem() is the reason alone, said of what the user can fix (the folder, a link).
class CannotCreate : public IoError {
 public:
  CannotCreate(const std::string& target, std::string problem)
      : IoError("cannot write '" + target + "': " + problem), problem_(std::move(problem)) {}
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::string problem_;
};

class TemporaryFile {
 public:
  // Creates and locks the temporary for `target`. Throws CannotCreate if it cannot.
  explicit TemporaryFile(std::string target);
  // Removes the temporary unless it was committed.
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  std::ostream& stream() { return stream_; }
  const std::string& target() const { return target_; }

  // Checks that every write reached the file and syncs it to disk. Throws IoError naming the
  // target (with the system's reason: "No space left on device") if anything failed.
  void finish();
  // Renames the finished temporary over the target and syncs the folder. Throws IoError.
  void commit();

 private:
  void discard() noexcept;

  std::string target_;       // as given: what messages name
  std::string destination_;  // target_ with symbolic links followed: what is replaced
  std::string path_;
  int fd_ = -1;
  std::unique_ptr<CheckedFileBuffer> buffer_;
  std::ostream stream_;
};

// Why a TemporaryFile for `target` cannot be created now, or nothing: one is created and removed
// again, so the answer is the write's own (a missing folder, permissions, a read-only file system).
std::optional<std::string> creationProblem(const std::string& target);

// True for a name that TemporaryFile gives: ".bovw-tmp-<digits>-<digits>-<non-empty name>".
bool isTemporaryName(const std::string& name);

}  // namespace bovw::detail
