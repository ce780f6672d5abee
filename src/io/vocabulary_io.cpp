// Vocabulary save/load: choose the format by extension, check compatibility with descriptors.
#include <bovw/error.hpp>
#include <bovw/npy.hpp>
#include <bovw/vocabulary_io.hpp>

#include "io/vocabulary_formats.hpp"

#include <algorithm>
#include <cctype>

namespace bovw {

namespace {

enum class Format { Binary, Npy, FileStorage };

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Format formatOf(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (endsWith(lower, ".bovw")) return Format::Binary;
  if (endsWith(lower, ".npy")) return Format::Npy;
  for (const char* ext : {".yml", ".yaml", ".xml", ".yml.gz", ".yaml.gz", ".xml.gz", ".json"})
    if (endsWith(lower, ext)) return Format::FileStorage;
  throw InvalidInput("'" + path + "': unknown vocabulary format; use .bovw, .npy, .yml, .yml.gz, .xml or .xml.gz");
}

}  // namespace

void checkVocabularyPath(const std::string& path) {
  const Format format = formatOf(path);
#ifndef BOVW_HAVE_OPENCV
  if (format == Format::FileStorage)
    throw InvalidInput("'" + path + "': OpenCV FileStorage needs a bovw built with OpenCV; use .bovw or .npy");
#endif
  (void)format;
}

void saveVocabulary(const std::string& path, const Vocabulary& vocabulary) {
  switch (formatOf(path)) {
    case Format::Binary:
      return detail::saveVocabularyBinary(path, vocabulary);
    case Format::Npy:
      return npy::writeFloat32Matrix(path, vocabulary.centroids());
    case Format::FileStorage:
      return detail::saveVocabularyFileStorage(path, vocabulary);
  }
}

Vocabulary loadVocabulary(const std::string& path) {
  switch (formatOf(path)) {
    case Format::Binary:
      return detail::loadVocabularyBinary(path);
    case Format::Npy:
      try {
        return Vocabulary(npy::readFloat32Matrix(path), kUnspecifiedDescriptorType);
      } catch (const InvalidInput& e) {
        const std::string message = e.what();
        if (message.find(path) != std::string::npos) throw;
        throw InvalidInput("'" + path + "': " + message);
      }
    case Format::FileStorage:
      return detail::loadVocabularyFileStorage(path);
  }
  throw InvalidInput("'" + path + "': unknown vocabulary format");
}

void checkCompatible(const Vocabulary& vocabulary, const std::string& descriptor_type, int dimension,
                     const std::string& vocabulary_name) {
  const std::string which = vocabulary_name.empty() ? "the vocabulary" : "vocabulary '" + vocabulary_name + "'";
  const std::string& trained_on = vocabulary.descriptorType();
  // The type first: "trained on sift128, not surf64" says what to change, a width mismatch does not.
  if (trained_on != kUnspecifiedDescriptorType && trained_on != descriptor_type) {
    auto kind = [](const std::string& type) { return type.substr(0, type.find_first_of("0123456789")); };
    const std::string hint = kind(trained_on) != kind(descriptor_type)
                                 ? " (extract " + kind(trained_on) + " features: --features " + kind(trained_on) + ")"
                             : trained_on == "surf128" ? " (extract extended SURF: --extended)"
                                                       : "";
    throw InvalidInput(which + " was trained on " + trained_on + " descriptors, not " + descriptor_type + hint);
  }
  if (vocabulary.dimension() != dimension)
    throw InvalidInput(which + " has words of width " + std::to_string(vocabulary.dimension()) +
                       " but the descriptors (" + descriptor_type + ") have width " + std::to_string(dimension));
}

}  // namespace bovw
