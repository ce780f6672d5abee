// Command-line arguments that name images: each an image file, or a folder whose image files are
// taken in name order (search's queries, add's new images).
#pragma once

#include <string>
#include <vector>

namespace bovw::cli {

// The images the arguments name. A folder without images is a warning, or, when no image is left at
// all, InvalidInput "no <what>: ...".
std::vector<std::string> imageArguments(const std::vector<std::string>& arguments, const std::string& what);

}  // namespace bovw::cli
