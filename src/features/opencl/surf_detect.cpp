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

template <typename Record>
cl::Buffer tableBuffer(detail::DeviceContext& device, const std::string& name, const std::vector<Record>& table) {
  return device.scratch().table(name, table.data(), sizeof(Record) * table.size());
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

DeviceDetection detectOnDevice(detail::DeviceContext& device, const DeviceImages& images, const DeviceImages* masks,
                               const SurfParams& params) {
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

  auto& queue = device.queue();
  // The same for every image of one size: kept on the device while the size repeats.
  const cl::Buffer layers = tableBuffer(device, "surf.layers", plan.layers);
  const cl::Buffer searches = tableBuffer(device, "surf.searches", plan.searches);
  const cl::Buffer det = device.scratch().get("surf.det", det_bytes);

  cl::Kernel& hessian = device.kernel("surf_hessian", "surf_hessian", surfProgramOptions(device));
  hessian.setArg(0, images.sum);
  hessian.setArg(1, layers);
  hessian.setArg(2, static_cast<cl_int>(plan.layers.size()));
  hessian.setArg(3, static_cast<cl_int>(plan.hessian_items));
  hessian.setArg(4, det);
  cl::Event hessian_done;
  queue.enqueueNDRangeKernel(hessian, cl::NullRange, roundedUp(plan.hessian_items), cl::NDRange(kGroup), nullptr,
                             &hessian_done);

  cl::Kernel& extrema = device.kernel("surf_extrema", "surf_extrema", surfProgramOptions(device));
  extrema.setArg(0, images.sum);
  if (masks != nullptr)
    extrema.setArg(1, masks->sum);
  else
    extrema.setArg(1, sizeof(cl_mem), nullptr);
  extrema.setArg(2, layers);
  extrema.setArg(3, searches);
  extrema.setArg(4, static_cast<cl_int>(plan.searches.size()));
  extrema.setArg(5, static_cast<cl_int>(plan.search_items));
  extrema.setArg(6, det);
  extrema.setArg(7, static_cast<cl_float>(params.hessian_threshold));
  const cl::Buffer count = device.scratch().get("surf.count", sizeof(cl_int));
  // A second launch with room for every keypoint when the first one ran out (the count is exact).
  int capacity = std::max<int>(kMinCapacity * images.layout.size(), static_cast<int>(plan.search_items / 256));
  cl_int found = 0;
  cl::Buffer records;
  cl::Event first_extrema, extrema_done;
  for (int attempt = 0; attempt < 2; ++attempt) {
    records = device.scratch().get("surf.records", sizeof(DeviceKeypoint) * capacity);
    const cl_int zero = 0;
    queue.enqueueFillBuffer(count, zero, 0, sizeof zero);
    extrema.setArg(8, records);
    extrema.setArg(9, cl_int{capacity});
    extrema.setArg(10, count);
    queue.enqueueNDRangeKernel(extrema, cl::NullRange, roundedUp(plan.search_items), cl::NDRange(kGroup), nullptr,
                               &extrema_done);
    if (attempt == 0) first_extrema = extrema_done;
    const auto wait_start = std::chrono::steady_clock::now();
    queue.enqueueReadBuffer(count, CL_TRUE, 0, sizeof found, &found);
    result.count_wait_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
    if (found <= capacity) break;
    capacity = found;
  }
  result.records = records;
  result.count = found;
  result.hessian = hessian_done;
  result.first_extrema = first_extrema;
  result.extrema = extrema_done;
  return result;
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
