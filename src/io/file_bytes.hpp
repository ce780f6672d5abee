// Reading a whole file into memory, for the loaders that validate a format from its bytes
// (.npy, index and database files). One place for the errors: IoError naming the file.
#pragma once

#include <string>
#include <vector>

namespace bovw::detail {

// Throws IoError if `path` is a directory, cannot be opened or cannot be read completely.
std::vector<char> readFileBytes(const std::string& path);

}  // namespace bovw::detail
