// Atomic file writes: every output through a TemporaryFile, renamed only when complete (and, with
// PreparedFiles, only when the caller says so).
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include "io/temporary_file.hpp"

#include <filesystem>
#include <memory>

namespace bovw {

namespace {

// A rename fails mostly where the target cannot be replaced (a directory): checked before anything is
// written, and again before anything is renamed, so that such a failure leaves every target untouched.
constexpr char kDirectory[] = "it is a directory";

void checkReplaceable(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw IoError("cannot write '" + path + "': " + kDirectory);
}

}  // namespace

std::optional<std::string> writeProblem(const std::string& path) {
  std::error_code error;
  if (!path.empty() && std::filesystem::is_directory(path, error)) return std::string(kDirectory);
  return detail::creationProblem(path);
}

PreparedFiles::PreparedFiles(const std::vector<StreamWrite>& writes) {
  for (const auto& w : writes) checkReplaceable(w.path);
  for (const auto& w : writes) {
    temporaries_.push_back(std::make_unique<detail::TemporaryFile>(w.path));  // removed by its destructor
    w.write(temporaries_.back()->stream());
    temporaries_.back()->finish();
  }
}

PreparedFiles::~PreparedFiles() = default;
PreparedFiles::PreparedFiles(PreparedFiles&&) noexcept = default;
PreparedFiles& PreparedFiles::operator=(PreparedFiles&&) noexcept = default;

void PreparedFiles::commit() {
  for (const auto& temporary : temporaries_) checkReplaceable(temporary->target());
  for (auto& temporary : temporaries_) temporary->commit();
  temporaries_.clear();
}

void writeFilesAtomically(const std::vector<StreamWrite>& writes) { PreparedFiles(writes).commit(); }

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  writeFilesAtomically({{path, write}});
}

}  // namespace bovw
