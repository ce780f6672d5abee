// The extraction pipeline: the workers (image_workers.hpp) decode images and extract features in
// parallel, the calling thread assembles ordered batches and hands them to the consumer (for
// histograms on the device) while the workers continue with the next batches. With SURF on the
// OpenCL backend the workers only decode (into pinned staging) and the calling thread runs the
// images through SURF in device batches of many images (device_batches.hpp): the same features.
#include "device_batches.hpp"
#include "image_workers.hpp"

#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>

namespace bovw {

namespace {

using detail::ImageSlot;

// Stacks the batch's descriptor matrices and keypoints into one, with offsets; releases the slots'
// memory.
ExtractedBatch assemble(std::vector<ImageSlot>& slots, std::size_t first, std::size_t end, int width) {
  ExtractedBatch batch;
  batch.first = first;
  batch.offsets = {0};
  for (std::size_t i = first; i < end; ++i)
    batch.offsets.push_back(batch.offsets.back() + slots[i].features.descriptors.rows);
  batch.descriptors.resize(batch.offsets.back(), width);
  batch.points.reserve(static_cast<std::size_t>(batch.offsets.back()));
  batch.sizes.reserve(static_cast<std::size_t>(batch.offsets.back()));
  batch.angles.reserve(static_cast<std::size_t>(batch.offsets.back()));
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
    for (const cv::KeyPoint& k : f.keypoints) {
      batch.points.push_back(k.pt);
      batch.sizes.push_back(k.size);
      batch.angles.push_back(k.angle);
    }
    f = ImageFeatures();  // the slot's memory is not needed any more
  }
  return batch;
}

// The images of one device batch (slot.kept) through SURF on the device, each image's features into
// its slot. A failed batch of several is retried image by image, so that an error names its image
// and the others still finish.
void extractOnDevice(const detail::DeviceFeatures& features, const std::vector<std::size_t>& members,
                     std::vector<ImageSlot>& slots, const std::vector<std::string>& paths) {
  try {
    surf::SurfBatchInput input;
    for (std::size_t i : members) input.grays.push_back(slots[i].kept);
    std::vector<ImageFeatures> extracted = features.extract(input);
    for (std::size_t k = 0; k < members.size(); ++k) slots[members[k]].features = std::move(extracted[k]);
  } catch (const std::exception& e) {
    if (members.size() > 1) {
      for (std::size_t i : members) extractOnDevice(features, {i}, slots, paths);
      return;
    }
    const std::string& path = paths[members[0]];
    std::string message = e.what();
    if (message.find(path) == std::string::npos) message = "'" + path + "': " + message;
    slots[members[0]].error = message;
  }
}

// Every image's features in its slot, then `consume(first, end, slots)` per pipeline batch.
using SlotsConsumer = std::function<void(std::size_t first, std::size_t end, std::vector<ImageSlot>& slots)>;
std::vector<ImageFailure> extractSlots(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                       const PipelineOptions& options, const SlotsConsumer& consume) {
  const detail::DeviceFeatures* features = options.fused_device ? detail::deviceFeaturesOf(extractor) : nullptr;
  if (features == nullptr)
    return detail::runImageWorkers(
        paths, options, nullptr,
        [&](std::size_t, const cv::Mat& image, ImageSlot& slot) { slot.features = extractor.extractFeatures(image); },
        [&](std::size_t first, std::size_t end, std::vector<ImageSlot>& slots) {
          consume(first, end, slots);
          return end;
        });
  std::unique_ptr<detail::DeviceContext> mapping = features->newQueue();
  const std::int64_t pixel_limit = features->batchPixelLimit(*mapping);
  detail::PinnedStaging staging(std::move(mapping), detail::kStagingDepth);
  const detail::StagedDecoding staged = detail::stagedDecoding(staging, *features, paths, options);
  return detail::runImageWorkers(
      paths, options, staged.decode, staged.work,
      [&](std::size_t first, std::size_t end, std::vector<ImageSlot>& slots) {
        // Each device batch is read back (and so uploaded) before the next starts.
        for (const auto& members : detail::deviceBatches(slots, first, end, options, pixel_limit))
          extractOnDevice(*features, members, slots, paths);
        for (std::size_t i = first; i < end; ++i) slots[i].kept.release();
        staging.release(detail::pipelineBatch(first, options));
        consume(first, end, slots);
        return end;
      });
}

}  // namespace

std::vector<ImageFailure> extractInBatches(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                           const PipelineOptions& options, const BatchConsumer& consume) {
  return extractSlots(paths, extractor, options, [&](std::size_t first, std::size_t end, std::vector<ImageSlot>& slots) {
    consume(assemble(slots, first, end, extractor.descriptorSize()));
  });
}

std::vector<ImageFailure> extractImageFeatures(const std::vector<std::string>& paths,
                                               const FeatureExtractor& extractor, const PipelineOptions& options,
                                               const FeatureConsumer& consume) {
  return extractSlots(paths, extractor, options, [&](std::size_t first, std::size_t end, std::vector<ImageSlot>& slots) {
    for (std::size_t i = first; i < end; ++i) {
      if (slots[i].error.empty()) consume(i, slots[i].features);
      slots[i].features = ImageFeatures();
    }
  });
}

}  // namespace bovw
