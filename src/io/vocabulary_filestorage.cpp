// Vocabularies in OpenCV FileStorage (.yml/.xml/.json, optionally .gz): the OpenCV convention,
// readable by cv::FileStorage in C++ and Python. Nodes: "vocabulary" (K x D CV_32F),
// "descriptor_type". Written by cv::FileStorage; read by bovw's own FileStorage reader
// (filestorage_reader.hpp), never by OpenCV's parser, which loops forever on some malformed YAML.
// Built with OpenCV only (the format table leaves it out otherwise).
#include "io/filestorage_reader.hpp"
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
  static const FileStorageWanted wanted = {{"vocabulary", fileStorageMatrixFields()}, {"descriptor_type", {}}};
  const FileStorageNode root = readFileStorage(path, wanted);
  return namingFile(path, [&] {
    const FileStorageNode* words = root.find("vocabulary");
    if (!words) throw InvalidInput("no 'vocabulary' matrix");
    Descriptors centroids = fileStorageFloatMatrix(*words, "vocabulary");
    const std::string type = fileStorageString(root.find("descriptor_type"), "'descriptor_type'");
    return Vocabulary(std::move(centroids), type.empty() ? DescriptorType::unspecified() : DescriptorType::parse(type));
  });
}

}  // namespace bovw::detail
