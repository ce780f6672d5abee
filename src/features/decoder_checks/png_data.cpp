// pngDataProblem: libpng with error and warning functions that both end the read.
#include "features/decoder_checks/decoder_checks.hpp"

#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <vector>

namespace bovw::detail {
namespace {

struct Source {
  Source(const unsigned char* bytes, std::size_t length) : data(bytes), size(length) {}
  const unsigned char* data;
  std::size_t size;
  std::size_t position = 0;
  std::vector<png_byte> row;
  std::jmp_buf jump;
  std::string message;
};

[[noreturn]] void fail(png_structp png, png_const_charp message) {
  auto* source = static_cast<Source*>(png_get_error_ptr(png));
  source->message = message;
  std::longjmp(source->jump, 1);
}

void read(png_structp png, png_bytep out, png_size_t length) {
  auto* source = static_cast<Source*>(png_get_io_ptr(png));
  if (length > source->size - source->position) png_error(png, "the file ends early (truncated)");
  std::memcpy(out, source->data + source->position, length);
  source->position += length;
}

// Reads every row of every interlace pass, then the chunks after the image data.
void readAll(png_structp png, png_infop info, Source& source) {
  png_set_read_fn(png, &source, read);
  png_read_info(png, info);
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, info);
  source.row.resize(png_get_rowbytes(png, info));
  const png_uint_32 rows = png_get_image_height(png, info);
  for (int pass = 0; pass < passes; ++pass)
    for (png_uint_32 y = 0; y < rows; ++y) png_read_row(png, source.row.data(), nullptr);
  png_read_end(png, nullptr);
}

}  // namespace

std::optional<std::string> pngDataProblem(const unsigned char* data, std::size_t size) {
  Source source(data, size);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, fail, fail);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return std::string("libpng could not start (out of memory)");
  }
  // `source` is only changed through pointers, in calls: its state survives the jump.
  if (setjmp(source.jump)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return source.message;
  }
  readAll(png, info, source);
  png_destroy_read_struct(&png, &info, nullptr);
  return std::nullopt;
}

}  // namespace bovw::detail
