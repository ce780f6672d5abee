// The vocabulary file formats behind saveVocabulary/loadVocabulary (include/bovw/vocabulary_io.hpp),
// in one table: the extensions that choose each, what it is (the CLI's help text is made from
// this), and its functions. docs/FORMATS.md describes the files.
#pragma once

#include <bovw/vocabulary.hpp>

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace bovw::detail {

struct VocabularyFormat {
  std::vector<std::string> extensions;  // lower case; the first is the one shown first
  std::string description;              // a few words, for help texts
  // Null where this build lacks what the format needs (OpenCV FileStorage without OpenCV).
  void (*save)(const std::string& path, const Vocabulary& vocabulary);
  Vocabulary (*load)(const std::string& path);
};

const std::vector<VocabularyFormat>& vocabularyFormats();

// The format `path`'s extension names (case-insensitive). Throws InvalidInput naming `path` if
// none does or this build cannot write and read it.
const VocabularyFormat& vocabularyFormatOf(const std::string& path);

// .bovw
void saveVocabularyBinary(const std::string& path, const Vocabulary& vocabulary);
Vocabulary loadVocabularyBinary(const std::string& path);
// The same format to a stream and from bytes in memory (a vocabulary embedded in another file).
void writeVocabularyBinary(std::ostream& out, const Vocabulary& vocabulary);
Vocabulary decodeVocabularyBinary(const char* bytes, std::size_t size, const std::string& source);

// OpenCV FileStorage (builds with OpenCV only).
void saveVocabularyFileStorage(const std::string& path, const Vocabulary& vocabulary);
Vocabulary loadVocabularyFileStorage(const std::string& path);

}  // namespace bovw::detail
