// Vocabularies in OpenCV FileStorage (.yml/.xml, optionally .gz): the OpenCV convention, readable
// by cv::FileStorage in C++ and Python. Nodes: "vocabulary" (K x D CV_32F), "descriptor_type".
#include "io/vocabulary_formats.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>

#ifdef BOVW_HAVE_OPENCV
#include <opencv2/core.hpp>
#endif

namespace bovw::detail {

#ifdef BOVW_HAVE_OPENCV

void saveVocabularyFileStorage(const std::string& path, const Vocabulary& vocabulary) {
  writePathAtomically(path, [&](const std::string& temporary) {
    cv::FileStorage fs(temporary, cv::FileStorage::WRITE);
    if (!fs.isOpened()) throw IoError("cannot create '" + path + "'");
    const auto& words = vocabulary.centroids();
    fs << "descriptor_type" << vocabulary.descriptorType();
    fs << "vocabulary"
       << cv::Mat(static_cast<int>(words.rows()), static_cast<int>(words.cols()), CV_32F,
                  const_cast<float*>(words.data()));
    fs.release();
  });
}

Vocabulary loadVocabularyFileStorage(const std::string& path) {
  cv::FileStorage fs;
  try {
    if (!fs.open(path, cv::FileStorage::READ)) throw IoError("cannot open '" + path + "'");
  } catch (const cv::Exception& e) {
    throw InvalidInput("'" + path + "' is not a valid OpenCV FileStorage file: " + e.err);
  }
  cv::Mat words;
  std::string type;
  try {
    fs["vocabulary"] >> words;
    fs["descriptor_type"] >> type;
  } catch (const cv::Exception& e) {
    throw InvalidInput("'" + path + "': cannot read the vocabulary: " + e.err);
  }
  if (words.empty()) throw InvalidInput("'" + path + "' has no 'vocabulary' matrix");
  if (words.type() != CV_32F || words.dims != 2)
    throw InvalidInput("'" + path + "': 'vocabulary' must be a 2-D float32 (CV_32F) matrix");
  if (type.empty()) type = "unspecified";
  Descriptors centroids(words.rows, words.cols);
  for (int r = 0; r < words.rows; ++r)
    std::copy(words.ptr<float>(r), words.ptr<float>(r) + words.cols, centroids.row(r).data());
  try {
    return Vocabulary(std::move(centroids), type);
  } catch (const InvalidInput& e) {
    throw InvalidInput("'" + path + "': " + e.what());
  }
}

#else

void saveVocabularyFileStorage(const std::string& path, const Vocabulary&) {
  throw InvalidInput("'" + path + "': OpenCV FileStorage needs a bovw built with OpenCV; use .bovw or .npy");
}

Vocabulary loadVocabularyFileStorage(const std::string& path) {
  throw InvalidInput("'" + path + "': OpenCV FileStorage needs a bovw built with OpenCV; use .bovw or .npy");
}

#endif

}  // namespace bovw::detail
