// The extraction pipeline: the workers (image_workers.hpp) decode images and extract features in
// parallel, the calling thread assembles ordered batches and hands them to the consumer (for
// histograms on the device) while the workers continue with the next batches.
#include "image_workers.hpp"

#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>

namespace bovw {

namespace {

// Stacks the batch's descriptor matrices and keypoints into one, with offsets; releases the slots'
// memory.
ExtractedBatch assemble(std::vector<detail::ImageSlot>& slots, std::size_t first, std::size_t end, int width) {
  ExtractedBatch batch;
  batch.first = first;
  batch.offsets = {0};
  for (std::size_t i = first; i < end; ++i)
    batch.offsets.push_back(batch.offsets.back() + slots[i].features.descriptors.rows);
  batch.descriptors.resize(batch.offsets.back(), width);
  batch.points.reserve(static_cast<std::size_t>(batch.offsets.back()));
  for (std::size_t i = first; i < end; ++i) {
    ImageFeatures& f = slots[i].features;
    const cv::Mat& d = f.descriptors;
    batch.failed.push_back(!slots[i].error.empty());
    batch.image_sizes.push_back(slots[i].image_size);
    if (d.rows == 0) continue;
    if (d.cols != width || d.type() != CV_32F)
      throw Error("feature extractor returned " + std::to_string(d.cols) + " columns, expected " + std::to_string(width));
    if (f.keypoints.size() != static_cast<std::size_t>(d.rows))
      throw Error("feature extractor returned " + std::to_string(d.rows) + " descriptors but " +
                  std::to_string(f.keypoints.size()) + " keypoints");
    for (int r = 0; r < d.rows; ++r)
      std::copy(d.ptr<float>(r), d.ptr<float>(r) + width, batch.descriptors.row(batch.offsets[i - first] + r).data());
    for (const cv::KeyPoint& k : f.keypoints) batch.points.push_back(k.pt);
    f = ImageFeatures();  // the slot's memory is not needed any more
  }
  return batch;
}

}  // namespace

std::vector<ImageFailure> extractInBatches(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                           const PipelineOptions& options, const BatchConsumer& consume) {
  return detail::runImageWorkers(
      paths, options,
      [&](const cv::Mat& image, detail::ImageSlot& slot) { slot.features = extractor.extractFeatures(image); },
      [&](std::size_t first, std::size_t end, std::vector<detail::ImageSlot>& slots) {
        consume(assemble(slots, first, end, extractor.descriptorSize()));
      });
}

}  // namespace bovw
