#include "device_images.hpp"

#include "surf_detect.hpp"

#include <bovw/error.hpp>

#include <cstring>
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
  // One packed host copy, written in one transfer.
  images.packed = std::make_shared<std::vector<unsigned char>>(static_cast<std::size_t>(std::max<std::int64_t>(layout.pixels, 1)));
  std::vector<unsigned char>& packed = *images.packed;
  for (int i = 0; i < layout.size(); ++i) {
    const cv::Mat& g = grays[i];
    unsigned char* out = packed.data() + layout.records[i].pixels;
    for (int y = 0; y < g.rows; ++y) std::memcpy(out + static_cast<std::size_t>(y) * g.cols, g.ptr(y), g.cols);
  }
  images.table = device.scratch().table("surf." + name + ".table", layout.records.data(),
                                        sizeof(DeviceImageRecord) * layout.records.size());
  images.gray = device.scratch().get("surf." + name + ".gray", packed.size());
  images.sum = device.scratch().get("surf." + name + ".sum", sizeof(cl_uint) * std::max<std::int64_t>(layout.sum_elements, 1));
  device.queue().enqueueWriteBuffer(images.gray, CL_FALSE, 0, packed.size(), packed.data(), nullptr, &images.uploaded);
  images.integrated = enqueueIntegralImages(device, images);
  return images;
}

}  // namespace bovw::surf
