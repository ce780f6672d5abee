// Staged decoding and device batches for the device routes.
#include "device_batches.hpp"

#include "features/image_allocation.hpp"

#include <opencv2/imgcodecs.hpp>

namespace bovw::detail {

StagedDecoding stagedDecoding(PinnedStaging& staging, const DeviceFeatures& features,
                              const std::vector<std::string>& paths, const PipelineOptions& options) {
  StagedDecoding staged;
  staged.decode = [&staging, &paths, options](std::size_t i) {
    // imdecode allocates a gray 8-bit image through the staging: the decoder writes pinned memory.
    const PinnedStaging::Serving serving(staging, pipelineBatch(i, options));
    return loadImage(paths[i], options.max_pixels, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH, &staging);
  };
  staged.work = [&staging, &features, options](std::size_t i, const cv::Mat& image, ImageSlot& slot) {
    // Gray 8-bit already in the staging: itself; else (16-bit) converted, then copied there once.
    slot.kept = staging.stage(features.prepare(image), pipelineBatch(i, options));
  };
  return staged;
}

std::vector<std::vector<std::size_t>> deviceBatches(const std::vector<ImageSlot>& slots, std::size_t first,
                                                    std::size_t end, const PipelineOptions& options,
                                                    std::int64_t pixel_limit) {
  const std::int64_t most = std::min(options.device_batch_pixels, pixel_limit);
  std::vector<std::vector<std::size_t>> batches(1);
  std::int64_t pixels = 0;
  for (std::size_t i = first; i < end; ++i) {
    if (!slots[i].error.empty()) continue;
    const std::int64_t area = static_cast<std::int64_t>(slots[i].kept.total());
    if (!batches.back().empty() && (pixels + area > most ||
                                    batches.back().size() == static_cast<std::size_t>(surf::kMaxBatchImages))) {
      batches.emplace_back();
      pixels = 0;
    }
    batches.back().push_back(i);
    pixels += area;
  }
  if (batches.back().empty()) batches.pop_back();
  return batches;
}

}  // namespace bovw::detail
