// A visual vocabulary: K centroids ("visual words") of width D, immutable once made.
#pragma once

#include <bovw/descriptor_type.hpp>
#include <bovw/descriptors.hpp>

#include <cstdint>
#include <string>

namespace bovw {

class Vocabulary {
 public:
  // Takes the K x D centroids; throws InvalidInput if K or D is 0, any value is NaN/Inf, or the
  // descriptor type records a width other than D. `descriptor_type` records what the words were
  // trained on (surf64, sift128, orb256-binary, ...; unspecified: not recorded).
  explicit Vocabulary(Descriptors centroids, DescriptorType descriptor_type = DescriptorType::unspecified());

  const Descriptors& centroids() const { return centroids_; }
  int size() const { return static_cast<int>(centroids_.rows()); }        // K
  int dimension() const { return static_cast<int>(centroids_.cols()); }   // D
  const DescriptorType& descriptorType() const { return descriptor_type_; }

  // Identity for device-side caches: equal ids mean equal contents (copies share it), so a
  // Histogrammer keeps the words on the device across calls with the same vocabulary.
  std::uint64_t id() const { return id_; }

  // A 64-bit hash of K, D, the descriptor type and every centroid byte: an index records it to
  // refuse queries made with a different vocabulary. Computed on each call (~50 ms per GB).
  std::uint64_t fingerprint() const;

 private:
  Descriptors centroids_;
  DescriptorType descriptor_type_;
  std::uint64_t id_;
};

// checkCompatible (bovw/descriptor_type.hpp) of this vocabulary's type and width.
void checkCompatible(const Vocabulary& vocabulary, const DescriptorType& extracted,
                     const std::string& vocabulary_name = "");

}  // namespace bovw
