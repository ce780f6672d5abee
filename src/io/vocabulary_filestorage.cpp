// Vocabularies in OpenCV FileStorage (.yml/.xml/.json, optionally .gz): the OpenCV convention,
// readable by cv::FileStorage in C++ and Python. Nodes: "vocabulary" (K x D CV_32F),
// "descriptor_type". Built with OpenCV only (the format table leaves it out otherwise).
#include "io/vocabulary_formats.hpp"

#include "io/file_bytes.hpp"

#include <bovw/error.hpp>
#include <bovw/file_storage.hpp>
#include <bovw/vocabulary_io.hpp>

#include <opencv2/core.hpp>

#include <stdexcept>

namespace bovw::detail {

void saveVocabularyFileStorage(const std::string& path, const Vocabulary& vocabulary) {
  writeFileStorage(path, [&](cv::FileStorage& fs) {
    const auto& words = vocabulary.centroids();
    fs << "descriptor_type" << vocabulary.descriptorType().toString();
    fs << "vocabulary"
       << cv::Mat(static_cast<int>(words.rows()), static_cast<int>(words.cols()), CV_32F,
                  const_cast<float*>(words.data()));
  });
}

namespace {

// Runs a step of OpenCV's parser, turning what it throws for a malformed file into InvalidInput:
// cv::Exception, and std::logic_error too, which its parser lets out of some malformed input (a
// std::length_error from std::string for "%YAML:1.0.\n   rt: M\n   :", found by fuzzing).
// std::bad_alloc passes through: running out of memory says nothing about the file.
template <typename Step>
void parsing(const std::string& path, const char* what, Step&& step) {
  try {
    step();
  } catch (const cv::Exception& e) {
    throw InvalidInput(path, what + e.err);
  } catch (const std::logic_error& e) {
    throw InvalidInput(path, what + std::string(e.what()));
  }
}

}  // namespace

Vocabulary loadVocabularyFileStorage(const std::string& path) {
  // OpenCV opens by name with a blocking open: a FIFO is refused here first. (Reading the bytes
  // and parsing them in memory would close the window between the two opens, but OpenCV's memory
  // mode does not decompress the .gz files it writes.)
  InputFile(path, "an OpenCV FileStorage file");
  cv::FileStorage fs;
  bool opened = false;
  parsing(path, "not a valid OpenCV FileStorage file: ", [&] { opened = fs.open(path, cv::FileStorage::READ); });
  if (!opened) throw IoError("cannot open '" + path + "'");
  cv::Mat words;
  std::string type;
  parsing(path, "cannot read the vocabulary: ", [&] {
    fs["vocabulary"] >> words;
    fs["descriptor_type"] >> type;
  });
  if (words.empty()) throw InvalidInput(path, "no 'vocabulary' matrix");
  if (words.type() != CV_32F || words.dims != 2)
    throw InvalidInput(path, "'vocabulary' must be a 2-D float32 (CV_32F) matrix");
  Descriptors centroids(words.rows, words.cols);
  for (int r = 0; r < words.rows; ++r)
    std::copy(words.ptr<float>(r), words.ptr<float>(r) + words.cols, centroids.row(r).data());
  return namingFile(path, [&] {
    return Vocabulary(std::move(centroids), type.empty() ? DescriptorType::unspecified() : DescriptorType::parse(type));
  });
}

}  // namespace bovw::detail
