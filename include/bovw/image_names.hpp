// Image names: what a database stores for each image and what every output prints (CSV, JSON,
// HTML, H.names.txt, error lines). A name is the path as given; it must be text that each of those
// formats holds without loss: valid UTF-8 (JSON cannot carry other bytes) without control
// characters (a newline would split a names.txt line or an error line, a carriage return a CSV
// row). Such names are refused where they enter, never mangled on the way out.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace bovw {

// Why `name` cannot be an image name ("is not valid UTF-8", "holds a control character (\x0a)",
// "is empty"), or std::nullopt when it can.
std::optional<std::string> imageNameProblem(std::string_view name);

// `name` for a one-line message: bytes that are not printable UTF-8 (control characters, invalid
// sequences) and backslashes written as \xHH, everything else as it is.
std::string printableName(std::string_view name);

}  // namespace bovw
