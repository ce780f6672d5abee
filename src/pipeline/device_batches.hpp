// What the two device routes share (device_histograms.cpp: images to histograms; extract_in_batches.cpp:
// images to features): the workers decode each image straight into pinned staging and make it
// SURF's 8-bit gray there, and the calling thread cuts each pipeline batch into device batches.
#pragma once

#include "features/opencl/device_features.hpp"
#include "image_workers.hpp"
#include "pinned_staging.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace bovw::detail {

// How many pipeline batches hold staging at once: the one the calling thread consumes, the two the
// workers decode ahead (image_workers.hpp), and the previous one, whose last device batch is still
// in flight while the next starts (the device queue is not drained between pipeline batches).
constexpr int kStagingDepth = 4;

// The workers' part: decode image i into `staging` (pipeline batch i / options.batch_images) and
// keep its gray image there in slot.kept.
struct StagedDecoding {
  ImageDecoder decode;
  ImageWork work;
};
StagedDecoding stagedDecoding(PinnedStaging& staging, const DeviceFeatures& features,
                              const std::vector<std::string>& paths, const PipelineOptions& options);

// The good images of slots [first, end) (slot.kept) in device batches of at most
// min(options.device_batch_pixels, pixel_limit) pixels (an image larger alone) and
// surf::kMaxBatchImages images. pixel_limit: the extractor's batchPixelLimit on the route's device.
std::vector<std::vector<std::size_t>> deviceBatches(const std::vector<ImageSlot>& slots, std::size_t first,
                                                    std::size_t end, const PipelineOptions& options,
                                                    std::int64_t pixel_limit);

// The pipeline batch image `index` is in.
inline std::size_t pipelineBatch(std::size_t index, const PipelineOptions& options) {
  return index / static_cast<std::size_t>(std::max(1, options.batch_images));
}

}  // namespace bovw::detail
