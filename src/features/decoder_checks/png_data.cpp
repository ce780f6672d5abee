// libpng with an error function that ends the read and a warning function that ends it only for
// warnings about the image data (the IDAT chunks), not about metadata: the check (checkPngData),
// whose copy for OpenCV leaves the chunks warned about out, and the checked gray decode
// (decodePngGray).
#include "features/decoder_checks/decoder_checks.hpp"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <vector>

namespace bovw::detail {
namespace {

// "IDAT" as png_get_io_chunk_type gives it (png.h keeps its chunk names private).
constexpr png_uint_32 kIdat = 0x49444154;
constexpr png_uint_32 kPlte = 0x504c5445;
constexpr png_uint_32 kIend = 0x49454e44;
constexpr unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

struct Source {
  Source(const unsigned char* bytes, std::size_t length) : data(bytes), size(length) {}
  const unsigned char* data;
  std::size_t size;
  std::size_t position = 0;
  std::vector<png_byte> row;
  std::vector<png_bytep> rows;  // the gray decode's, into the caller's image
  std::jmp_buf jump;
  std::string message;
  std::vector<png_uint_32> warned;  // the types of the chunks libpng warned about
};

[[noreturn]] void fail(png_structp png, png_const_charp message) {
  auto* source = static_cast<Source*>(png_get_error_ptr(png));
  source->message = message;
  std::longjmp(source->jump, 1);
}

// libpng's errors already cover what makes pixels unusable: a bad IHDR or palette, a critical
// chunk's CRC, a bad filter byte, a zlib error or too little data while rows are read, the end of
// the file. What it only warns about (its benign errors included) is attributed to the chunk being
// read. In an ancillary chunk (iCCP "known incorrect sRGB profile", gAMA, cHRM, sRGB, text, pHYs,
// tIME, bKGD, tRNS, an ancillary CRC error, ...) libpng drops the chunk's metadata and the pixels
// are untouched; the only critical chunks with warnings are PLTE (only when the image does not use
// it: for a palette image a bad PLTE is an error) and IEND (data after the image). In IDAT it is
// the image data itself: the zlib stream goes on after the last row ("Too much image data", "Extra
// compressed data"), or more IDAT follows other chunks ("Too many IDATs found"): the rows read are
// not what the file holds. OpenCV prints these and keeps the rows.
void warn(png_structp png, png_const_charp message) {
  const png_uint_32 type = png_get_io_chunk_type(png);
  if (type == kIdat) fail(png, message);
  static_cast<Source*>(png_get_error_ptr(png))->warned.push_back(type);
}

png_uint_32 bigEndian32(const unsigned char* p) {
  return png_uint_32{p[0]} << 24 | png_uint_32{p[1]} << 16 | png_uint_32{p[2]} << 8 | p[3];
}

// The file without the chunks of the `warned` types, all of which passed the check: ancillary
// ones (bit 5 of the first letter), an unused PLTE (a palette image's bad PLTE is an error), and an
// IEND with data, written back empty. Every other chunk is copied as it is, up to IEND.
std::vector<unsigned char> withoutWarnedChunks(const unsigned char* data, std::size_t size,
                                               const std::vector<png_uint_32>& warned) {
  std::vector<unsigned char> copy(kSignature, kSignature + sizeof kSignature);
  for (std::size_t at = sizeof kSignature; at + 12 <= size;) {
    const png_uint_32 length = bigEndian32(data + at), type = bigEndian32(data + at + 4);
    const std::size_t end = at + 12 + length;  // length, type, data, CRC (checked in bounds by libpng)
    if (type == kIend) {
      static const unsigned char kEmptyIend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
      copy.insert(copy.end(), kEmptyIend, kEmptyIend + sizeof kEmptyIend);
      break;
    }
    const bool was_warned = std::find(warned.begin(), warned.end(), type) != warned.end();
    const bool ancillary = (type >> 24) & 0x20;
    if (!(was_warned && (ancillary || type == kPlte))) copy.insert(copy.end(), data + at, data + end);
    at = end;
  }
  return copy;
}

void read(png_structp png, png_bytep out, png_size_t length) {
  auto* source = static_cast<Source*>(png_get_io_ptr(png));
  if (length > source->size - source->position) png_error(png, "the file ends early (truncated)");
  std::memcpy(out, source->data + source->position, length);
  source->position += length;
}

// The transformations OpenCV 4.6's PngDecoder asks libpng for when it reads one channel (as
// cv::imdecode with IMREAD_GRAYSCALE, any depth or not): 16-bit samples kept (in host order) only
// with `sixteen_bits`, else stripped to 8; alpha stripped; palettes and gray below 8 bits expanded;
// colour to gray with its weights 0.299 and 0.587 (libpng's fixed-point conversion). The same calls
// on the same libpng give the same pixels.
void askForOpenCvsGray(png_structp png, int bit_depth, int color_type, bool sixteen_bits) {
  const std::uint16_t one = 1;
  const bool little_endian = *reinterpret_cast<const unsigned char*>(&one) == 1;
  if (bit_depth == 16 && !sixteen_bits) png_set_strip_16(png);
  else if (little_endian) png_set_swap(png);
  png_set_strip_alpha(png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if ((color_type & PNG_COLOR_MASK_COLOR) == 0 && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  png_set_rgb_to_gray(png, PNG_ERROR_ACTION_NONE, 0.299, 0.587);
}

// Reads every row of every interlace pass, then the chunks after the image data. `gray` null: the
// check, rows as the file stores them; else the image as OpenCV reads one channel, into `*gray`
// (its allocator), and `*handled` false where OpenCV would then turn it by an Exif orientation (an
// eXIf chunk, before or after the image data: such files, rare, keep OpenCV's own decode).
void readAll(png_structp png, png_infop info, Source& source, cv::Mat* gray, bool any_depth, bool* handled) {
  png_set_read_fn(png, &source, read);
  // libpng's defaults for reading, which OpenCV's decoder keeps: a CRC error in a critical chunk
  // is an error, in an ancillary one a warning and the chunk is dropped; benign errors are warnings.
  png_set_crc_action(png, PNG_CRC_DEFAULT, PNG_CRC_DEFAULT);
  png_set_benign_errors(png, 1);
  png_read_info(png, info);
  const png_uint_32 rows = png_get_image_height(png, info);
  if (gray != nullptr) {
    if (png_get_valid(png, info, PNG_INFO_eXIf)) {
      *handled = false;
      return;
    }
    const int bit_depth = png_get_bit_depth(png, info);
    const bool sixteen_bits = any_depth && bit_depth == 16;
    askForOpenCvsGray(png, bit_depth, png_get_color_type(png, info), sixteen_bits);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    gray->create(static_cast<int>(rows), static_cast<int>(png_get_image_width(png, info)),
                 sixteen_bits ? CV_16UC1 : CV_8UC1);
    source.rows.resize(rows);
    for (png_uint_32 y = 0; y < rows; ++y) source.rows[y] = gray->ptr<png_byte>(static_cast<int>(y));
    png_read_image(png, source.rows.data());
    png_read_end(png, info);
    if (png_get_valid(png, info, PNG_INFO_eXIf)) *handled = false;
    return;
  }
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  source.row.resize(png_get_rowbytes(png, info));
  for (int pass = 0; pass < passes; ++pass)
    for (png_uint_32 y = 0; y < rows; ++y) png_read_row(png, source.row.data(), nullptr);
  png_read_end(png, nullptr);
}

// The check (`gray` null) or the checked gray decode.
DataVerdict readPng(const unsigned char* data, std::size_t size, cv::Mat* gray, bool any_depth, bool* handled) {
  Source source(data, size);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, fail, warn);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return {std::string("libpng could not start (out of memory)"), {}};
  }
  // `source` is only changed through pointers, in calls: its state survives the jump.
  if (setjmp(source.jump)) {
    png_destroy_read_struct(&png, &info, nullptr);
    if (gray != nullptr) gray->release();
    return {source.message, {}};
  }
  readAll(png, info, source, gray, any_depth, handled);
  png_destroy_read_struct(&png, &info, nullptr);
  if (gray != nullptr || source.warned.empty()) return {};
  return {std::nullopt, withoutWarnedChunks(data, size, source.warned)};
}

}  // namespace

DataVerdict checkPngData(const unsigned char* data, std::size_t size) {
  return readPng(data, size, nullptr, false, nullptr);
}

CheckedDecode decodePngGray(const unsigned char* data, std::size_t size, cv::Mat& gray, bool any_depth) {
  CheckedDecode result;
  result.verdict = readPng(data, size, &gray, any_depth, &result.handled);
  if (!result.handled) gray.release();
  return result;
}

}  // namespace bovw::detail
