// openInputFile, readExactly and readFileBytes: sized reads, no per-character stream iteration.
#include "io/file_bytes.hpp"

#include <bovw/error.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace bovw::detail {

InputFile openInputFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw IoError("cannot read '" + path + "': it is a directory");
  InputFile file;
  file.stream.open(path, std::ios::binary | std::ios::ate);
  if (!file.stream) throw IoError("cannot open '" + path + "': " + std::strerror(errno));
  const std::streamoff size = file.stream.tellg();
  if (size < 0) throw IoError("cannot read '" + path + "': size unknown");
  file.size = static_cast<std::uint64_t>(size);
  file.stream.seekg(0);
  return file;
}

void readExactly(InputFile& file, const std::string& path, char* out, std::size_t bytes) {
  if (bytes > 0 && !file.stream.read(out, static_cast<std::streamsize>(bytes)))
    throw IoError("cannot read '" + path + "': read failed");
}

std::vector<char> readFileBytes(const std::string& path) {
  InputFile file = openInputFile(path);
  std::vector<char> bytes(static_cast<std::size_t>(file.size));
  readExactly(file, path, bytes.data(), bytes.size());
  return bytes;
}

}  // namespace bovw::detail
