// The table of vocabulary formats, and the choice of one by a file's extension.
#include "io/vocabulary_formats.hpp"

#include <bovw/error.hpp>
#include <bovw/npy.hpp>
#include <bovw/vocabulary_io.hpp>

#include <algorithm>
#include <cctype>

namespace bovw::detail {

namespace {

void saveNpy(const std::string& path, const Vocabulary& vocabulary) {
  npy::writeFloat32Matrix(path, vocabulary.centroids());
}

Vocabulary loadNpy(const std::string& path) {
  return namingFile(path, [&] { return Vocabulary(npy::readFloat32Matrix(path)); });
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const std::vector<VocabularyFormat>& vocabularyFormats() {
  static const std::vector<VocabularyFormat> formats = {
      {{".bovw"}, "bovw's binary format: checksummed, records the descriptor type, loads fastest",
       saveVocabularyBinary, loadVocabularyBinary},
      {{".npy"}, "numpy float32 K x D, for numpy, FAISS and scikit-learn; records no descriptor type", saveNpy,
       loadNpy},
#ifdef BOVW_HAVE_OPENCV
      {{".yml", ".yml.gz", ".xml", ".xml.gz", ".yaml", ".yaml.gz", ".json"},
       "OpenCV FileStorage (cv::FileStorage in C++ and Python)", saveVocabularyFileStorage,
       loadVocabularyFileStorage},
#else
      {{".yml", ".yml.gz", ".xml", ".xml.gz", ".yaml", ".yaml.gz", ".json"},
       "OpenCV FileStorage (needs a bovw built with OpenCV)", nullptr, nullptr},
#endif
  };
  return formats;
}

const VocabularyFormat& vocabularyFormatOf(const std::string& path) {
  std::string lower = path;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const VocabularyFormat& format : vocabularyFormats()) {
    for (const std::string& extension : format.extensions) {
      if (!endsWith(lower, extension)) continue;
      if (!format.save) throw InvalidInput(path, format.description + "; use .bovw or .npy");
      return format;
    }
  }
  throw InvalidInput(path, "unknown vocabulary format; use " + vocabularyFormatNames());
}

}  // namespace bovw::detail
