// DescriptorBatch: validation of the per-image offsets.
#include <bovw/descriptors.hpp>
#include <bovw/error.hpp>

#include <string>

namespace bovw {

DescriptorBatch::DescriptorBatch(DescriptorsRef descriptors, std::vector<std::int64_t> offsets)
    : descriptors_(descriptors), offsets_(std::move(offsets)) {
  const std::int64_t n = descriptors_.rows();
  if (offsets_.empty()) throw InvalidInput("offsets: empty; need I+1 values starting at 0");
  if (offsets_.front() != 0)
    throw InvalidInput("offsets: first value is " + std::to_string(offsets_.front()) + ", must be 0");
  for (std::size_t i = 1; i < offsets_.size(); ++i) {
    if (offsets_[i] < offsets_[i - 1])
      throw InvalidInput("offsets: decrease at position " + std::to_string(i) + " (" +
                         std::to_string(offsets_[i - 1]) + " then " + std::to_string(offsets_[i]) + ")");
  }
  if (offsets_.back() != n)
    throw InvalidInput("offsets: last value is " + std::to_string(offsets_.back()) +
                       ", must equal the number of descriptors (" + std::to_string(n) + ")");
}

DescriptorBatch DescriptorBatch::singleImage(DescriptorsRef descriptors) {
  return DescriptorBatch(descriptors, {0, static_cast<std::int64_t>(descriptors.rows())});
}

}  // namespace bovw
