// Vocabulary save/load through the format table, the formats' help text, and the compatibility
// check with descriptors.
#include <bovw/error.hpp>
#include <bovw/vocabulary_io.hpp>

#include "io/vocabulary_formats.hpp"

namespace bovw {

void checkVocabularyPath(const std::string& path) { detail::vocabularyFormatOf(path); }

void saveVocabulary(const std::string& path, const Vocabulary& vocabulary) {
  detail::vocabularyFormatOf(path).save(path, vocabulary);
}

Vocabulary loadVocabulary(const std::string& path) { return detail::vocabularyFormatOf(path).load(path); }

std::string vocabularyFormatNames() {
  std::vector<std::string> names;
  for (const auto& format : detail::vocabularyFormats())
    if (format.save) names.insert(names.end(), format.extensions.begin(), format.extensions.end());
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

std::string vocabularyFormatsHelp() {
  std::string text;
  for (const auto& format : detail::vocabularyFormats()) {
    if (!format.save) continue;
    std::string extensions;
    for (const auto& extension : format.extensions) extensions += (extensions.empty() ? "" : " ") + extension;
    text += "\n  " + extensions + ": " + format.description;
  }
  return text;
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
