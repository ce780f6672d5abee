// Atomic file writes: temporary beside the target (same file system, so rename is atomic), then rename.
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bovw {

namespace {

// ".bovw-tmp-<pid>-<n>-<name>": hidden, unique per process and call, and ending in the target's own
// name so that writers choosing a format by extension (cv::FileStorage) see the right one.
std::filesystem::path temporaryFor(const std::filesystem::path& target) {
  static std::atomic<unsigned> counter{0};
  const std::string name = ".bovw-tmp-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter.fetch_add(1)) + "-" + target.filename().string();
  return target.parent_path() / name;
}

void commit(const std::filesystem::path& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::filesystem::remove(temporary);
    throw IoError("cannot write '" + path + "': " + reason);
  }
}

}  // namespace

void writePathAtomically(const std::string& path, const std::function<void(const std::string&)>& write) {
  if (path.empty()) throw IoError("cannot write: empty output path");
  const std::filesystem::path temporary = temporaryFor(path);
  try {
    write(temporary.string());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
  commit(temporary, path);
}

void writeFilesAtomically(const std::vector<StreamWrite>& writes) {
  std::vector<std::filesystem::path> temporaries;
  auto discard = [&] {
    std::error_code ignored;
    for (const auto& t : temporaries) std::filesystem::remove(t, ignored);
  };
  try {
    for (const auto& w : writes) {
      if (w.path.empty()) throw IoError("cannot write: empty output path");
      temporaries.push_back(temporaryFor(w.path));
      std::ofstream out(temporaries.back(), std::ios::binary | std::ios::trunc);
      if (!out) throw IoError("cannot create '" + w.path + "': " + std::strerror(errno));
      w.write(out);
      out.flush();
      if (!out) throw IoError("cannot write '" + w.path + "': write failed (disk full?)");
    }
  } catch (...) {
    discard();
    throw;
  }
  // A rename fails mostly where the target cannot be replaced (a directory): check all first, so
  // that such a failure leaves every target untouched.
  for (const auto& w : writes) {
    std::error_code error;
    if (std::filesystem::is_directory(w.path, error)) {
      discard();
      throw IoError("cannot write '" + w.path + "': it is a directory");
    }
  }
  for (std::size_t i = 0; i < writes.size(); ++i) {
    try {
      commit(temporaries[i], writes[i].path);
    } catch (...) {
      temporaries.erase(temporaries.begin(), temporaries.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      discard();
      throw;
    }
  }
}

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  writeFilesAtomically({{path, write}});
}

}  // namespace bovw
