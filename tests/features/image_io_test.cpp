// loadImage: every failure names the file and has its own exception kind; the header of every
// format OpenCV decodes here gives the size before decoding (decompression bombs); JPEG and PNG
// image data that libjpeg or libpng call damaged is refused (decoder_checks_test.cpp: what passes).
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include "features/image_headers/image_formats.hpp"
#include "surf_test_support.hpp"

#include <opencv2/imgcodecs.hpp>

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace bovw::test {
namespace {

namespace fs = std::filesystem;

class ImageIo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bovw_image_io_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::vector<uchar>& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return p;
  }
  // The message of the E that loading `path` throws, checked to name the file ("" if none thrown).
  template <class E>
  std::string expectError(const std::string& path, std::int64_t max_pixels = 100'000'000) {
    try {
      loadImage(path, max_pixels);
      ADD_FAILURE() << "no exception for " << path;
    } catch (const E& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

std::vector<uchar> encode(const std::string& ext, const cv::Mat& img) {
  std::vector<uchar> out;
  cv::imencode(ext, img, out);
  return out;
}

cv::Mat pattern(int rows, int cols, int type) {
  cv::Mat m(rows, cols, type);
  cv::randu(m, 0, type == CV_16U ? 65535 : 255);
  return m;
}

TEST_F(ImageIo, ReadsGrayByDefaultAndKeepsSixteenBit) {
  const cv::Mat bgr = pattern(30, 40, CV_8UC3);
  const cv::Mat g = loadImage(file("c.png", encode(".png", bgr)));
  EXPECT_EQ(g.type(), CV_8UC1);
  EXPECT_EQ(g.size(), cv::Size(40, 30));
  const cv::Mat c = loadImage(file("c2.png", encode(".png", bgr)), 1000000, cv::IMREAD_ANYCOLOR | cv::IMREAD_ANYDEPTH);
  EXPECT_EQ(cv::norm(c, bgr, cv::NORM_INF), 0.0);
  const cv::Mat w = pattern(30, 40, CV_16UC1);
  const cv::Mat w2 = loadImage(file("w.png", encode(".png", w)));
  EXPECT_EQ(w2.type(), CV_16UC1);
  EXPECT_EQ(cv::norm(w2, w, cv::NORM_INF), 0.0);
  EXPECT_EQ(loadImage(file("j.jpg", encode(".jpg", bgr))).size(), cv::Size(40, 30));
}

TEST_F(ImageIo, MissingEmptyAndNonImageFiles) {
  expectError<IoError>((dir_ / "missing.png").string());
  expectError<IoError>(dir_.string());  // a directory is not readable as a file
  expectError<InvalidInput>(file("empty.png", {}));
  const std::string text = "this is not an image\n";
  expectError<InvalidInput>(file("notes.png", std::vector<uchar>(text.begin(), text.end())));
}

TEST_F(ImageIo, TruncatedFiles) {
  const cv::Mat img = pattern(64, 64, CV_8UC1);
  std::vector<uchar> png = encode(".png", img);
  png.resize(png.size() / 2);
  expectError<InvalidInput>(file("cut.png", png));
  std::vector<uchar> jpg = encode(".jpg", img);
  jpg.resize(jpg.size() * 2 / 3);
  expectError<InvalidInput>(file("cut.jpg", jpg));
}

TEST_F(ImageIo, PixelLimit) {
  const cv::Mat img = pattern(50, 60, CV_8UC1);
  const std::string message = expectError<CapacityError>(file("big.png", encode(".png", img)), 2999);
  EXPECT_NE(message.find("(PNG header) declares 60x50 pixels, above the limit of 2999"), std::string::npos) << message;
  EXPECT_NO_THROW(loadImage(file("ok.png", encode(".png", img)), 3000));
}

// --- Every format's header ---------------------------------------------------------------------

std::vector<uchar> encodeWith(const std::string& ext, const cv::Mat& img, const std::vector<int>& params) {
  std::vector<uchar> out;
  cv::imencode(ext, img, out, params);
  return out;
}

// The bare codestream inside a JP2 file (its "jp2c" box, the last one OpenCV writes).
std::vector<uchar> codestreamOf(const std::vector<uchar>& jp2) {
  static const uchar kSocSiz[] = {0xff, 0x4f, 0xff, 0x51};
  const auto at = std::search(jp2.begin(), jp2.end(), std::begin(kSocSiz), std::end(kSocSiz));
  return std::vector<uchar>(at, jp2.end());
}

// Each format OpenCV writes (every one it decodes here but DICOM, NITF and DTED, which bovw
// refuses): the header reader finds the size that OpenCV decodes, and a limit one pixel below it
// refuses the file from the header.
TEST_F(ImageIo, EveryFormatsHeaderGivesTheDecodedSize) {
  const cv::Mat gray = pattern(48, 64, CV_8UC1);
  cv::Mat color, real, real3;
  cv::merge(std::vector<cv::Mat>{gray, gray, gray}, color);
  gray.convertTo(real, CV_32F, 1.0 / 255);
  color.convertTo(real3, CV_32F, 1.0 / 255);
  struct Case {
    std::string name, format;
    std::vector<uchar> bytes;
  };
  const std::vector<uchar> jp2 = encode(".jp2", gray);
  const std::vector<Case> cases = {
      {"a.png", "PNG", encode(".png", gray)},
      {"a.jpg", "JPEG", encode(".jpg", color)},
      {"progressive.jpg", "JPEG", encodeWith(".jpg", color, {cv::IMWRITE_JPEG_PROGRESSIVE, 1})},
      {"a.tif", "TIFF", encode(".tif", gray)},
      {"lossless.webp", "WebP", encodeWith(".webp", color, {cv::IMWRITE_WEBP_QUALITY, 101})},
      {"lossy.webp", "WebP", encodeWith(".webp", color, {cv::IMWRITE_WEBP_QUALITY, 80})},
      {"a.bmp", "BMP", encode(".bmp", color)},
      {"a.pbm", "PNM", encode(".pbm", gray)},
      {"a.pgm", "PNM", encode(".pgm", gray)},
      {"ascii.pgm", "PNM", encodeWith(".pgm", gray, {cv::IMWRITE_PXM_BINARY, 0})},
      {"a.ppm", "PNM", encode(".ppm", color)},
      {"a.pam", "PAM", encode(".pam", color)},
      {"a.pfm", "PFM", encode(".pfm", real)},
      {"a.ras", "Sun raster", encode(".ras", gray)},
      {"a.hdr", "Radiance HDR", encode(".hdr", real3)},
      {"a.jp2", "JP2", jp2},
      {"a.j2k", "JPEG 2000", codestreamOf(jp2)},
      {"a.exr", "OpenEXR", encode(".exr", real)},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(c.bytes.empty());
    const auto header = detail::readImageHeader(detail::HeaderBytes(c.bytes.data(), c.bytes.size(), c.name));
    ASSERT_TRUE(header.has_value());
    EXPECT_EQ(header->format, c.format);
    EXPECT_EQ(header->size.width, 64u);
    EXPECT_EQ(header->size.height, 48u);
    const std::string path = file(c.name, c.bytes);
    EXPECT_EQ(loadImage(path, 64 * 48).size(), cv::Size(64, 48));
    const std::string message = expectError<CapacityError>(path, 64 * 48 - 1);
    EXPECT_NE(message.find("(" + c.format + " header) declares 64x48 pixels"), std::string::npos) << message;
  }
}

// Headers written by hand: the variants OpenCV does not write, and sizes far beyond the limit.
TEST_F(ImageIo, HeadersClaimingHugeSizesAreRefusedBeforeDecoding) {
  auto text = [](const std::string& s) { return std::vector<uchar>(s.begin(), s.end()); };
  struct Case {
    std::string name, claim;
    std::vector<uchar> bytes;
  };
  std::vector<Case> cases = {
      {"a.pgm", "(PNM header) declares 20000x30000", text("P5\n# comment\n20000 30000\n255\n")},
      {"a.pam", "(PAM header) declares 20000x30000",
       text("P7\nWIDTH 20000\nHEIGHT 30000\nDEPTH 1\nMAXVAL 255\nTUPLTYPE GRAYSCALE\nENDHDR\n")},
      {"a.pfm", "(PFM header) declares 20000x30000", text("Pf\n20000 30000\n-1.0\n")},
      {"a.hdr", "(Radiance HDR header) declares 20000x30000",
       text("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 30000 +X 20000\n")},
      {"b.hdr", "(Radiance HDR header) declares 20000x30000", text("#?RGBE\n\n+X 20000 +Y 30000\n")},
  };
  // An OpenEXR data window from INT_MIN to INT_MAX: 2^32 on each side, whose product overflows 64 bits.
  std::vector<uchar> exr = encode(".exr", cv::Mat(48, 64, CV_32F, cv::Scalar(0.5)));
  static const char kWindow[] = "dataWindow\0box2i\0";
  const auto window = std::search(exr.begin(), exr.end(), kWindow, kWindow + sizeof kWindow - 1);
  ASSERT_NE(window, exr.end());
  const std::size_t box = (window - exr.begin()) + sizeof kWindow - 1 + 4;  // after the name, type and size
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t corner = i < 2 ? 0x80000000u : 0x7fffffffu;  // xMin, yMin, then xMax, yMax
    for (int k = 0; k < 4; ++k) exr[box + 4 * i + k] = static_cast<uchar>(corner >> (8 * k));
  }
  cases.push_back({"a.exr", "(OpenEXR header) declares 4294967296x4294967296", exr});
  for (const Case& c : cases) {
    const std::string message = expectError<CapacityError>(file(c.name, c.bytes));
    EXPECT_NE(message.find(c.claim + " pixels, above the limit of 100000000"), std::string::npos) << message;
  }
}

// --- Decompression bombs -----------------------------------------------------------------------

void put(std::vector<uchar>& out, std::uint32_t value, int bytes, detail::Endian order) {
  for (int i = 0; i < bytes; ++i) {
    const int shift = 8 * (order == detail::Endian::Little ? i : bytes - 1 - i);
    out.push_back(static_cast<uchar>(value >> shift));
  }
}

// An 8-bit gray TIFF of zeros, deflate-compressed in blocks (strips of `block` rows, or tiles of
// `block` x `block` pixels) that all point at the same compressed data: a few KB however large, and
// a valid file libtiff decodes in full (at least two blocks, so that the offset and byte-count
// arrays lie outside the directory).
enum class TiffLayout { Strips, Tiles };
std::vector<uchar> zeroTiff(std::uint32_t width, std::uint32_t height, std::uint32_t block,
                            TiffLayout layout = TiffLayout::Strips, detail::Endian order = detail::Endian::Little) {
  const bool tiled = layout == TiffLayout::Tiles;
  const std::vector<uchar> zeros(std::size_t(tiled ? block : width) * block, 0);
  uLongf packed_size = compressBound(zeros.size());
  std::vector<uchar> packed(packed_size);
  EXPECT_EQ(compress2(packed.data(), &packed_size, zeros.data(), zeros.size(), 9), Z_OK);
  packed.resize(packed_size);
  auto blocksAlong = [&](std::uint32_t pixels) { return (pixels + block - 1) / block; };
  const std::uint32_t blocks = tiled ? blocksAlong(width) * blocksAlong(height) : blocksAlong(height);

  struct Entry {
    std::uint32_t tag, type, count, value;  // type 3: SHORT, 4: LONG
  };
  const std::uint32_t entries = tiled ? 10 : 9;
  const std::uint32_t offsets_at = 8 + 2 + 12 * entries + 4, counts_at = offsets_at + 4 * blocks;
  const std::uint32_t data_at = counts_at + 4 * blocks;
  std::vector<Entry> directory = {{256, 4, 1, width}, {257, 4, 1, height}, {258, 3, 1, 8} /* bits per sample */,
                                  {259, 3, 1, 8} /* deflate */, {262, 3, 1, 1} /* black is zero */};
  if (tiled) {
    directory.insert(directory.end(), {{277, 3, 1, 1} /* samples per pixel */, {322, 4, 1, block}, {323, 4, 1, block},
                                       {324, 4, blocks, offsets_at}, {325, 4, blocks, counts_at}});
  } else {
    directory.insert(directory.end(), {{273, 4, blocks, offsets_at}, {277, 3, 1, 1}, {278, 4, 1, block},
                                       {279, 4, blocks, counts_at}});
  }
  EXPECT_EQ(directory.size(), entries);

  std::vector<uchar> b = order == detail::Endian::Little ? std::vector<uchar>{'I', 'I', 42, 0}
                                                         : std::vector<uchar>{'M', 'M', 0, 42};
  put(b, 8, 4, order);
  put(b, entries, 2, order);
  for (const Entry& e : directory) {
    put(b, e.tag, 2, order), put(b, e.type, 2, order), put(b, e.count, 4, order);
    if (e.type == 3) put(b, e.value, 2, order), put(b, 0, 2, order);  // a SHORT is left-justified
    else put(b, e.value, 4, order);
  }
  put(b, 0, 4, order);  // no next directory
  for (std::uint32_t i = 0; i < blocks; ++i) put(b, data_at, 4, order);
  for (std::uint32_t i = 0; i < blocks; ++i) put(b, static_cast<std::uint32_t>(packed.size()), 4, order);
  b.insert(b.end(), packed.begin(), packed.end());
  return b;
}

// A lossless WebP of a constant image with its VP8L header rewritten to width x height: each pixel
// costs zero bits, so libwebp decodes the 38-byte file to the full size. With `extended`, a VP8X
// chunk of the same canvas comes first.
std::vector<uchar> constantWebp(std::uint32_t width, std::uint32_t height, bool extended = false) {
  std::vector<uchar> b = encodeWith(".webp", cv::Mat(16, 16, CV_8UC3, cv::Scalar(77, 77, 77)),
                                    {cv::IMWRITE_WEBP_QUALITY, 101});
  EXPECT_TRUE(b.size() > 25 && std::memcmp(&b[12], "VP8L", 4) == 0 && b[20] == 0x2f);
  std::uint32_t bits = b[21] | (b[22] << 8) | (b[23] << 16) | (std::uint32_t(b[24]) << 24);
  bits = (bits & ~((1u << 28) - 1)) | (width - 1) | ((height - 1) << 14);
  for (int i = 0; i < 4; ++i) b[21 + i] = static_cast<uchar>(bits >> (8 * i));
  if (!extended) return b;
  std::vector<uchar> vp8x = {'V', 'P', '8', 'X'};
  put(vp8x, 10, 4, detail::Endian::Little);
  put(vp8x, 0, 4, detail::Endian::Little);  // no flags
  put(vp8x, width - 1, 3, detail::Endian::Little);
  put(vp8x, height - 1, 3, detail::Endian::Little);
  b.insert(b.begin() + 12, vp8x.begin(), vp8x.end());
  const std::uint32_t riff = static_cast<std::uint32_t>(b.size() - 8);
  for (int i = 0; i < 4; ++i) b[4 + i] = static_cast<uchar>(riff >> (8 * i));
  return b;
}

long peakResidentKb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST_F(ImageIo, DecompressionBombsAreRefusedFromTheHeader) {
  // Small files from the same builders decode in full: the large ones are real bombs (OpenCV
  // alone takes seconds and GBs on them).
  EXPECT_EQ(cv::countNonZero(loadImage(file("small.tif", zeroTiff(300, 250, 100)))), 0);
  EXPECT_EQ(loadImage(file("small_mm.tif", zeroTiff(300, 250, 100, TiffLayout::Strips, detail::Endian::Big))).size(),
            cv::Size(300, 250));
  EXPECT_EQ(loadImage(file("small_tiled.tif", zeroTiff(300, 250, 128, TiffLayout::Tiles))).size(), cv::Size(300, 250));
  EXPECT_EQ(loadImage(file("small.webp", constantWebp(64, 48))).size(), cv::Size(64, 48));
  EXPECT_EQ(loadImage(file("small_x.webp", constantWebp(64, 48, true))).size(), cv::Size(64, 48));

  struct Bomb {
    std::string name, claim;
    std::vector<uchar> bytes;
  };
  const std::vector<Bomb> bombs = {
      {"bomb.tif", "(TIFF header) declares 30000x30000", zeroTiff(30000, 30000, 100)},
      {"bomb_mm.tif", "(TIFF header) declares 30000x30000",
       zeroTiff(30000, 30000, 100, TiffLayout::Strips, detail::Endian::Big)},
      {"bomb_tiled.tif", "(TIFF header) declares 30000x30000", zeroTiff(30000, 30000, 1024, TiffLayout::Tiles)},
      {"bomb.webp", "(WebP header) declares 16000x16000", constantWebp(16000, 16000)},
      {"bomb_x.webp", "(WebP header) declares 16000x16000", constantWebp(16000, 16000, true)},
  };
  for (const Bomb& bomb : bombs) {
    SCOPED_TRACE(bomb.name);
    EXPECT_LT(bomb.bytes.size(), 10000u);
    const std::string path = file(bomb.name, bomb.bytes);
    const long resident = peakResidentKb();
    const auto start = std::chrono::steady_clock::now();
    const std::string message = expectError<CapacityError>(path);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.5);
    EXPECT_LT(peakResidentKb() - resident, 50 * 1024) << "KB more at the peak";
    EXPECT_NE(message.find(bomb.claim + " pixels, above the limit of 100000000"), std::string::npos) << message;
  }
}

// --- Corrupt data ------------------------------------------------------------------------------

TEST_F(ImageIo, JpegDataThatLibjpegWarnsAboutIsRefused) {
  const std::vector<uchar> jpg = encode(".jpg", pattern(64, 64, CV_8UC1));
  std::vector<uchar> premature(jpg.begin(), jpg.begin() + jpg.size() / 2);  // the scan cut, the end marker kept
  premature.insert(premature.end(), {0xFF, 0xD9});
  // Bytes that are no marker before the end: 16 of them, more than libjpeg-turbo's bit buffer reads
  // ahead of the scan's last code (its 64 bits, dropped unseen at the scan's end: with 3 bytes, 54
  // of 100 random images gave no warning, and no decoder could have refused them).
  std::vector<uchar> extraneous(jpg.begin(), jpg.end() - 2);
  for (uchar b = 1; b <= 16; ++b) extraneous.push_back(b);
  extraneous.insert(extraneous.end(), {0xFF, 0xD9});
  std::vector<uchar> truncated(jpg.begin(), jpg.begin() + jpg.size() * 2 / 3);
  const std::pair<std::vector<uchar>, std::string> cases[] = {
      {premature, "Corrupt JPEG data: premature end of data segment"},
      {extraneous, "extraneous bytes before marker 0xd9"},
      {truncated, "Premature end of JPEG file"},
  };
  for (const auto& [bytes, warning] : cases) {
    // OpenCV alone decodes each (libjpeg warns on stderr and fills in grey).
    EXPECT_FALSE(cv::imdecode(bytes, cv::IMREAD_GRAYSCALE).empty());
    const std::string message = expectError<InvalidInput>(file("bad.jpg", bytes));
    EXPECT_NE(message.find("the JPEG data is corrupt or truncated: "), std::string::npos) << message;
    EXPECT_NE(message.find(warning), std::string::npos) << message;
  }
}

// A PNG chunk: length, type, data and the CRC of type and data (wrong when `good_crc` is false).
std::vector<uchar> pngChunk(const std::string& type, const std::string& data, bool good_crc = true) {
  const std::string body = type + data;
  std::vector<uchar> chunk;
  put(chunk, static_cast<std::uint32_t>(data.size()), 4, detail::Endian::Big);
  for (const char c : body) chunk.push_back(static_cast<uchar>(c));
  const auto crc = crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  put(chunk, static_cast<std::uint32_t>(crc) ^ (good_crc ? 0u : 1u), 4, detail::Endian::Big);
  return chunk;
}

TEST_F(ImageIo, PngDataThatLibpngFailsOnIsRefused) {
  const std::vector<uchar> png = encode(".png", pattern(64, 64, CV_8UC1));
  constexpr std::size_t kAfterIhdr = 8 + 25;
  auto withChunk = [&](const std::vector<uchar>& chunk) {
    std::vector<uchar> b = png;
    b.insert(b.begin() + kAfterIhdr, chunk.begin(), chunk.end());
    return b;
  };
  // The first IDAT chunk: its length, then "IDAT", the data and the CRC.
  static const uchar kIdat[] = {'I', 'D', 'A', 'T'};
  const std::size_t idat = std::search(png.begin(), png.end(), std::begin(kIdat), std::end(kIdat)) - png.begin();
  const std::size_t idat_length = (png[idat - 4] << 24) | (png[idat - 3] << 16) | (png[idat - 2] << 8) | png[idat - 1];
  std::vector<uchar> idat_crc = png, idat_data = png;
  idat_crc[idat + 4 + idat_length] ^= 0x55;
  idat_data[idat + 4 + idat_length / 2] ^= 0x55;  // zlib or the CRC fails, whichever libpng meets first
  const std::vector<uchar> no_end(png.begin(), png.end() - 12);  // IEND cut off
  const std::pair<std::vector<uchar>, std::string> cases[] = {
      {idat_crc, "IDAT: CRC error"},
      {idat_data, "IDAT: "},
      {no_end, "the file ends early (truncated)"},
  };
  for (const auto& [bytes, problem] : cases) {
    const std::string message = expectError<InvalidInput>(file("bad.png", bytes));
    EXPECT_NE(message.find("the PNG data is corrupt or truncated: " + problem), std::string::npos) << message;
  }
  // A CRC error in an ancillary chunk is metadata lost, not pixels: libpng drops the chunk
  // (decoder_checks_test.cpp has the other metadata problems).
  EXPECT_EQ(loadImage(file("ok.png", withChunk(pngChunk("tEXt", std::string("Comment\0good crc", 16))))).size(),
            cv::Size(64, 64));
  EXPECT_EQ(loadImage(file("bad_text.png", withChunk(pngChunk("tEXt", std::string("Comment\0bad crc", 15), false))))
                .size(),
            cv::Size(64, 64));
}

// --- Malformed headers and formats bovw does not read ------------------------------------------

TEST_F(ImageIo, MalformedHeadersNameTheFormat) {
  std::vector<uchar> tiff = zeroTiff(300, 250, 100);
  tiff[4] = 0xF0;  // the directory's offset, past the end
  std::vector<uchar> webp = constantWebp(64, 48);
  std::memcpy(&webp[12], "ALPH", 4);
  const std::pair<std::vector<uchar>, std::string> cases[] = {
      {tiff, "not a valid TIFF image: the header ends early"},
      {webp, "not a valid WebP image: the first chunk is none of VP8, VP8L, VP8X"},
      {std::vector<uchar>{'P', '5', '\n', 'x'}, "not a valid PNM image: expected a number at byte 3"},
  };
  for (const auto& [bytes, problem] : cases) {
    const std::string message = expectError<InvalidInput>(file("bad.img", bytes));
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  }
}

TEST_F(ImageIo, FormatsOpenCvReadsThroughGdalOrGdcmAreRefused) {
  std::vector<uchar> dicom(128, 0), dted(140, 0);
  const std::string dicm = "DICM", dted_tag = "DTED", nitf = "NITF02.10";
  dicom.insert(dicom.end(), dicm.begin(), dicm.end());
  dted.insert(dted.end(), dted_tag.begin(), dted_tag.end());
  dted.resize(300, 0);
  const std::pair<std::vector<uchar>, std::string> cases[] = {
      {dicom, "DICOM"}, {dted, "DTED"}, {std::vector<uchar>(nitf.begin(), nitf.end()), "NITF"}};
  for (const auto& [bytes, format] : cases) {
    const std::string message = expectError<InvalidInput>(file("scan.img", bytes));
    EXPECT_NE(message.find(format + " images are not read"), std::string::npos) << message;
  }
}

TEST(ImageExtensions, RecognisesImageFiles) {
  EXPECT_TRUE(hasImageExtension("a/b.PNG"));
  EXPECT_TRUE(hasImageExtension("x.jpeg"));
  EXPECT_TRUE(hasImageExtension("x.tif"));
  for (const char* decodable : {"x.pam", "x.pfm", "x.j2k"}) EXPECT_TRUE(hasImageExtension(decodable)) << decodable;
  EXPECT_FALSE(hasImageExtension("x.txt"));
  EXPECT_FALSE(hasImageExtension("dir.png/file"));
  EXPECT_FALSE(hasImageExtension("noext"));
}

}  // namespace
}  // namespace bovw::test
