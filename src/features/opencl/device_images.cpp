#include "device_images.hpp"

#include "surf_detect.hpp"

#include <bovw/error.hpp>

#include <limits>

namespace bovw::surf {

ImageLayout layoutImages(const std::vector<cv::Size>& sizes) {
  ImageLayout layout;
  for (const cv::Size& size : sizes) {
    DeviceImageRecord r{};
    r.rows = size.height;
    r.cols = size.width;
    r.pixels = static_cast<std::int32_t>(layout.pixels);
    r.sum = static_cast<std::int32_t>(layout.sum_elements);
    r.quads = static_cast<std::int32_t>(layout.quad_words);
    r.first_row = layout.rows;
    r.first_column = layout.columns;
    layout.records.push_back(r);
    layout.pixels += static_cast<std::int64_t>(size.area());
    layout.sum_elements += static_cast<std::int64_t>(size.height + 1) * (size.width + 1);
    // kernels/surf_window.h's surf_quad_index: tiles of 8 x 4 words.
    layout.quad_words += std::int64_t{32} * ((size.height + 3) / 4) * ((size.width + 7) / 8);
    layout.rows += size.height;
    layout.columns += size.width + 1;
    layout.widest = std::max(layout.widest, size.width);
    constexpr std::int64_t kLimit = std::numeric_limits<std::int32_t>::max();
    if (layout.sum_elements > kLimit || layout.quad_words > kLimit)
      throw CapacityError("SURF on the device: images totalling " + std::to_string(layout.pixels) +
                          " pixels pass the kernels' 32-bit offsets (2^31 - 1 elements); use smaller batches");
  }
  return layout;
}

DeviceImages uploadImages(detail::DeviceContext& device, const std::vector<cv::Mat>& grays, const std::string& name) {
  std::vector<cv::Size> sizes;
  for (const cv::Mat& g : grays) sizes.push_back(g.size());
  DeviceImages images;
  images.layout = layoutImages(sizes);
  const ImageLayout& layout = images.layout;
  images.table = device.scratch().upload(device.queue(), "surf." + name + ".table", layout.records.data(),
                                         sizeof(DeviceImageRecord) * layout.records.size());
  images.gray = device.scratch().get("surf." + name + ".gray", static_cast<std::size_t>(layout.pixels));
  images.sum = device.scratch().get("surf." + name + ".sum", sizeof(cl_uint) * layout.sum_elements);
  for (int i = 0; i < layout.size(); ++i) {
    images.sources.push_back(grays[i].isContinuous() ? grays[i] : grays[i].clone());
    const cv::Mat& g = images.sources.back();
    if (g.total() == 0) continue;
    device.queue().enqueueWriteBuffer(images.gray, CL_FALSE, layout.records[i].pixels, g.total(), g.data, nullptr,
                                      images.uploaded() == nullptr ? &images.uploaded : nullptr);
  }
  images.integrated = enqueueIntegralImages(device, images);
  return images;
}

}  // namespace bovw::surf
