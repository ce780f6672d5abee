// libjpeg's reading of JPEG data, with an error manager that ends the read on an error and on the
// warnings that say the compressed data is damaged, and lets warnings about metadata pass: the check
// (checkJpegData) and the checked gray decode (decodeJpegGray).
#include "features/decoder_checks/decoder_checks.hpp"
#include "features/decoder_checks/opencv_orientation.hpp"

#include <opencv2/core.hpp>

#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE

#include <jpeglib.h>
#include <jerror.h>

namespace bovw::detail {
namespace {

// libjpeg reports through the error manager; a failure jumps back to readJpeg.
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

// Every warning libjpeg-turbo has (jerror.h's JWRN_ codes). libjpeg goes on after each; OpenCV
// prints the first and keeps the pixels, whatever they are.
bool damagesPixels(int code) {
  switch (code) {
    // Metadata: the pixels are decoded as they are in any decoder.
    case JWRN_ADOBE_XFORM:     // an unknown colour transform code in the Adobe marker (YCbCr assumed)
    case JWRN_JFIF_MAJOR:      // a JFIF marker of an unknown major version
    case JWRN_BOGUS_ICC:       // a malformed ICC profile marker (read only by jpeg_read_icc_profile)
    case JWRN_NOT_SEQUENTIAL:  // nonzero progressive fields in a sequential scan header, ignored
                               // (libjpeg: "some baseline files out there" have them)
      return false;
    // The entropy-coded data is damaged, so are the pixels (libjpeg fills what it lost with grey).
    case JWRN_HUFF_BAD_CODE:      // a Huffman code that is in no table
    case JWRN_ARITH_BAD_CODE:     // the same for arithmetic coding
    case JWRN_HIT_MARKER:         // a marker before the scan's last block: the rest is missing
    case JWRN_JPEG_EOF:           // the file ends before the image does (truncated)
    case JWRN_MUST_RESYNC:        // another marker where a restart marker belongs: data lost
    case JWRN_BOGUS_PROGRESSION:  // progressive scans out of order: coefficients refined that were never sent
    // Bytes between the end of a scan (or restart interval) and the next marker: the decoder
    // finished the blocks before the data ran out, so it read fewer bits than were written. A
    // single flipped bit in the scan data does exactly that: in 600 random one-bit flips of a
    // photo's scan, the 82 decodes that gave this warning all had wrong pixels. Padding written by
    // an encoder gives it too, with intact pixels, but no decoder can tell the two apart.
    case JWRN_EXTRANEOUS_DATA:
    default:  // JWRN_TOO_MUCH_DATA (a caller's error, not the file's), and any code of a later libjpeg
      return true;
  }
}

// Level -1 is a warning; higher levels are trace messages (JTRC_), which libjpeg only emits when
// asked to.
void message(j_common_ptr info, int level) {
  if (level < 0 && damagesPixels(info->err->msg_code)) fail(info);
}

// The whole file through libjpeg, up to the end marker. `gray` null: the check, at 1/8 scale and
// luminance only (corruption shows while the coefficients are read, before the inverse DCT); else
// the full-size gray image into `*gray` as OpenCV 4.6's JpegDecoder asks libjpeg for it (an output
// colour space of JCS_GRAYSCALE, everything else at libjpeg's defaults) and the body of the first
// APP1 segment, if any, into `*app1`; four components (CMYK, YCCK), which OpenCV converts to gray
// itself, are not decoded (`*handled` false).
DataVerdict readJpeg(const unsigned char* data, std::size_t size, cv::Mat* gray, bool* handled,
                     std::vector<unsigned char>* app1) {
  jpeg_decompress_struct info;
  Failure failure;
  info.err = jpeg_std_error(&failure.manager);
  failure.manager.error_exit = fail;
  failure.manager.emit_message = message;
  jpeg_create_decompress(&info);
  // Nothing with a destructor lives between here and the jumps: memory comes from libjpeg's pools,
  // and `*gray` belongs to the caller.
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    if (gray != nullptr) gray->release();
    return {std::string(failure.message), {}};
  }
  jpeg_mem_src(&info, data, static_cast<unsigned long>(size));
  if (gray != nullptr) jpeg_save_markers(&info, JPEG_APP0 + 1, 0xFFFF);  // whole, as OpenCV saves them
  jpeg_read_header(&info, TRUE);
  if (gray != nullptr) {
    if (info.num_components == 4) {
      jpeg_destroy_decompress(&info);
      *handled = false;
      return {};
    }
    if (info.marker_list != nullptr)  // only APP1 segments are saved
      app1->assign(info.marker_list->data, info.marker_list->data + info.marker_list->data_length);
    info.out_color_space = JCS_GRAYSCALE;
    jpeg_start_decompress(&info);
    gray->create(static_cast<int>(info.output_height), static_cast<int>(info.output_width), CV_8UC1);
    while (info.output_scanline < info.output_height) {
      JSAMPROW row = gray->ptr<JSAMPLE>(static_cast<int>(info.output_scanline));
      jpeg_read_scanlines(&info, &row, 1);
    }
  } else {
    info.scale_num = 1;
    info.scale_denom = 8;
    if (info.jpeg_color_space == JCS_YCbCr) info.out_color_space = JCS_GRAYSCALE;
    info.dct_method = JDCT_IFAST;
    info.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&info);
    JSAMPARRAY row = info.mem->alloc_sarray(reinterpret_cast<j_common_ptr>(&info), JPOOL_IMAGE,
                                            info.output_width * info.output_components, 1);
    while (info.output_scanline < info.output_height) jpeg_read_scanlines(&info, row, 1);
  }
  jpeg_finish_decompress(&info);  // reads up to the end marker: a missing one is a warning
  jpeg_destroy_decompress(&info);
  return {};
}

}  // namespace

DataVerdict checkJpegData(const unsigned char* data, std::size_t size) {
  return readJpeg(data, size, nullptr, nullptr, nullptr);
}

CheckedDecode decodeJpegGray(const unsigned char* data, std::size_t size, cv::Mat& gray, bool /*any_depth*/) {
  CheckedDecode result;
  std::vector<unsigned char> app1;
  result.verdict = readJpeg(data, size, &gray, &result.handled, &app1);
  // OpenCV turns the image by the Exif orientation it reads in the first APP1 segment.
  if (result.handled && !result.verdict.problem && !app1.empty() && !turnAsOpenCV(app1, gray)) {
    gray.release();
    result.handled = false;
  }
  return result;
}

}  // namespace bovw::detail
