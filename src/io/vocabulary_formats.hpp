// The vocabulary file formats behind saveVocabulary/loadVocabulary (include/bovw/vocabulary_io.hpp).
#pragma once

#include <bovw/vocabulary.hpp>

#include <string>

namespace bovw::detail {

void saveVocabularyBinary(const std::string& path, const Vocabulary& vocabulary);
Vocabulary loadVocabularyBinary(const std::string& path);

// OpenCV FileStorage; without OpenCV in the build these throw InvalidInput saying so.
void saveVocabularyFileStorage(const std::string& path, const Vocabulary& vocabulary);
Vocabulary loadVocabularyFileStorage(const std::string& path);

}  // namespace bovw::detail
