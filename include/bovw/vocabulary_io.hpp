// Saving and loading vocabularies. The format follows the file name's extension:
//   .bovw                      compact binary with a versioned header (magic, version, byte order,
//                              dtype, K, D, descriptor type): loads 1,000,000 words in well under a second
//   .npy                       numpy float32 K x D (numpy/FAISS/scikit-learn); carries no descriptor type
//   .yml .yml.gz .xml .xml.gz  OpenCV FileStorage (needs a build with OpenCV)
// Loading validates everything and throws InvalidInput naming the file; saving is atomic.
#pragma once

#include <bovw/vocabulary.hpp>

#include <string>

namespace bovw {

void saveVocabulary(const std::string& path, const Vocabulary& vocabulary);
// Throws InvalidInput if saveVocabulary could not write this path's format (check before training).
void checkVocabularyPath(const std::string& path);
Vocabulary loadVocabulary(const std::string& path);

// The descriptor type a .npy vocabulary loads with: it records none, so no type check applies.
inline constexpr const char* kUnspecifiedDescriptorType = "unspecified";

// Throws InvalidInput if descriptors of `descriptor_type` and width `dimension` cannot be used with
// the vocabulary (a SIFT vocabulary for SURF descriptors, a 64-D vocabulary for 128-D ones).
void checkCompatible(const Vocabulary& vocabulary, const std::string& descriptor_type, int dimension,
                     const std::string& vocabulary_name);

}  // namespace bovw
