// The vocabulary file formats behind saveVocabulary/loadVocabulary (include/bovw/vocabulary_io.hpp).
#pragma once

#include <bovw/vocabulary.hpp>

#include <cstddef>
#include <ostream>
#include <string>

namespace bovw::detail {

void saveVocabularyBinary(const std::string& path, const Vocabulary& vocabulary);
Vocabulary loadVocabularyBinary(const std::string& path);
// The same format to a stream and from bytes in memory (a vocabulary embedded in another file).
void writeVocabularyBinary(std::ostream& out, const Vocabulary& vocabulary);
Vocabulary decodeVocabularyBinary(const char* bytes, std::size_t size, const std::string& source);

// OpenCV FileStorage; without OpenCV in the build these throw InvalidInput saying so.
void saveVocabularyFileStorage(const std::string& path, const Vocabulary& vocabulary);
Vocabulary loadVocabularyFileStorage(const std::string& path);

}  // namespace bovw::detail
