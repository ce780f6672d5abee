// Saving and loading vocabularies. The format follows the file name's extension (vocabularyFormats
// below; docs/FORMATS.md describes each):
//   .bovw                      compact binary, checksummed, records the descriptor type: loads
//                              1,000,000 words in well under a second
//   .npy                       numpy float32 K x D (numpy/FAISS/scikit-learn); carries no descriptor type
//   .yml .yml.gz .xml .xml.gz  OpenCV FileStorage (needs a build with OpenCV; also .yaml, .yaml.gz, .json)
// Loading validates everything and throws InvalidInput naming the file (IoError if it cannot be
// read); saving is atomic (bovw/atomic_file.hpp).
#pragma once

#include <bovw/vocabulary.hpp>

#include <string>

namespace bovw {

void saveVocabulary(const std::string& path, const Vocabulary& vocabulary);
// Throws InvalidInput if saveVocabulary could not write this path's format (check before training).
void checkVocabularyPath(const std::string& path);
Vocabulary loadVocabulary(const std::string& path);

// The extensions this build reads and writes, for messages: ".bovw, .npy, ... or .json".
std::string vocabularyFormatNames();
// One line per format this build has, its extensions and what it is: the CLI's help text.
std::string vocabularyFormatsHelp();

}  // namespace bovw
