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

// Renames finished temporaries over their targets, in order, once every target is known to be replaceable.
void commitAll(std::vector<std::unique_ptr<detail::TemporaryFile>>& temporaries) {
  for (const auto& temporary : temporaries) checkReplaceable(temporary->target());
  for (auto& temporary : temporaries) temporary->commit();
  temporaries.clear();
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

void PreparedFiles::commit() { commitAll(temporaries_); }

StreamedFiles::StreamedFiles(const std::vector<std::string>& paths) {
  for (const auto& path : paths) checkReplaceable(path);
  for (const auto& path : paths) temporaries_.push_back(std::make_unique<detail::TemporaryFile>(path));
}

StreamedFiles::~StreamedFiles() = default;
StreamedFiles::StreamedFiles(StreamedFiles&&) noexcept = default;
StreamedFiles& StreamedFiles::operator=(StreamedFiles&&) noexcept = default;

std::ostream& StreamedFiles::stream(std::size_t i) { return temporaries_.at(i)->stream(); }

void StreamedFiles::commit() {
  for (auto& temporary : temporaries_) temporary->finish();
  commitAll(temporaries_);
}

void writeFilesAtomically(const std::vector<StreamWrite>& writes) { PreparedFiles(writes).commit(); }

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  writeFilesAtomically({{path, write}});
}

}  // namespace bovw
