#include "surf_detect.hpp"

#include "device_keypoint.hpp"
#include "device_layers.hpp"
#include "program_options.hpp"
#include "features/extremum_detection.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

namespace bovw::surf {
namespace {

constexpr int kRowGroup = 256;   // surf_integral_rows' SURF_ROW_WG
constexpr int kGroup = 128;      // work-group size of the element-wise launches
constexpr int kMinCapacity = 4096;  // keypoints the first extremum launch has room for

cl::NDRange roundedUp(std::int64_t items) {
  return cl::NDRange(static_cast<std::size_t>((items + kGroup - 1) / kGroup * kGroup));
}

// A batch's table (its layers or searches), written into the named buffer without waiting.
template <typename Record>
cl::Buffer tableBuffer(detail::DeviceContext& device, const std::string& name, const std::vector<Record>& table) {
  return device.scratch().upload(device.queue(), name, table.data(), sizeof(Record) * table.size());
}

}  // namespace

cl::Event enqueueIntegralImages(detail::DeviceContext& device, const DeviceImages& images) {
  const ImageLayout& layout = images.layout;
  if (layout.rows == 0) return cl::Event();
  const std::string options = surfProgramOptions(device) + " -DSURF_ROW_WG=" + std::to_string(kRowGroup);
  cl::Kernel& rows = device.kernel("surf_integral", "surf_integral_rows", options);
  cl::Kernel& columns = device.kernel("surf_integral", "surf_integral_columns", options);
  rows.setArg(0, images.gray);
  rows.setArg(1, images.table);
  rows.setArg(2, cl_int{layout.size()});
  rows.setArg(3, images.sum);
  columns.setArg(0, images.table);
  columns.setArg(1, cl_int{layout.size()});
  columns.setArg(2, cl_int{layout.columns});
  columns.setArg(3, images.sum);
  auto& queue = device.queue();
  queue.enqueueNDRangeKernel(rows, cl::NullRange, cl::NDRange(static_cast<std::size_t>(layout.rows) * kRowGroup),
                             cl::NDRange(kRowGroup));
  cl::Event done;
  queue.enqueueNDRangeKernel(columns, cl::NullRange, roundedUp(layout.columns), cl::NDRange(kGroup), nullptr, &done);
  return done;
}

// The extremum search's arguments, its room, and the count's read-back (into `found`, pinned memory
// of the slot's own: a read into pageable memory left the device idle while the host copied it).
struct PendingExtrema {
  cl::Buffer sum, mask_sum, layers, searches, det, count;
  cl_int search_count = 0, search_items = 0;
  cl_float threshold = 0;
  std::string records_name;
  int capacity = 0;
  cl_int* found = nullptr;
  cl::Event count_read;
};

namespace {

// One extremum launch with room for e.capacity records, then the count's read-back (blocking or
// not). Every argument is set again: the kernel object is shared with the batches started since.
cl::Buffer enqueueExtrema(detail::DeviceContext& device, PendingExtrema& e, bool blocking, cl::Event& done) {
  auto& queue = device.queue();
  cl::Kernel& extrema = device.kernel("surf_extrema", "surf_extrema", surfProgramOptions(device));
  const cl::Buffer records = device.scratch().get(e.records_name, sizeof(DeviceKeypoint) * e.capacity);
  extrema.setArg(0, e.sum);
  if (e.mask_sum() != nullptr)
    extrema.setArg(1, e.mask_sum);
  else
    extrema.setArg(1, sizeof(cl_mem), nullptr);
  extrema.setArg(2, e.layers);
  extrema.setArg(3, e.searches);
  extrema.setArg(4, e.search_count);
  extrema.setArg(5, e.search_items);
  extrema.setArg(6, e.det);
  extrema.setArg(7, e.threshold);
  extrema.setArg(8, records);
  extrema.setArg(9, cl_int{e.capacity});
  extrema.setArg(10, e.count);
  const cl_int zero = 0;
  queue.enqueueFillBuffer(e.count, zero, 0, sizeof zero);
  queue.enqueueNDRangeKernel(extrema, cl::NullRange, roundedUp(e.search_items), cl::NDRange(kGroup), nullptr, &done);
  queue.enqueueReadBuffer(e.count, blocking ? CL_TRUE : CL_FALSE, 0, sizeof(cl_int), e.found, nullptr,
                          &e.count_read);
  return records;
}

}  // namespace

DeviceDetection startDetection(detail::DeviceContext& device, const DeviceImages& images, const DeviceImages* masks,
                               const SurfParams& params, const std::string& slot) {
  const DeviceScaleSpace plan = planDeviceScaleSpace(images.layout, params.octaves, params.octave_layers);
  const auto max_alloc = device.device().getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  const std::uint64_t det_bytes = sizeof(float) * static_cast<std::uint64_t>(plan.det_elements);
  const std::string image = images.layout.size() == 1
                                ? "a " + std::to_string(images.layout.records[0].cols) + " x " +
                                      std::to_string(images.layout.records[0].rows) + " image"
                                : std::to_string(images.layout.size()) + " images of " +
                                      std::to_string(images.layout.pixels) + " pixels";
  if (det_bytes > max_alloc)
    throw CapacityError("SURF on the device: " + image + " needs " + std::to_string(det_bytes >> 20) +
                        " MiB of Hessian responses, more than the device's largest allocation (" +
                        std::to_string(max_alloc >> 20) + " MiB); use fewer octave layers or the builtin backend");
  // The kernels index the scale space with 32-bit integers.
  if (plan.det_elements > std::numeric_limits<std::int32_t>::max())
    throw CapacityError("SURF on the device: " + image + " has " + std::to_string(plan.det_elements) +
                        " Hessian responses, more than the kernels' 32-bit indices reach (2^31 - 1); use fewer " +
                        "octave layers or the builtin backend");
  DeviceDetection result;
  if (plan.searches.empty()) return result;  // smaller than the smallest octave's search window

  auto pending = std::make_shared<PendingExtrema>();
  PendingExtrema& e = *pending;
  e.layers = tableBuffer(device, "surf.layers" + slot, plan.layers);
  e.searches = tableBuffer(device, "surf.searches" + slot, plan.searches);
  e.det = device.scratch().get("surf.det" + slot, det_bytes);
  e.count = device.scratch().get("surf.count" + slot, sizeof(cl_int));
  e.found = reinterpret_cast<cl_int*>(device.scratch().pinned("surf.count" + slot, sizeof(cl_int)));
  e.sum = images.sum;
  if (masks != nullptr) e.mask_sum = masks->sum;
  e.search_count = static_cast<cl_int>(plan.searches.size());
  e.search_items = static_cast<cl_int>(plan.search_items);
  e.threshold = static_cast<cl_float>(params.hessian_threshold);
  e.records_name = "surf.records" + slot;
  e.capacity = std::max<int>(kMinCapacity * images.layout.size(), static_cast<int>(plan.search_items / 256));

  cl::Kernel& hessian = device.kernel("surf_hessian", "surf_hessian", surfProgramOptions(device));
  hessian.setArg(0, images.sum);
  hessian.setArg(1, e.layers);
  hessian.setArg(2, static_cast<cl_int>(plan.layers.size()));
  hessian.setArg(3, static_cast<cl_int>(plan.hessian_items));
  hessian.setArg(4, e.det);
  device.queue().enqueueNDRangeKernel(hessian, cl::NullRange, roundedUp(plan.hessian_items), cl::NDRange(kGroup),
                                      nullptr, &result.hessian);
  result.records = enqueueExtrema(device, e, false, result.first_extrema);
  result.extrema = result.first_extrema;
  result.pending = std::move(pending);
  return result;
}

void finishDetection(detail::DeviceContext& device, DeviceDetection& detection) {
  if (!detection.pending) return;
  PendingExtrema& e = *detection.pending;
  const auto wait_start = std::chrono::steady_clock::now();
  e.count_read.wait();
  detection.count_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
  // A second launch with room for every keypoint when the first one ran out (the count is exact).
  const int found = *e.found;
  if (found > e.capacity) {
    e.capacity = found;
    detection.records = enqueueExtrema(device, e, true, detection.extrema);
  }
  detection.count = found;
  detection.pending.reset();
}

DeviceDetection detectOnDevice(detail::DeviceContext& device, const DeviceImages& images, const DeviceImages* masks,
                               const SurfParams& params) {
  DeviceDetection detection = startDetection(device, images, masks, params, "");
  finishDetection(device, detection);
  return detection;
}

std::vector<cv::KeyPoint> detectKeypoints(detail::DeviceContext& device, const DeviceImages& image,
                                          const DeviceImages* mask, const SurfParams& params) {
  const DeviceDetection found = detectOnDevice(device, image, mask, params);
  std::vector<DeviceKeypoint> records(static_cast<std::size_t>(found.count));
  if (found.count > 0)
    device.queue().enqueueReadBuffer(found.records, CL_TRUE, 0, sizeof(DeviceKeypoint) * records.size(),
                                     records.data());
  std::vector<cv::KeyPoint> keypoints;
  for (const DeviceKeypoint& d : records) keypoints.push_back(fromDevice(d));
  std::sort(keypoints.begin(), keypoints.end(), keypointGreater);
  return keypoints;
}

}  // namespace bovw::surf
