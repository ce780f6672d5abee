// jpegDataProblem: libjpeg with an error manager that turns warnings into failures.
#include "features/decoder_checks/decoder_checks.hpp"

#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE

#include <jpeglib.h>

namespace bovw::detail {
namespace {

// libjpeg reports through the error manager; a failure jumps back to jpegDataProblem.
struct Failure {
  jpeg_error_mgr manager;  // first: libjpeg's pointer to it is a pointer to Failure
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void fail(j_common_ptr info) {
  auto* failure = reinterpret_cast<Failure*>(info->err);
  info->err->format_message(info, failure->message);
  std::longjmp(failure->jump, 1);
}

// Level -1 is a warning ("Corrupt JPEG data: ...", "Premature end of JPEG file"); higher levels
// are trace messages, which libjpeg only emits when asked to.
void message(j_common_ptr info, int level) {
  if (level < 0) fail(info);
}

}  // namespace

std::optional<std::string> jpegDataProblem(const unsigned char* data, std::size_t size) {
  jpeg_decompress_struct info;
  Failure failure;
  info.err = jpeg_std_error(&failure.manager);
  failure.manager.error_exit = fail;
  failure.manager.emit_message = message;
  jpeg_create_decompress(&info);
  // Nothing with a destructor lives between here and the jumps: memory comes from libjpeg's pools.
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    return std::string(failure.message);
  }
  jpeg_mem_src(&info, data, static_cast<unsigned long>(size));
  jpeg_read_header(&info, TRUE);
  info.scale_num = 1;
  info.scale_denom = 8;
  if (info.jpeg_color_space == JCS_YCbCr) info.out_color_space = JCS_GRAYSCALE;
  info.dct_method = JDCT_IFAST;
  info.do_fancy_upsampling = FALSE;
  jpeg_start_decompress(&info);
  JSAMPARRAY row = info.mem->alloc_sarray(reinterpret_cast<j_common_ptr>(&info), JPOOL_IMAGE,
                                          info.output_width * info.output_components, 1);
  while (info.output_scanline < info.output_height) jpeg_read_scanlines(&info, row, 1);
  jpeg_finish_decompress(&info);  // reads up to the end marker: a missing one is a warning
  jpeg_destroy_decompress(&info);
  return std::nullopt;
}

}  // namespace bovw::detail
