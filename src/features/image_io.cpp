// Image loading with named errors. Before OpenCV decodes anything, the format's header gives the
// size, so the pixel limit refuses a decompression bomb without allocating it, and JPEG and PNG
// data goes through a strict decode first (image_headers/, decoder_checks/).
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include "features/image_allocation.hpp"
#include "features/image_headers/image_formats.hpp"
#include "io/file_bytes.hpp"

#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <streambuf>
#include <vector>

namespace bovw {
namespace {

// std::cerr's buffer once captureDecoderMessages() ran: what a thread writes while it decodes
// goes to that thread's string, everything else to the original buffer.
class DecoderMessages : public std::streambuf {
 public:
  explicit DecoderMessages(std::streambuf* original) : original_(original) {}
  static thread_local std::string* capture;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (capture) {
      capture->append(s, static_cast<std::size_t>(n));
      return n;
    }
    return original_->sputn(s, n);
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  int sync() override { return capture ? 0 : original_->pubsync(); }

 private:
  std::streambuf* original_;
};

thread_local std::string* DecoderMessages::capture = nullptr;

// Sets this thread's capture for the lifetime of the object.
class CapturingDecoderMessages {
 public:
  explicit CapturingDecoderMessages(std::string& into) { DecoderMessages::capture = &into; }
  ~CapturingDecoderMessages() { DecoderMessages::capture = nullptr; }
  CapturingDecoderMessages(const CapturingDecoderMessages&) = delete;
  CapturingDecoderMessages& operator=(const CapturingDecoderMessages&) = delete;
};

// Captured lines joined into one, each trimmed of spaces and of OpenCV's "> " quote marks.
std::string oneLine(const std::string& text) {
  std::string line;
  std::istringstream lines(text);
  for (std::string piece; std::getline(lines, piece);) {
    const auto first = piece.find_first_not_of(" \t\r>");
    if (first == std::string::npos) continue;
    const auto last = piece.find_last_not_of(" \t\r");
    line += (line.empty() ? "" : " ") + piece.substr(first, last - first + 1);
  }
  return line;
}

void checkPixels(const std::string& path, const std::string& source, std::uint64_t width, std::uint64_t height,
                 std::int64_t max_pixels) {
  // width * height > limit without the product, which can overflow (an OpenEXR data window spans 2^32).
  const auto limit = static_cast<std::uint64_t>(max_pixels);
  if (width != 0 && height > limit / width)
    throw CapacityError("image '" + path + "' " + source + " " + std::to_string(width) + "x" + std::to_string(height) +
                        " pixels, above the limit of " + std::to_string(max_pixels));
}

// The file's bytes; a directory, FIFO or device (/dev/zero) is refused before anything is read.
std::vector<uchar> readBytes(const std::string& path) {
  detail::InputFile file(path, "an image file");
  std::vector<uchar> bytes(static_cast<std::size_t>(file.size()));
  file.read(reinterpret_cast<char*>(bytes.data()), bytes.size());
  return bytes;
}

}  // namespace

bool hasImageExtension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  const auto slash = path.find_last_of("/\\");
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return false;
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  // Every format image_headers/ knows (OpenCV's decoders here), by the extensions OpenCV's writers use.
  static const char* kExts[] = {"png", "jpg", "jpeg", "jpe", "tif", "tiff", "bmp", "dib", "webp", "jp2", "j2k",
                                "pbm", "pgm", "ppm", "pxm", "pnm", "pam", "pfm", "sr", "ras", "exr", "hdr", "pic"};
  return std::any_of(std::begin(kExts), std::end(kExts), [&](const char* e) { return ext == e; });
}

void captureDecoderMessages() {
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  static DecoderMessages messages(std::cerr.rdbuf());
  static const bool installed = (std::cerr.rdbuf(&messages), true);
  (void)installed;
}

cv::Mat loadImage(const std::string& path, std::int64_t max_pixels, int flags) {
  return detail::loadImage(path, max_pixels, flags, nullptr);
}

cv::Mat decodeImage(const unsigned char* data, std::size_t size, const std::string& name, std::int64_t max_pixels,
                    int flags) {
  return detail::decodeImage(data, size, name, max_pixels, flags, nullptr);
}

namespace detail {

cv::Mat loadImage(const std::string& path, std::int64_t max_pixels, int flags, cv::MatAllocator* allocator) {
  const std::vector<uchar> bytes = readBytes(path);
  return decodeImage(bytes.data(), bytes.size(), path, max_pixels, flags, allocator);
}

cv::Mat decodeImage(const unsigned char* data, std::size_t size, const std::string& name, std::int64_t max_pixels,
                    int flags, cv::MatAllocator* allocator) {
  const std::string& path = name;
  if (size == 0) throw InvalidInput(path, "the image file is empty");
  if (size > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw CapacityError("image '" + path + "' has " + std::to_string(size) + " bytes, above OpenCV's decoder limit of 2 GiB");

  const std::optional<detail::ImageHeader> header =
      detail::readImageHeader(detail::HeaderBytes(data, size, path));
  const std::string format = header ? std::string(header->format) + " " : std::string();
  const auto refuse = [&](const std::string& problem) {
    return InvalidInput(path, "the " + format + "data is corrupt or truncated: " + problem);
  };
  cv::Mat img;
  img.allocator = allocator;  // the decoders create their output with it (null: the default)
  detail::DataVerdict verdict;
  if (header) {
    checkPixels(path, "(" + format + "header) declares", header->size.width, header->size.height, max_pixels);
    // Gray (what SURF reads, any depth allowed or not), turned by its Exif orientation: checked and
    // decoded in one pass where the format can.
    const bool any_depth = flags == (cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH);
    if ((flags == cv::IMREAD_GRAYSCALE || any_depth) && header->decode_gray != nullptr) {
      const detail::CheckedDecode decoded = header->decode_gray(data, size, img, any_depth);
      if (decoded.verdict.problem) throw refuse(*decoded.verdict.problem);
      if (decoded.handled) {
        checkPixels(path, "has", static_cast<std::uint64_t>(img.cols), static_cast<std::uint64_t>(img.rows),
                    max_pixels);
        return img;
      }
    }
    if (header->check_data) verdict = header->check_data(data, size);
    if (verdict.problem) throw refuse(*verdict.problem);
  }

  std::string messages;
  try {
    const CapturingDecoderMessages capturing(messages);
    // imdecode reads a Mat header over the caller's bytes: no copy.
    const cv::Mat encoded(1, static_cast<int>(size), CV_8U, const_cast<unsigned char*>(data));
    // Into `img` (its allocator): imdecode leaves it empty when decoding fails.
    if (verdict.quiet_copy.empty()) cv::imdecode(encoded, flags, &img);
    else cv::imdecode(verdict.quiet_copy, flags, &img);
  } catch (const cv::Exception& e) {
    messages += e.what();
  }
  if (img.empty())
    throw InvalidInput(path, "cannot decode the " + format + "image" +
                                 (messages.empty() ? std::string(header ? "" : " (not an image, or truncated)")
                                                   : " (OpenCV: " + oneLine(messages) + ")"));
  checkPixels(path, "has", static_cast<std::uint64_t>(img.cols), static_cast<std::uint64_t>(img.rows), max_pixels);
  return img;
}

}  // namespace detail

}  // namespace bovw
