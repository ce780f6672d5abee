// The JPEG and PNG data checks (src/features/decoder_checks) against OpenCV's own decode of the same
// bytes: what libpng or libjpeg only says about metadata is accepted with OpenCV's pixels; what says
// the image data is damaged is refused, naming the library's message. And the gray decodes that
// check in the same pass: OpenCV's pixels, file after file.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>  // jpeglib.h needs FILE
#include <jpeglib.h>
#include <png.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bovw::test {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uchar>;

void put32(Bytes& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uchar>(value >> shift));
}

Bytes bytesOf(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes deflate(const Bytes& data) {
  uLongf size = compressBound(static_cast<uLong>(data.size()));
  Bytes out(size);
  EXPECT_EQ(compress(out.data(), &size, data.data(), static_cast<uLong>(data.size())), Z_OK);
  out.resize(size);
  return out;
}

// A PNG chunk: length, type, data and the CRC of type and data (off by one bit unless `good_crc`).
Bytes chunk(const std::string& type, const Bytes& data, bool good_crc = true) {
  Bytes body = bytesOf(type);
  body.insert(body.end(), data.begin(), data.end());
  Bytes out;
  put32(out, static_cast<std::uint32_t>(data.size()));
  out.insert(out.end(), body.begin(), body.end());
  put32(out, static_cast<std::uint32_t>(crc32(0, body.data(), static_cast<uInt>(body.size()))) ^ (good_crc ? 0 : 1));
  return out;
}

constexpr int kWidth = 24, kHeight = 16;

// The rows of an 8-bit gray kWidth x kHeight image, each with filter byte 0 (none).
Bytes grayRows() {
  Bytes rows;
  for (int y = 0; y < kHeight; ++y) {
    rows.push_back(0);
    for (int x = 0; x < kWidth; ++x) rows.push_back(static_cast<uchar>((x * 7 + y * 13) % 256));
  }
  return rows;
}

// An 8-bit gray PNG: signature, IHDR, `extra` chunks, one IDAT holding `idat`, IEND.
Bytes grayPng(const Bytes& idat, const Bytes& extra = {}) {
  Bytes ihdr;
  put32(ihdr, kWidth);
  put32(ihdr, kHeight);
  ihdr.insert(ihdr.end(), {8, 0, 0, 0, 0});  // depth 8, gray, deflate, adaptive filters, no interlace
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  for (const Bytes& c : {chunk("IHDR", ihdr), extra, chunk("IDAT", idat), chunk("IEND", {})})
    png.insert(png.end(), c.begin(), c.end());
  return png;
}

class DecoderChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bovw_decoder_checks_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name, const Bytes& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return p;
  }

  // OpenCV's imread of `path` (gray, as loadImage reads) and what its libpng or libjpeg printed to
  // stderr meanwhile. imread, not imdecode: OpenCV's memory source ends a cut JPEG without a word,
  // its file source with libjpeg's "Premature end of JPEG file".
  static cv::Mat openCv(const std::string& path, std::string& printed) {
    ::testing::internal::CaptureStderr();
    cv::Mat image = cv::imread(path, cv::IMREAD_GRAYSCALE);
    printed = ::testing::internal::GetCapturedStderr();
    return image;
  }

  // loadImage's image of `path`; what OpenCV prints while it decodes goes to `printed`.
  static cv::Mat load(const std::string& path, std::string& printed) {
    ::testing::internal::CaptureStderr();
    cv::Mat image;
    try {
      image = loadImage(path);
    } catch (...) {
      printed = ::testing::internal::GetCapturedStderr();
      throw;
    }
    printed = ::testing::internal::GetCapturedStderr();
    return image;
  }

  // OpenCV prints `warning` and decodes `bytes` to the pixels of `clean`; loadImage gives them too,
  // and prints nothing meanwhile (PNG: the warned chunks are left out of what OpenCV decodes; JPEG:
  // read by libjpeg under bovw's own error manager, not by OpenCV).
  void expectAccepted(const std::string& name, const Bytes& bytes, const Bytes& clean, const std::string& warning) {
    SCOPED_TRACE(name);
    std::string printed, nothing;
    const cv::Mat expected = openCv(file("clean_" + name, clean), nothing);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(nothing, "");
    const std::string path = file(name, bytes);
    const cv::Mat opencv = openCv(path, printed);
    EXPECT_NE(printed.find(warning), std::string::npos) << printed;
    ASSERT_FALSE(opencv.empty());
    EXPECT_EQ(cv::norm(opencv, expected, cv::NORM_INF), 0.0);
    const cv::Mat loaded = load(path, printed);
    EXPECT_EQ(printed, "");
    ASSERT_EQ(loaded.size(), expected.size());
    EXPECT_EQ(cv::norm(loaded, expected, cv::NORM_INF), 0.0);
  }

  // loadImage refuses `bytes` with the library's `problem`; OpenCV either fails or prints it too.
  void expectRefused(const std::string& name, const Bytes& bytes, const std::string& format,
                     const std::string& problem) {
    SCOPED_TRACE(name);
    const std::string path = file(name, bytes);
    std::string printed;
    if (!openCv(path, printed).empty()) {
      EXPECT_NE(printed.find(problem), std::string::npos) << printed;
    }
    try {
      load(path, printed);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidInput& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("'" + path + "'"), std::string::npos) << message;
      const std::string prefix = "the " + format + " data is corrupt or truncated: ";
      EXPECT_NE(message.find(prefix), std::string::npos) << message;
      EXPECT_NE(message.find(problem, message.find(prefix)), std::string::npos) << message;
    }
  }

  fs::path dir_;
};

// --- PNG ----------------------------------------------------------------------------------------

TEST_F(DecoderChecks, PngMetadataProblemsAreAccepted) {
  const Bytes idat = deflate(grayRows());
  const Bytes clean = grayPng(idat);
  // An ICC profile whose header claims a rendering intent that does not exist (as scikit-image's
  // page.png has); the astronaut's "known incorrect sRGB profile" is the same kind of iCCP warning.
  Bytes profile(400);
  for (std::size_t i = 0; i < profile.size(); ++i) profile[i] = static_cast<uchar>((i * 37 + i * i) % 251);
  std::fill_n(profile.begin(), 4, 0);
  profile[2] = 400 >> 8, profile[3] = 400 & 0xFF;  // its length
  std::copy_n("acsp", 4, profile.begin() + 36);    // the profile signature
  std::fill_n(profile.begin() + 64, 4, 0);
  profile[64] = 1;                                 // rendering intent 0x01000000 (0 to 3 exist)
  std::fill_n(profile.begin() + 128, 4, 0);        // no tags
  Bytes iccp = bytesOf(std::string("ICC Profile\0\0", 13));  // name, then compression method 0
  const Bytes packed = deflate(profile);
  iccp.insert(iccp.end(), packed.begin(), packed.end());
  const struct {
    std::string name;
    Bytes extra;
    std::string warning;
  } cases[] = {
      {"text_crc.png", chunk("tEXt", bytesOf(std::string("Comment\0bad crc", 15)), false), "tEXt: CRC error"},
      {"unknown_crc.png", chunk("prVt", bytesOf("private"), false), "prVt: CRC error"},
      {"iccp.png", chunk("iCCP", iccp), "iCCP: profile 'ICC Profile': 1000000h: invalid rendering intent"},
      {"gama.png", chunk("gAMA", Bytes(4, 0)), "gAMA: gamma value out of range"},
      {"srgb.png", chunk("sRGB", {7}), "sRGB: profile 'sRGB': 7h: invalid sRGB rendering intent"},
      {"chrm.png", chunk("cHRM", Bytes(32, 0)), "cHRM: invalid chromaticities"},
      {"phys.png", chunk("pHYs", Bytes(3, 0)), "pHYs: invalid"},
      {"time.png", chunk("tIME", Bytes(1, 0)), "tIME: invalid"},
      {"plte.png", chunk("PLTE", Bytes(6, 0)), "PLTE: ignored in grayscale PNG"},
  };
  for (const auto& c : cases) {
    expectAccepted(c.name, grayPng(idat, c.extra), clean, "libpng warning: " + c.warning);
    // In colour the check comes first, and OpenCV decodes a copy without the chunks warned about.
    std::string printed;
    const cv::Mat colour = loadImage(file("colour_" + c.name, grayPng(idat, c.extra)), 100'000'000, cv::IMREAD_COLOR);
    const cv::Mat expected = cv::imdecode(clean, cv::IMREAD_COLOR);
    ASSERT_EQ(colour.size(), expected.size()) << c.name;
    EXPECT_EQ(cv::norm(colour, expected, cv::NORM_INF), 0.0) << c.name;
  }

  // Data in IEND, after the image.
  Bytes iend_data = clean;
  iend_data.resize(iend_data.size() - 12);
  const Bytes iend = chunk("IEND", bytesOf("xx"));
  iend_data.insert(iend_data.end(), iend.begin(), iend.end());
  expectAccepted("iend.png", iend_data, clean, "libpng warning: IEND: invalid");
}

TEST_F(DecoderChecks, PngImageDataProblemsAreRefused) {
  const Bytes rows = grayRows();
  const Bytes idat = deflate(rows);
  Bytes bad_filter = rows, extra_rows = rows, damaged = idat, bad_crc = grayPng(idat);
  bad_filter[kWidth + 1] = 5;  // the second row's filter byte: filters are 0-4
  extra_rows.insert(extra_rows.end(), 50, 0);
  damaged[damaged.size() - 1] ^= 1;  // zlib's Adler-32 of the rows
  const std::size_t idat_crc = 8 + 25 + 8 + idat.size();
  bad_crc[idat_crc] ^= 1;
  const Bytes clean = grayPng(idat);
  const std::size_t idat_middle = 8 + 25 + 8 + idat.size() / 2;
  const struct {
    std::string name;
    Bytes bytes;
    std::string problem;
  } cases[] = {
      {"idat_crc.png", bad_crc, "IDAT: CRC error"},
      {"filter.png", grayPng(deflate(bad_filter)), "bad adaptive filter value"},
      {"not_zlib.png", grayPng(bytesOf("not a zlib stream")), "IDAT: incorrect header check"},
      {"adler.png", grayPng(damaged), "IDAT: incorrect data check"},
      {"few_rows.png", grayPng(deflate(Bytes(rows.begin(), rows.begin() + rows.size() / 2))), "Not enough image data"},
      // OpenCV gives pixels here, with a warning: the rows it gives are not what the file holds.
      {"extra_rows.png", grayPng(deflate(extra_rows)), "IDAT: Too much image data"},
      {"cut.png", Bytes(clean.begin(), clean.begin() + idat_middle), "the file ends early (truncated)"},
      {"no_iend.png", Bytes(clean.begin(), clean.end() - 12), "the file ends early (truncated)"},
  };
  for (const auto& c : cases) expectRefused(c.name, c.bytes, "PNG", c.problem);
}

// A PNG written by libpng: `image` (1 or 3 channels, 8 or 16 bits; palette images take the first
// channel as the index) as `color_type` at `bit_depth` (samples scaled down from the image's), with
// Adam7 interlacing or not, and the chunks `extra` adds (tRNS, gAMA, sRGB, cHRM, eXIf) before the
// image data.
struct PngExtras {
  bool trns = false;
  double gamma = 0;  // 0: no gAMA
  bool srgb = false, chrm = false;
  int exif_orientation = 0;  // 0: no eXIf
};

void writeToBytes(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<Bytes*>(png_get_io_ptr(png));
  out->insert(out->end(), data, data + length);
}

Bytes encodeWithLibpng(const cv::Mat& image, int bit_depth, int color_type, bool interlaced, const PngExtras& extras) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  // Everything with a destructor before setjmp: a jump back to it must not skip one.
  Bytes out, exif;
  std::vector<png_color> palette;
  std::vector<png_byte> alphas;
  std::vector<Bytes> rows;
  std::vector<png_bytep> pointers;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    ADD_FAILURE() << "libpng could not write the test image";
    return {};
  }
  png_set_write_fn(png, &out, writeToBytes, nullptr);
  const int width = image.cols, height = image.rows;
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), bit_depth, color_type,
               interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  const int entries = 1 << std::min(bit_depth, 8);
  palette.resize(static_cast<std::size_t>(entries));
  alphas.resize(static_cast<std::size_t>(entries));
  cv::RNG rng(static_cast<std::uint64_t>(width * 131 + height));
  for (int i = 0; i < entries; ++i) {
    palette[i] = {static_cast<png_byte>(rng.uniform(0, 256)), static_cast<png_byte>(rng.uniform(0, 256)),
                  static_cast<png_byte>(rng.uniform(0, 256))};
    alphas[i] = static_cast<png_byte>(rng.uniform(0, 256));
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_PLTE(png, info, palette.data(), entries);
  if (extras.trns) {
    png_color_16 key{};
    key.gray = static_cast<png_uint_16>(rng.uniform(0, 1 << std::min(bit_depth, 16)));
    key.red = key.green = key.blue = key.gray;
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_tRNS(png, info, alphas.data(), entries, nullptr);
    else if ((color_type & PNG_COLOR_MASK_ALPHA) == 0) png_set_tRNS(png, info, nullptr, 0, &key);
  }
  if (extras.gamma > 0) png_set_gAMA(png, info, extras.gamma);
  if (extras.srgb) png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
  if (extras.chrm) png_set_cHRM(png, info, 0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06);
  if (extras.exif_orientation > 0) {  // a TIFF header and one IFD entry: Orientation (0x0112), SHORT
    exif = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0,
            static_cast<uchar>(extras.exif_orientation), 0, 0, 0, 0, 0, 0};
    png_set_eXIf_1(png, info, static_cast<png_uint_32>(exif.size()), exif.data());
  }
  png_write_info(png, info);
  const int channels = (color_type & PNG_COLOR_MASK_COLOR) && color_type != PNG_COLOR_TYPE_PALETTE ? 3 : 1;
  const int samples = channels + ((color_type & PNG_COLOR_MASK_ALPHA) ? 1 : 0);
  const int max_in = image.depth() == CV_16U ? 65535 : 255, max_out = (1 << bit_depth) - 1;
  for (int y = 0; y < height; ++y) {
    // Each sample scaled to the depth, packed as PNG packs them (big-endian, high bits first).
    std::vector<int> values;
    for (int x = 0; x < width; ++x)
      for (int s = 0; s < samples; ++s) {
        const int c = std::min(s, image.channels() - 1);
        const int v = image.depth() == CV_16U ? image.ptr<std::uint16_t>(y)[x * image.channels() + c]
                                              : image.ptr<uchar>(y)[x * image.channels() + c];
        values.push_back(color_type == PNG_COLOR_TYPE_PALETTE ? v % entries : (v * max_out + max_in / 2) / max_in);
      }
    Bytes row((values.size() * static_cast<std::size_t>(bit_depth) + 7) / 8, 0);
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (bit_depth == 16) {
        row[2 * i] = static_cast<uchar>(values[i] >> 8);
        row[2 * i + 1] = static_cast<uchar>(values[i]);
      } else {
        const std::size_t bit = i * static_cast<std::size_t>(bit_depth);
        row[bit / 8] |= static_cast<uchar>(values[i] << (8 - bit_depth - bit % 8));
      }
    }
    rows.push_back(row);
  }
  for (Bytes& row : rows) pointers.push_back(row.data());
  png_write_image(png, pointers.data());
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

// loadImage's gray PNGs are cv::imdecode's, pixel for pixel and type for type, with IMREAD_GRAYSCALE
// and with IMREAD_ANYDEPTH too: every colour type at every bit depth PNG allows, interlaced or not,
// odd sizes, transparency, and the chunks that change how libpng turns colour into gray (gAMA, sRGB,
// cHRM); an Exif orientation (eXIf) before or after the image data goes to OpenCV as it is.
TEST_F(DecoderChecks, PngGrayPixelsAreOpenCVs) {
  cv::RNG rng(static_cast<std::uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 2027);
  const struct {
    int color_type;
    std::vector<int> depths;
  } kinds[] = {{PNG_COLOR_TYPE_GRAY, {1, 2, 4, 8, 16}},
               {PNG_COLOR_TYPE_RGB, {8, 16}},
               {PNG_COLOR_TYPE_PALETTE, {1, 2, 4, 8}},
               {PNG_COLOR_TYPE_GRAY_ALPHA, {8, 16}},
               {PNG_COLOR_TYPE_RGB_ALPHA, {8, 16}}};
  const cv::Size sizes[] = {{1, 1}, {7, 13}, {33, 5}, {129, 65}};
  int compared = 0;
  for (const auto& kind : kinds)
    for (const int depth : kind.depths)
      for (const cv::Size size : sizes)
        for (const bool interlaced : {false, true}) {
          cv::Mat image(size, CV_16UC3);
          rng.fill(image, cv::RNG::UNIFORM, 0, 65536);
          PngExtras extras;
          extras.trns = rng.uniform(0, 2) == 1;
          const int colour_chunks = rng.uniform(0, 4);  // none, gAMA, sRGB (with its gAMA), cHRM and gAMA
          if (colour_chunks > 0) extras.gamma = colour_chunks == 2 ? 1 / 2.2 : rng.uniform(0.2, 3.0);
          extras.srgb = colour_chunks == 2;
          extras.chrm = colour_chunks == 3;
          const Bytes png = encodeWithLibpng(image, depth, kind.color_type, interlaced, extras);
          SCOPED_TRACE("colour type " + std::to_string(kind.color_type) + ", " + std::to_string(depth) + " bits, " +
                       std::to_string(size.width) + "x" + std::to_string(size.height) +
                       (interlaced ? ", interlaced" : "") + (extras.trns ? ", tRNS" : "") + ", gamma " +
                       std::to_string(extras.gamma) + (extras.srgb ? ", sRGB" : "") + (extras.chrm ? ", cHRM" : ""));
          for (const int flags : {int{cv::IMREAD_GRAYSCALE}, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH}) {
            const cv::Mat expected = cv::imdecode(png, flags);
            ASSERT_FALSE(expected.empty());
            const cv::Mat loaded = decodeImage(png.data(), png.size(), "pattern.png", 100'000'000, flags);
            ASSERT_EQ(loaded.size(), expected.size());
            ASSERT_EQ(loaded.type(), expected.type());
            EXPECT_EQ(cv::norm(loaded, expected, cv::NORM_INF), 0.0);
            ++compared;
          }
        }
  EXPECT_EQ(compared, (5 + 2 + 4 + 2 + 2) * 4 * 2 * 2);

  // Colour chunks matter: with a gAMA chunk libpng turns colour to gray in linear light, so the
  // pixels differ from the same file without it (the comparisons above would catch a decode that
  // left the chunk out).
  cv::Mat photo(40, 60, CV_16UC3);
  rng.fill(photo, cv::RNG::UNIFORM, 0, 65536);
  PngExtras with_gamma;
  with_gamma.gamma = 0.25;
  const Bytes plain = encodeWithLibpng(photo, 8, PNG_COLOR_TYPE_RGB, false, {});
  const Bytes gamma = encodeWithLibpng(photo, 8, PNG_COLOR_TYPE_RGB, false, with_gamma);
  EXPECT_GT(cv::norm(decodeImage(plain.data(), plain.size(), "plain.png"),
                     decodeImage(gamma.data(), gamma.size(), "gamma.png"), cv::NORM_INF), 0.0);

  // Two gAMA chunks: libpng warns about the second and keeps the first, so OpenCV's gray is in that
  // gamma's linear light; a copy without the chunks warned about (what OpenCV decodes in colour)
  // would have lost both and given other pixels.
  Bytes twice = plain;
  Bytes gama;
  put32(gama, 25000);
  for (int copy = 0; copy < 2; ++copy) {
    const Bytes c = chunk("gAMA", gama);
    twice.insert(twice.begin() + 33, c.begin(), c.end());  // after the signature and IHDR
  }
  ::testing::internal::CaptureStderr();
  const cv::Mat twice_expected = cv::imdecode(twice, cv::IMREAD_GRAYSCALE);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("gAMA: duplicate"), std::string::npos);
  const cv::Mat twice_loaded = decodeImage(twice.data(), twice.size(), "twice.png");
  ASSERT_EQ(twice_loaded.size(), twice_expected.size());
  EXPECT_EQ(cv::norm(twice_loaded, twice_expected, cv::NORM_INF), 0.0);
  EXPECT_GT(cv::norm(twice_loaded, cv::imdecode(plain, cv::IMREAD_GRAYSCALE), cv::NORM_INF), 0.0);

  for (int orientation = 1; orientation <= 8; ++orientation) {
    PngExtras extras;
    extras.exif_orientation = orientation;
    const Bytes png = encodeWithLibpng(photo, 8, PNG_COLOR_TYPE_RGB, false, extras);
    SCOPED_TRACE("eXIf orientation " + std::to_string(orientation));
    const cv::Mat expected = cv::imdecode(png, cv::IMREAD_GRAYSCALE);
    ASSERT_FALSE(expected.empty());
    const cv::Mat loaded = decodeImage(png.data(), png.size(), "turned.png");
    ASSERT_EQ(loaded.size(), expected.size());
    EXPECT_EQ(cv::norm(loaded, expected, cv::NORM_INF), 0.0);
  }
}

// --- JPEG ---------------------------------------------------------------------------------------

cv::Mat colourPattern() {
  cv::Mat m(48, 64, CV_8UC3);
  cv::RNG(7).fill(m, cv::RNG::UNIFORM, 0, 256);
  return m;
}

Bytes encodeJpeg(const cv::Mat& image, const std::vector<int>& params = {}) {
  Bytes out;
  cv::imencode(".jpg", image, out, params);
  return out;
}

// The offset of the first marker 0xFF `code` (a segment's start).
std::size_t marker(const Bytes& jpeg, uchar code) {
  for (std::size_t i = 2; i + 1 < jpeg.size(); ++i)
    if (jpeg[i] == 0xFF && jpeg[i + 1] == code) return i;
  ADD_FAILURE() << "no marker " << int(code);
  return 0;
}

// `jpeg` with `app1` (the segment's body) as its first segment.
Bytes withApp1(const Bytes& jpeg, const Bytes& app1) {
  Bytes out(jpeg.begin(), jpeg.begin() + 2);
  out.insert(out.end(), {0xFF, 0xE1, static_cast<uchar>((app1.size() + 2) >> 8), static_cast<uchar>(app1.size() + 2)});
  out.insert(out.end(), app1.begin(), app1.end());
  out.insert(out.end(), jpeg.begin() + 2, jpeg.end());
  return out;
}

// An Exif APP1 body whose first IFD holds one entry: the orientation (TIFF, big-endian).
Bytes exifOrientation(int orientation) {
  return {'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42, 0, 0, 0, 8,  // TIFF header, IFD0 at 8
          0, 1,                                                   // one entry:
          0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, static_cast<uchar>(orientation), 0, 0,  // 0x0112, SHORT, 1
          0, 0, 0, 0};                                            // no next IFD
}

TEST_F(DecoderChecks, JpegMetadataWarningsAreAccepted) {
  const Bytes clean = encodeJpeg(colourPattern());
  ASSERT_EQ(clean[2], 0xFF);
  ASSERT_EQ(clean[3], 0xE0);  // OpenCV writes a JFIF APP0 first
  Bytes jfif2 = clean;
  jfif2[2 + 2 + 2 + 5] = 2;  // JFIF major version, after the marker, the length and "JFIF\0"
  // The JFIF marker replaced by an Adobe one with colour transform 7 (0 and 1 are defined): libjpeg
  // assumes YCbCr, as written (with a JFIF marker it would not look at the transform).
  const Bytes adobe = {0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 7};
  Bytes adobe7(clean.begin(), clean.begin() + 2);
  adobe7.insert(adobe7.end(), adobe.begin(), adobe.end());
  adobe7.insert(adobe7.end(), clean.begin() + 4 + (clean[4] << 8 | clean[5]), clean.end());
  // A sequential scan header whose spectral selection end (Se) is 0, as some encoders write it.
  Bytes sos = clean;
  const std::size_t scan = marker(sos, 0xDA);
  const std::size_t components = sos[scan + 4];
  sos[scan + 5 + 2 * components + 1] = 0;
  expectAccepted("jfif2.jpg", jfif2, clean, "Warning: unknown JFIF revision number 2.01");
  expectAccepted("adobe.jpg", adobe7, clean, "Unknown Adobe color transform code 7");
  expectAccepted("sos.jpg", sos, clean, "Invalid SOS parameters for sequential JPEG");
  expectAccepted("exif_jfif2.jpg", withApp1(jfif2, exifOrientation(1)), clean,
                 "Warning: unknown JFIF revision number 2.01");
}

TEST_F(DecoderChecks, JpegDataDamageIsRefused) {
  const Bytes jpg = encodeJpeg(colourPattern());
  Bytes premature(jpg.begin(), jpg.begin() + jpg.size() / 2);  // the scan cut, the end marker kept
  premature.insert(premature.end(), {0xFF, 0xD9});
  Bytes extraneous(jpg.begin(), jpg.end() - 2);  // bytes that are no marker before the end
  extraneous.insert(extraneous.end(), {1, 2, 3, 0xFF, 0xD9});
  // Restart markers every MCU row, one of them replaced by the next one's number.
  Bytes restarts = encodeJpeg(colourPattern(), {cv::IMWRITE_JPEG_RST_INTERVAL, 4});
  restarts[marker(restarts, 0xD0) + 1] = 0xD3;
  const struct {
    std::string name;
    Bytes bytes;
    std::string problem;
  } cases[] = {
      {"premature.jpg", premature, "Corrupt JPEG data: premature end of data segment"},
      // How many bytes libjpeg counts depends on how far its decoder had read ahead.
      {"extraneous.jpg", extraneous, "extraneous bytes before marker 0xd9"},
      {"restart.jpg", restarts, "Corrupt JPEG data: found marker 0xd3 instead of RST0"},
      {"truncated.jpg", Bytes(jpg.begin(), jpg.begin() + jpg.size() * 2 / 3), "Premature end of JPEG file"},
  };
  for (const auto& c : cases) {
    std::string printed;
    EXPECT_FALSE(openCv(file(c.name, c.bytes), printed).empty()) << c.name;  // OpenCV keeps its guess at the pixels
    expectRefused(c.name, c.bytes, "JPEG", c.problem);
  }
}

// `image` (gray or BGR) as libjpeg writes it with these settings: OpenCV 4.6's encoder has no
// option for the chroma subsampling. `sampling`: the first component's factors (h, v), the others 1.
Bytes encodeWithLibjpeg(const cv::Mat& image, int quality, bool progressive, int restart_rows, cv::Size sampling) {
  jpeg_compress_struct info;
  jpeg_error_mgr errors;
  info.err = jpeg_std_error(&errors);
  jpeg_create_compress(&info);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&info, &buffer, &size);
  info.image_width = static_cast<JDIMENSION>(image.cols);
  info.image_height = static_cast<JDIMENSION>(image.rows);
  info.input_components = image.channels();
  info.in_color_space = image.channels() == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  if (image.channels() == 3) {
    info.comp_info[0].h_samp_factor = sampling.width;
    info.comp_info[0].v_samp_factor = sampling.height;
  }
  if (progressive) jpeg_simple_progression(&info);
  info.restart_in_rows = restart_rows;
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(image.ptr<JSAMPLE>(static_cast<int>(info.next_scanline)));
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  Bytes out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

// loadImage's gray JPEGs are cv::imdecode's, pixel for pixel, however they were written: odd sizes,
// every chroma subsampling, progressive, restart intervals, gray, random content and quality; and
// with an Exif orientation (OpenCV's decode, turned).
TEST_F(DecoderChecks, JpegGrayPixelsAreOpenCVs) {
  cv::RNG rng(static_cast<std::uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 2026);
  const cv::Size sizes[] = {{1, 1}, {7, 13}, {17, 9}, {8, 8}, {33, 65}, {641, 479}, {1000, 3}};
  // 4:4:4, 4:2:2, 4:4:0, 4:2:0, 4:1:1 and an unusual 3 x 1.
  const cv::Size samplings[] = {{1, 1}, {2, 1}, {1, 2}, {2, 2}, {4, 1}, {3, 1}};
  int compared = 0;
  for (const cv::Size size : sizes)
    for (int channels : {1, 3})
      for (const cv::Size sampling : samplings) {
        if (channels == 1 && sampling != samplings[0]) continue;
        cv::Mat image(size, CV_8UC(channels));
        rng.fill(image, cv::RNG::UNIFORM, 0, 256);
        if (rng.uniform(0, 2) == 1) cv::GaussianBlur(image, image, cv::Size(5, 5), 0);  // photo-like or noise
        const int quality = rng.uniform(5, 101), restart_rows = rng.uniform(0, 2) * rng.uniform(1, 5);
        const bool progressive = rng.uniform(0, 2) == 1;
        const Bytes jpeg = encodeWithLibjpeg(image, quality, progressive, restart_rows, sampling);
        SCOPED_TRACE(std::to_string(size.width) + "x" + std::to_string(size.height) + ", " +
                     std::to_string(channels) + " channels, sampling " + std::to_string(sampling.width) + "x" +
                     std::to_string(sampling.height) + ", quality " + std::to_string(quality) +
                     (progressive ? ", progressive" : "") + ", restarts every " + std::to_string(restart_rows));
        const cv::Mat expected = cv::imdecode(jpeg, cv::IMREAD_GRAYSCALE);
        ASSERT_FALSE(expected.empty());
        const cv::Mat loaded = decodeImage(jpeg.data(), jpeg.size(), "pattern.jpg");
        ASSERT_EQ(loaded.size(), expected.size());
        ASSERT_EQ(loaded.type(), CV_8UC1);
        EXPECT_EQ(cv::norm(loaded, expected, cv::NORM_INF), 0.0);
        ++compared;
      }
  EXPECT_EQ(compared, 7 * 7);

  // Every Exif orientation, in either byte order, and APP1 segments that hold no orientation or no
  // Exif at all (an XMP packet, noise), before and after an Exif one: OpenCV's decode each time.
  const cv::Mat pattern = colourPattern();  // 64 x 48: a turn by a quarter changes the shape
  const Bytes jpeg = encodeJpeg(pattern);
  Bytes noise(300);
  rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
  Bytes xmp = bytesOf("http://ns.adobe.com/xap/1.0/");
  xmp.push_back(0);
  const Bytes packet = bytesOf("<x:xmpmeta xmlns:x='adobe:ns:meta/'><tiff:Orientation>6</tiff:Orientation></x:xmpmeta>");
  xmp.insert(xmp.end(), packet.begin(), packet.end());
  std::vector<std::pair<std::string, Bytes>> files;
  for (int orientation = 0; orientation <= 9; ++orientation) {  // 0 and 9 are not orientations
    for (bool little_endian : {false, true}) {
      Bytes exif = exifOrientation(orientation);
      if (little_endian) {  // "II", and every field byte-swapped
        exif[6] = exif[7] = 'I';
        std::swap(exif[8], exif[9]);
        std::swap(exif[10], exif[13]);
        std::swap(exif[11], exif[12]);
        std::swap(exif[14], exif[15]);
        std::swap(exif[16], exif[17]);
        std::swap(exif[18], exif[19]);
        std::swap(exif[20], exif[23]);
        std::swap(exif[21], exif[22]);
        std::swap(exif[24], exif[25]);
      }
      files.emplace_back("exif " + std::to_string(orientation) + (little_endian ? " II" : " MM"), withApp1(jpeg, exif));
    }
  }
  files.emplace_back("xmp, then exif 6", withApp1(withApp1(jpeg, exifOrientation(6)), xmp));
  files.emplace_back("exif 6, then xmp", withApp1(withApp1(jpeg, xmp), exifOrientation(6)));
  files.emplace_back("noise", withApp1(jpeg, noise));
  files.emplace_back("empty", withApp1(jpeg, {}));
  const Bytes exif8 = exifOrientation(8);
  files.emplace_back("exif 8, cut short", withApp1(jpeg, Bytes(exif8.begin(), exif8.begin() + 20)));
  int turned = 0;
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    const cv::Mat expected = cv::imdecode(bytes, cv::IMREAD_GRAYSCALE);
    ASSERT_FALSE(expected.empty());
    const cv::Mat loaded = decodeImage(bytes.data(), bytes.size(), "turned.jpg");
    ASSERT_EQ(loaded.size(), expected.size());
    EXPECT_EQ(cv::norm(loaded, expected, cv::NORM_INF), 0.0);
    if (expected.size() != pattern.size() || cv::norm(expected, cv::imdecode(jpeg, cv::IMREAD_GRAYSCALE), cv::NORM_INF) != 0)
      ++turned;
  }
  EXPECT_GE(turned, 2 * 7);  // orientations 2-8 turn the image in both byte orders
}

// Every file with one of `extensions` that Debian's packages put under /usr/share, read by loadImage
// with each of `flag_sets` and by OpenCV: the same pixels and type, or refused (which files are
// refused, and why: tests/cli/test_image_corpus.py). Skipped where fewer than `fewest` are there.
void expectOpenCvsPixelsOnDebianFiles(const std::vector<std::string>& extensions, const std::vector<int>& flag_sets,
                                      std::size_t fewest) {
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::recursive_directory_iterator it("/usr/share", fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    std::string ext = it->path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (std::find(extensions.begin(), extensions.end(), ext) != extensions.end() && it->is_regular_file(error) &&
        !it->is_symlink(error))
      files.push_back(it->path());
  }
  if (files.size() < fewest)
    GTEST_SKIP() << files.size() << " " << extensions.front() << " files under /usr/share (.ci/install-deps installs opencv-doc)";
  int same = 0, refused = 0;
  for (const fs::path& file : files)
    for (const int flags : flag_sets) {
      SCOPED_TRACE(file.string() + ", flags " + std::to_string(flags));
      ::testing::internal::CaptureStderr();
      const cv::Mat expected = cv::imread(file.string(), flags);
      ::testing::internal::GetCapturedStderr();
      cv::Mat loaded;
      try {
        loaded = loadImage(file.string(), 100'000'000, flags);
      } catch (const InvalidInput&) {
        ++refused;
        continue;
      }
      ASSERT_FALSE(expected.empty());
      ASSERT_EQ(loaded.size(), expected.size());
      ASSERT_EQ(loaded.type(), expected.type());
      EXPECT_EQ(cv::norm(loaded, expected, cv::NORM_INF), 0.0);
      ++same;
    }
  std::printf("%s files under /usr/share: %d decodes gave OpenCV's pixels, %d refused\n", extensions.front().c_str(),
              same, refused);
  EXPECT_GT(same, static_cast<int>(fewest));
}

// On every JPEG that Debian's packages put under /usr/share (opencv-doc's 615 of them on a machine
// set up by .ci/install-deps): real encoders, Exif, progressive and gray files.
TEST_F(DecoderChecks, JpegGrayPixelsAreOpenCVsOnDebianFiles) {
  expectOpenCvsPixelsOnDebianFiles({".jpg", ".jpeg"}, {cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH}, 100);
}

// On every PNG there (opencv-doc's 32 on a machine set up by .ci/install-deps; thousands of icons
// and photos on a desktop's): palettes, alpha, interlacing, 16 bits, colour profiles.
TEST_F(DecoderChecks, PngGrayPixelsAreOpenCVsOnDebianFiles) {
  expectOpenCvsPixelsOnDebianFiles({".png"}, {cv::IMREAD_GRAYSCALE, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH}, 20);
}

}  // namespace
}  // namespace bovw::test
