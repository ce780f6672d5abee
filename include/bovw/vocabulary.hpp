// A visual vocabulary: K centroids ("visual words") of width D, immutable once made.
#pragma once

#include <bovw/descriptors.hpp>

#include <cstdint>
#include <string>

namespace bovw {

class Vocabulary {
 public:
  // Takes the K x D centroids; throws InvalidInput if K or D is 0 or any value is NaN/Inf.
  // `descriptor_type` records what the words were trained on ("surf64", "sift128", ...).
  explicit Vocabulary(Descriptors centroids, std::string descriptor_type = "float");

  const Descriptors& centroids() const { return centroids_; }
  int size() const { return static_cast<int>(centroids_.rows()); }        // K
  int dimension() const { return static_cast<int>(centroids_.cols()); }   // D
  const std::string& descriptorType() const { return descriptor_type_; }

  // Identity for device-side caches: equal ids mean equal contents (copies share it), so a
  // Histogrammer keeps the words on the device across calls with the same vocabulary.
  std::uint64_t id() const { return id_; }

  // A 64-bit hash of K, D, the descriptor type and every centroid byte: an index records it to
  // refuse queries made with a different vocabulary. Computed on each call (~50 ms per GB).
  std::uint64_t fingerprint() const;

 private:
  Descriptors centroids_;
  std::string descriptor_type_;
  std::uint64_t id_;
};

}  // namespace bovw
