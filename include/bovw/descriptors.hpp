// Descriptor matrices: N x D float32, row-major, and batches of many images' descriptors.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace bovw {

// N descriptors of width D, one per row (the layout OpenCV and numpy use).
using Descriptors = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A read-only view of descriptors: binds to a Descriptors or an Eigen::Map over foreign memory
// (a cv::Mat, a numpy buffer) without copying.
using DescriptorsRef = Eigen::Ref<const Descriptors>;

// One K-bin histogram per image, as rows: I x K counts.
using Histograms = Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The descriptors of many images in one matrix: image i owns rows [offsets[i], offsets[i+1]).
// This is what lets one device pass produce thousands of histograms. Holds a view: the matrix
// it was made from must outlive it.
class DescriptorBatch {
 public:
  // Offsets must start at 0, never decrease and end at descriptors.rows(); throws InvalidInput.
  DescriptorBatch(DescriptorsRef descriptors, std::vector<std::int64_t> offsets);

  // All rows as one image.
  static DescriptorBatch singleImage(DescriptorsRef descriptors);

  const DescriptorsRef& descriptors() const { return descriptors_; }
  const std::vector<std::int64_t>& offsets() const { return offsets_; }
  std::int64_t imageCount() const { return static_cast<std::int64_t>(offsets_.size()) - 1; }

 private:
  DescriptorsRef descriptors_;
  std::vector<std::int64_t> offsets_;
};

}  // namespace bovw
