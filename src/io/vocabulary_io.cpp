// Vocabulary save/load through the format table, and the formats' help text.
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

}  // namespace bovw
