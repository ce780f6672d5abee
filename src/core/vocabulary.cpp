// Vocabulary: validation and the identity that device caches key on.
#include <bovw/error.hpp>
#include <bovw/vocabulary.hpp>

#include <atomic>
#include <cstring>

namespace bovw {

namespace {
std::uint64_t nextVocabularyId() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1);
}
}  // namespace

Vocabulary::Vocabulary(Descriptors centroids, DescriptorType descriptor_type)
    : centroids_(std::move(centroids)),
      descriptor_type_(std::move(descriptor_type)),
      id_(nextVocabularyId()) {
  if (centroids_.rows() == 0) throw InvalidInput("vocabulary: K = 0 words; need at least one");
  if (centroids_.cols() == 0) throw InvalidInput("vocabulary: descriptor width D = 0");
  // Over the contiguous storage: Eigen's allFinite() walks a row-major matrix column by column,
  // which made this check dominate the load time of large vocabularies.
  if (!Eigen::Map<const Eigen::ArrayXf>(centroids_.data(), centroids_.size()).allFinite())
    throw InvalidInput("vocabulary: centroids contain NaN or Inf");
  if (descriptor_type_.width() != 0 && descriptor_type_.width() != dimension())
    throw InvalidInput("vocabulary: descriptor type " + descriptor_type_.toString() + " but words of width " +
                       std::to_string(dimension()));
}

std::uint64_t Vocabulary::fingerprint() const {
  // FNV-1a over 8-byte words with a final avalanche: not cryptographic, only a check of identity.
  std::uint64_t hash = 1469598103934665603ull;
  auto mix = [&hash](std::uint64_t value) {
    hash ^= value;
    hash *= 1099511628211ull;
  };
  mix(static_cast<std::uint64_t>(size()));
  mix(static_cast<std::uint64_t>(dimension()));
  // The canonical name, byte by byte: the names of earlier versions are canonical, so their
  // fingerprints, recorded in their indexes, still match.
  for (char c : descriptor_type_.toString()) mix(static_cast<unsigned char>(c));
  const auto* bytes = reinterpret_cast<const unsigned char*>(centroids_.data());
  const std::size_t total = sizeof(float) * static_cast<std::size_t>(centroids_.size());
  std::size_t i = 0;
  for (; i + 8 <= total; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes + i, 8);
    mix(word);
  }
  for (; i < total; ++i) mix(bytes[i]);
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdull;
  hash ^= hash >> 33;
  return hash;
}

void checkCompatible(const Vocabulary& vocabulary, const DescriptorType& extracted,
                     const std::string& vocabulary_name) {
  checkCompatible(vocabulary.descriptorType(), vocabulary.dimension(), extracted, vocabulary_name);
}

}  // namespace bovw
