// The SURF batch: upload, detection (one wait, for the keypoint count), orientation, grouping by
// image and description, all on one queue; and the read-back that turns the records into each
// image's features in OpenCV's order.
#include "surf_batch.hpp"

#include "features/extremum_detection.hpp"
#include "opencl/cl_errors.hpp"
#include "program_options.hpp"
#include "surf_describe.hpp"
#include "surf_detect.hpp"

#include <bovw/error.hpp>

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>

namespace bovw::surf {
namespace {

constexpr int kGroupSize = 256;     // kernels/surf_group.cl's SURF_GROUP_SIZE
constexpr int kGroupChunk = 4096;   // and SURF_GROUP_CHUNK

// The masks as 0/1 images (an empty mask: every pixel), for their integral images.
std::vector<cv::Mat> maskImages(const SurfBatchInput& input) {
  std::vector<cv::Mat> ones;
  for (std::size_t i = 0; i < input.grays.size(); ++i) {
    cv::Mat one;
    if (input.masks[i].empty())
      one = cv::Mat(input.grays[i].size(), CV_8U, cv::Scalar(1));
    else
      cv::min(input.masks[i], 1, one);
    ones.push_back(one);
  }
  return ones;
}

// The caller's keypoints as records of image 0, with offsets {0, n, n}: nothing is grouped.
void uploadGiven(detail::DeviceContext& device, const std::vector<cv::KeyPoint>& given, SurfOnDevice& batch) {
  std::vector<DeviceKeypoint> records;
  for (const cv::KeyPoint& kp : given) records.push_back(toDevice(kp));
  batch.count = static_cast<int>(records.size());
  const cl_int offsets[3] = {0, batch.count, batch.count};
  batch.offsets = device.scratch().get("surf.offsets", sizeof offsets);
  device.queue().enqueueWriteBuffer(batch.offsets, CL_TRUE, 0, sizeof offsets, offsets);
  if (records.empty()) return;
  batch.records = device.scratch().get("surf.grouped", sizeof(DeviceKeypoint) * records.size());
  device.queue().enqueueWriteBuffer(batch.records, CL_TRUE, 0, sizeof(DeviceKeypoint) * records.size(),
                                    records.data());
}

// Detected records grouped by image into batch.records, with their offsets (kernels/surf_group.cl:
// a count pass and a scatter pass over chunks of kGroupChunk records).
void enqueueGrouping(detail::DeviceContext& device, const cl::Buffer& detected, SurfOnDevice& batch) {
  batch.offsets = device.scratch().get("surf.offsets", sizeof(cl_int) * (batch.image_count + 2));
  batch.records = device.scratch().get("surf.grouped", sizeof(DeviceKeypoint) * std::max(batch.count, 1));
  const std::size_t tally_bytes = 2 * sizeof(cl_int) * (static_cast<std::size_t>(batch.image_count) + 1);
  const cl::Buffer tallies = device.scratch().get("surf.group.tallies", tally_bytes);
  auto& queue = device.queue();
  queue.enqueueFillBuffer(tallies, cl_int{0}, 0, tally_bytes);
  const std::size_t chunks = (static_cast<std::size_t>(batch.count) + kGroupChunk - 1) / kGroupChunk;
  const std::string options = surfProgramOptions(device);
  if (chunks > 0) {
    cl::Kernel& count = device.kernel("surf_group", "surf_group_count", options);
    count.setArg(0, detected);
    count.setArg(1, cl_int{batch.count});
    count.setArg(2, cl_int{batch.image_count});
    count.setArg(3, tallies);
    queue.enqueueNDRangeKernel(count, cl::NullRange, cl::NDRange(chunks * kGroupSize), cl::NDRange(kGroupSize),
                               nullptr, &batch.counted);
  }
  cl::Kernel& scatter = device.kernel("surf_group", "surf_group_scatter", options);
  scatter.setArg(0, detected);
  scatter.setArg(1, cl_int{batch.count});
  scatter.setArg(2, cl_int{batch.image_count});
  scatter.setArg(3, tallies);
  scatter.setArg(4, batch.records);
  scatter.setArg(5, batch.offsets);
  // At least one work-group: the offsets are written also when there is nothing to group.
  queue.enqueueNDRangeKernel(scatter, cl::NullRange, cl::NDRange(std::max<std::size_t>(chunks, 1) * kGroupSize),
                             cl::NDRange(kGroupSize), nullptr, &batch.grouped);
}

// The slot's suffix of the scratch buffers' names (slot 0: none).
std::string slotSuffix(int slot) { return slot == 0 ? std::string() : "#" + std::to_string(slot); }

}  // namespace

SurfOnDevice startSurf(detail::DeviceContext& device, const SurfBatchInput& input, const SurfParams& params) {
  const int images = static_cast<int>(input.grays.size());
  if (images < 1 || images > kMaxBatchImages)
    throw InvalidInput("SURF on the device: a batch holds 1 to " + std::to_string(kMaxBatchImages) + " images, got " +
                       std::to_string(images));
  if (!input.masks.empty() && input.masks.size() != input.grays.size())
    throw InvalidInput("SURF on the device: " + std::to_string(input.masks.size()) + " masks for " +
                       std::to_string(images) + " images");
  if (input.given != nullptr && images != 1)
    throw InvalidInput("SURF on the device: given keypoints need a batch of one image");
  const std::string slot = slotSuffix(input.slot);
  SurfOnDevice batch;
  batch.image_count = images;
  batch.width = params.extended ? 128 : 64;
  batch.images = uploadImages(device, input.grays, "image" + slot);
  // The uploads read host memory that `batch` owns: they must be done before it goes.
  detail::finishingQueueOnFailure(device.queue(), [&] {
    if (input.given != nullptr) return;  // nothing to detect
    if (!input.masks.empty()) batch.masks = uploadImages(device, maskImages(input), "mask" + slot);
    batch.detection =
        startDetection(device, batch.images, input.masks.empty() ? nullptr : &batch.masks, params, slot);
  });
  return batch;
}

void finishSurf(detail::DeviceContext& device, const SurfBatchInput& input, const SurfParams& params,
                SurfOnDevice& batch) {
  detail::finishingQueueOnFailure(device.queue(), [&] {
    if (input.given != nullptr) {  // in the caller's order: oriented in place, nothing to group
      uploadGiven(device, *input.given, batch);
      batch.oriented = enqueueOrientations(device, batch.images, batch.records, batch.count, params.upright);
    } else {
      finishDetection(device, batch.detection);
      batch.count = batch.detection.count;
      // Orientation before grouping: grouping sets the dropped keypoints apart.
      batch.oriented =
          enqueueOrientations(device, batch.images, batch.detection.records, batch.count, params.upright);
      enqueueGrouping(device, batch.detection.records, batch);
    }
    if (input.describe && batch.count > 0) {
      batch.descriptors = device.scratch().get("surf.descriptors", sizeof(float) * batch.count * batch.width);
      batch.described = enqueueDescriptors(device, batch.images, batch.records, batch.count, params.extended,
                                           params.upright, batch.descriptors, &batch.described_end);
    }
  });
}

SurfOnDevice enqueueSurf(detail::DeviceContext& device, const SurfBatchInput& input, const SurfParams& params) {
  SurfOnDevice batch = startSurf(device, input, params);
  finishSurf(device, input, params, batch);
  return batch;
}

std::vector<int> outputOrder(const DeviceKeypoint* records, int count, bool detected, const cv::Mat& mask) {
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  // keypointGreater's order on the records themselves (the same fields, the same floats), without
  // making cv::KeyPoints first: this sort is most of the host's share of a batch.
  auto key = [records](int i) {
    const DeviceKeypoint& k = records[i];
    return keypointOrder(k.response, k.size, k.octave, k.y, k.x);
  };
  auto greater = [&key](int i, int j) { return key(i) > key(j); };
  // OpenCV sorts, then removes keypoints outside the mask and those the orientation stage could not
  // sample (size -1); removing elements leaves the others sorted, so sorting first is as OpenCV does.
  if (detected) std::sort(order.begin(), order.end(), greater);
  std::vector<int> kept;
  kept.reserve(order.size());
  for (int i : order)
    if (records[i].size > 0 && (!detected || mask.empty() || !maskedOut(mask, fromDevice(records[i]))))
      kept.push_back(i);
  return kept;
}

std::vector<ImageFeatures> readFeatures(detail::DeviceContext& device, const SurfOnDevice& batch,
                                        const SurfBatchInput& input, SurfStageTimes* times) {
  auto& queue = device.queue();
  // Into the queue's pinned read-back memory (one allocation kept from batch to batch: a fresh
  // pageable vector per batch made large batches slower per image than small ones), in three
  // 64-byte-aligned parts: offsets, records, descriptor rows.
  const auto aligned = [](std::size_t bytes) { return (bytes + 63) / 64 * 64; };
  const std::size_t offset_bytes = aligned(sizeof(cl_int) * (static_cast<std::size_t>(batch.image_count) + 2));
  const std::size_t record_bytes = aligned(sizeof(DeviceKeypoint) * static_cast<std::size_t>(batch.count));
  const bool described = batch.count > 0 && batch.descriptors() != nullptr;
  const std::size_t row_bytes = sizeof(float) * batch.width;
  unsigned char* pinned = device.readback().reserve(offset_bytes + record_bytes +
                                                    (described ? row_bytes * batch.count : 0));
  const auto* offsets = reinterpret_cast<const cl_int*>(pinned);
  const auto* records = reinterpret_cast<const DeviceKeypoint*>(pinned + offset_bytes);
  const unsigned char* rows = pinned + offset_bytes + record_bytes;
  queue.enqueueReadBuffer(batch.offsets, CL_FALSE, 0, sizeof(cl_int) * (batch.image_count + 2), pinned);
  if (batch.count > 0) {
    queue.enqueueReadBuffer(batch.records, CL_FALSE, 0, sizeof(DeviceKeypoint) * batch.count,
                            pinned + offset_bytes);
    if (described)
      queue.enqueueReadBuffer(batch.descriptors, CL_FALSE, 0, row_bytes * batch.count,
                              pinned + offset_bytes + record_bytes);
  }
  queue.finish();

  const auto host_start = std::chrono::steady_clock::now();
  std::vector<ImageFeatures> features(static_cast<std::size_t>(batch.image_count));
  // The images in parallel: sorting and gathering on one core would take longer than the device's
  // whole batch (about 1 ms per 5,000 keypoints on the GPU machine's host).
  cv::parallel_for_(cv::Range(0, batch.image_count), [&](const cv::Range& range) {
    for (int i = range.start; i < range.end; ++i) {
      const int first = offsets[i], count = offsets[i + 1] - offsets[i];
      const cv::Mat no_mask;
      const std::vector<int> order = outputOrder(records + first, count, input.given == nullptr,
                                                 input.masks.empty() ? no_mask : input.masks[i]);
      ImageFeatures& f = features[i];
      f.keypoints.reserve(order.size());
      for (int k : order) f.keypoints.push_back(fromDevice(records[first + k]));
      if (input.describe) {  // plain row copies: a cv::Mat header per row cost ~2 ms per 5,000 rows
        f.descriptors.create(static_cast<int>(order.size()), batch.width, CV_32F);
        for (std::size_t r = 0; r < order.size(); ++r)
          std::memcpy(f.descriptors.ptr<float>(static_cast<int>(r)), rows + row_bytes * (first + order[r]), row_bytes);
      }
    }
  });
  if (times != nullptr) {
    addStageTimes(batch, *times);
    times->extrema_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();
  }
  return features;
}

double elapsedBetween(const cl::Event& first, const cl::Event& last) {
  try {
    if (first() == nullptr || last() == nullptr) return 0;
    const auto a = first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const auto b = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    return b > a ? static_cast<double>(b - a) * 1e-6 : 0.0;
  } catch (const cl::Error&) {
    return 0;
  }
}

void addStageTimes(const SurfOnDevice& batch, SurfStageTimes& times) {
  times.prepare_ms += elapsedBetween(batch.images.uploaded, batch.images.integrated);
  const DeviceDetection& detection = batch.detection;
  times.hessian_ms += elapsedBetween(detection.hessian, detection.hessian);
  // Grouping by image is the device's share of what the CPU detector's final sort does.
  times.extrema_ms +=
      elapsedBetween(detection.first_extrema, detection.extrema) +
      elapsedBetween(batch.counted() != nullptr ? batch.counted : batch.grouped, batch.grouped);
  times.orientation_ms += elapsedBetween(batch.oriented, batch.oriented);
  times.descriptor_ms += elapsedBetween(batch.described, batch.described_end);
}

}  // namespace bovw::surf
