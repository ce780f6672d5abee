// Vocabularies in OpenCV FileStorage (.yml/.xml/.json, optionally .gz): the OpenCV convention,
// readable by cv::FileStorage in C++ and Python. Nodes: "vocabulary" (K x D CV_32F),
// "descriptor_type". Built with OpenCV only (the format table leaves it out otherwise).
#include "io/vocabulary_formats.hpp"

#include <bovw/error.hpp>
#include <bovw/file_storage.hpp>
#include <bovw/vocabulary_io.hpp>

#include <opencv2/core.hpp>

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

Vocabulary loadVocabularyFileStorage(const std::string& path) {
  cv::FileStorage fs;
  try {
    if (!fs.open(path, cv::FileStorage::READ)) throw IoError("cannot open '" + path + "'");
  } catch (const cv::Exception& e) {
    throw InvalidInput(path, "not a valid OpenCV FileStorage file: " + e.err);
  }
  cv::Mat words;
  std::string type;
  try {
    fs["vocabulary"] >> words;
    fs["descriptor_type"] >> type;
  } catch (const cv::Exception& e) {
    throw InvalidInput(path, "cannot read the vocabulary: " + e.err);
  }
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
