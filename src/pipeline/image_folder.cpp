// Listing the images of a folder.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>

#include <algorithm>
#include <filesystem>

namespace bovw {

std::vector<std::string> listImages(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error)) throw IoError("'" + directory + "' is not a readable directory");
  std::vector<std::string> images;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    if (it->is_regular_file(error) && hasImageExtension(it->path().string())) images.push_back(it->path().string());
  }
  if (error) throw IoError("cannot list '" + directory + "': " + error.message());
  std::sort(images.begin(), images.end());
  return images;
}

}  // namespace bovw
