// Vocabulary: validation and the identity that device caches key on.
#include <bovw/error.hpp>
#include <bovw/vocabulary.hpp>

#include <atomic>

namespace bovw {

namespace {
std::uint64_t nextVocabularyId() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1);
}
}  // namespace

Vocabulary::Vocabulary(Descriptors centroids, std::string descriptor_type)
    : centroids_(std::move(centroids)),
      descriptor_type_(std::move(descriptor_type)),
      id_(nextVocabularyId()) {
  if (centroids_.rows() == 0) throw InvalidInput("vocabulary: K = 0 words; need at least one");
  if (centroids_.cols() == 0) throw InvalidInput("vocabulary: descriptor width D = 0");
  if (!centroids_.allFinite()) throw InvalidInput("vocabulary: centroids contain NaN or Inf");
}

}  // namespace bovw
