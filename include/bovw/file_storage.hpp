// OpenCV FileStorage outputs (.yml, .xml, .json; gzip-compressed when the name ends in ".gz", as
// OpenCV does) written like every other bovw output (bovw/atomic_file.hpp): cv::FileStorage
// reports no failed write, so it writes to memory here, and the text goes to the file through a
// checked, synced, renamed temporary. Needs a bovw built with OpenCV.
#pragma once

#include <opencv2/core.hpp>

#include <functional>
#include <string>

namespace bovw {

// Calls `write` with a FileStorage open for writing in the format of `path`'s extension (flags:
// extra cv::FileStorage flags such as cv::FileStorage::BASE64), then saves what it wrote to `path`
// atomically. Throws IoError naming `path` if it cannot be written.
void writeFileStorage(const std::string& path, const std::function<void(cv::FileStorage&)>& write, int flags = 0);

}  // namespace bovw
