// readFileBytes: one sized read, no per-character stream iteration.
#include "io/file_bytes.hpp"

#include <bovw/error.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bovw::detail {

std::vector<char> readFileBytes(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw IoError("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) throw IoError("cannot read '" + path + "': size unknown");
  std::vector<char> bytes(static_cast<std::size_t>(size));
  in.seekg(0);
  if (!bytes.empty() && !in.read(bytes.data(), size)) throw IoError("cannot read '" + path + "': read failed");
  return bytes;
}

}  // namespace bovw::detail
