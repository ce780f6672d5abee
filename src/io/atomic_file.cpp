// Atomic file writes: every output through a TemporaryFile, renamed only when complete.
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include "io/temporary_file.hpp"

#include <filesystem>
#include <memory>

namespace bovw {

void writeFilesAtomically(const std::vector<StreamWrite>& writes) {
  std::vector<std::unique_ptr<detail::TemporaryFile>> temporaries;  // removed by their destructors
  for (const auto& w : writes) {
    temporaries.push_back(std::make_unique<detail::TemporaryFile>(w.path));
    w.write(temporaries.back()->stream());
    temporaries.back()->finish();
  }
  // A rename fails mostly where the target cannot be replaced (a directory): check all first, so
  // that such a failure leaves every target untouched.
  for (const auto& w : writes) {
    std::error_code error;
    if (std::filesystem::is_directory(w.path, error)) throw IoError("cannot write '" + w.path + "': it is a directory");
  }
  for (auto& temporary : temporaries) temporary->commit();
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  writeFilesAtomically({{path, write}});
}

}  // namespace bovw
