// Image loading with named errors. The header peek for PNG and JPEG lets the pixel limit refuse a
// decompression bomb before cv::imread allocates it.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

namespace bovw {
namespace {

std::optional<cv::Size> pngSize(const std::vector<uchar>& b) {
  static const uchar kSig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (b.size() < 24 || !std::equal(kSig, kSig + 8, b.begin())) return std::nullopt;
  auto be32 = [&](size_t o) { return (std::uint32_t(b[o]) << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]; };
  const std::uint32_t w = be32(16), h = be32(20);
  if (w > 0x7fffffff || h > 0x7fffffff) return cv::Size(0x7fffffff, 0x7fffffff);
  return cv::Size(static_cast<int>(w), static_cast<int>(h));
}

bool isJpeg(const std::vector<uchar>& b) { return b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF; }

// Width and height from the first SOF marker of a JPEG.
std::optional<cv::Size> jpegSize(const std::vector<uchar>& b) {
  size_t i = 2;
  while (i + 9 < b.size()) {
    if (b[i] != 0xFF) return std::nullopt;
    const uchar marker = b[i + 1];
    if (marker == 0xFF) { ++i; continue; }
    const size_t len = (size_t(b[i + 2]) << 8) | b[i + 3];
    const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) return cv::Size((b[i + 7] << 8) | b[i + 8], (b[i + 5] << 8) | b[i + 6]);
    i += 2 + len;
  }
  return std::nullopt;
}

// Entropy-coded JPEG data never holds FF D9 (0xFF is stuffed), so a file whose tail lacks it was cut.
bool jpegHasEnd(const std::vector<uchar>& b) {
  const size_t from = b.size() > 4096 ? b.size() - 4096 : 0;
  for (size_t i = b.size() - 1; i > from; --i)
    if (b[i - 1] == 0xFF && b[i] == 0xD9) return true;
  return false;
}

}  // namespace

bool hasImageExtension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of("/\\");
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  static const char* kExts[] = {"png", "jpg", "jpeg", "jpe", "tif", "tiff", "bmp", "dib", "webp", "jp2",
                                "pbm", "pgm", "ppm", "pxm", "pnm", "sr", "ras", "exr", "hdr", "pic"};
  return std::any_of(std::begin(kExts), std::end(kExts), [&](const char* e) { return ext == e; });
}

cv::Mat loadImage(const std::string& path, std::int64_t max_pixels, int flags) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw IoError("cannot read image file '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open image file '" + path + "'");
  std::vector<uchar> bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    throw IoError("cannot read image file '" + path + "': " + e.what());
  }
  if (in.bad()) throw IoError("cannot read image file '" + path + "'");
  if (bytes.empty()) throw InvalidInput(path, "the image file is empty");

  std::optional<cv::Size> header = pngSize(bytes);
  if (!header && isJpeg(bytes)) header = jpegSize(bytes);
  auto check = [&](cv::Size s) {
    const auto pixels = static_cast<std::int64_t>(s.width) * s.height;
    if (pixels > max_pixels)
      throw CapacityError("image '" + path + "' has " + std::to_string(s.width) + "x" + std::to_string(s.height) +
                          " pixels, above the limit of " + std::to_string(max_pixels));
  };
  if (header) check(*header);
  if (isJpeg(bytes) && !jpegHasEnd(bytes)) throw InvalidInput(path, "the image file is truncated (no JPEG end marker)");

  cv::Mat img;
  try {
    img = cv::imdecode(bytes, flags);
  } catch (const cv::Exception& e) {
    throw InvalidInput(path, std::string("cannot decode the image: ") + e.what());
  }
  if (img.empty()) throw InvalidInput(path, "cannot decode the image (not an image, or truncated)");
  check(img.size());
  return img;
}

}  // namespace bovw
