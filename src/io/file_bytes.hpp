// Reading files for the loaders that validate a format from its bytes (.npy, index and database
// files): whole, or opened and then read piece by piece straight into the caller's memory (a .npy
// file's data into pinned descriptors). One place for the errors: IoError naming the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace bovw::detail {

// A file open for binary reading at its start, and its size in bytes.
struct InputFile {
  std::ifstream stream;
  std::uint64_t size = 0;
};

// Throws IoError if `path` is a directory or cannot be opened.
InputFile openInputFile(const std::string& path);

// The next `bytes` bytes of `file` into `out`; throws IoError naming `path` if they cannot be read.
void readExactly(InputFile& file, const std::string& path, char* out, std::size_t bytes);

// Throws IoError if `path` is a directory, cannot be opened or cannot be read completely.
std::vector<char> readFileBytes(const std::string& path);

}  // namespace bovw::detail
