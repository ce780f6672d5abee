// The engine under extractInBatches and the fused device route (device_histograms.hpp): a pool of
// workers decodes the images in parallel and does `work` on each (extract its features, or convert
// it to what the device takes), at most two batches ahead of the calling thread, which hands each
// batch of finished slots, in order, to `consume`.
#pragma once

#include <bovw/feature_extractor.hpp>
#include <bovw/image_pipeline.hpp>

#include <opencv2/core.hpp>

#include <functional>
#include <string>
#include <vector>

namespace bovw::detail {

struct ImageSlot {
  cv::Mat kept;            // what `work` kept of the image (the device route: SURF's gray image)
  ImageFeatures features;  // what `work` extracted (extractInBatches)
  cv::Size image_size;
  std::string error;       // set by a worker, or by `consume` for an image that failed later
  bool ready = false;
};

// Called on a worker thread: image `index`'s pixels (throws to fail the image). The default:
// loadImage(paths[index], options.max_pixels).
using ImageDecoder = std::function<cv::Mat(std::size_t index)>;
// Called on a worker thread with image `index`'s decoded pixels; throws to fail the image.
using ImageWork = std::function<void(std::size_t index, const cv::Mat& image, ImageSlot& slot)>;
// Called on the calling thread with slots [first, end), all ready; may set errors (before strict
// mode's check, which then throws the first) and release the slots' memory. Returns `settled`: the
// slots below it are final. A consumer that keeps work in flight across batches (the device route:
// no drain of the device between batches) returns less than `end`; it is then called once more at
// the end with first == end == paths.size(), and must settle everything.
using SlotConsumer = std::function<std::size_t(std::size_t first, std::size_t end, std::vector<ImageSlot>& slots)>;

// Returns the failures (the workers' and consume's), in image order. Throws the first failure as
// InvalidInput with options.strict. `decode` null: the default.
std::vector<ImageFailure> runImageWorkers(const std::vector<std::string>& paths, const PipelineOptions& options,
                                          const ImageDecoder& decode, const ImageWork& work,
                                          const SlotConsumer& consume);

}  // namespace bovw::detail
