// Image arguments: files as given, folders listed (listImages).
#include "image_arguments.hpp"

#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>

#include <spdlog/spdlog.h>

#include <filesystem>

namespace bovw::cli {

std::vector<std::string> imageArguments(const std::vector<std::string>& arguments, const std::string& what) {
  std::vector<std::string> images, empty;
  for (const std::string& argument : arguments) {
    std::error_code error;
    if (!std::filesystem::is_directory(argument, error)) {
      images.push_back(argument);
      continue;
    }
    const std::vector<std::string> listed = listImages(argument);
    if (listed.empty()) empty.push_back(argument);
    images.insert(images.end(), listed.begin(), listed.end());
  }
  for (const std::string& folder : empty) {
    const std::string problem = "'" + folder + "' is a folder that holds no image files";
    if (images.empty()) throw InvalidInput("no " + what + ": " + problem);
    spdlog::warn("{}", problem);
  }
  return images;
}

}  // namespace bovw::cli
