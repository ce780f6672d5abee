// Reading a whole input file the way bovw's own readers read theirs: only a regular file (links
// followed) is read, so that a FIFO or a device given as a file is refused with a message rather
// than waited on or read without end. docs/FORMATS.md, "Reading files".
#pragma once

#include <string>

namespace bovw {

// The bytes of the file at `path`. Throws IoError naming it if it cannot be opened or read, or is
// not a regular file ("'P' is a FIFO (named pipe), not a regular file").
std::string readInputFile(const std::string& path);

}  // namespace bovw
