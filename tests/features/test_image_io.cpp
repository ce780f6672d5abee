// loadImage: every failure names the file and has its own exception kind.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include "surf_test_support.hpp"

#include <opencv2/imgcodecs.hpp>

#include <gtest/gtest.h>

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
  template <class E>
  void expectError(const std::string& path, std::int64_t max_pixels = 100'000'000) {
    try {
      loadImage(path, max_pixels);
      FAIL() << "no exception for " << path;
    } catch (const E& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
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

TEST_F(ImageIo, PixelLimitFromHeaderAndAfterDecoding) {
  const cv::Mat img = pattern(50, 60, CV_8UC1);
  expectError<CapacityError>(file("big.png", encode(".png", img)), 2999);
  expectError<CapacityError>(file("big.jpg", encode(".jpg", img)), 2999);
  expectError<CapacityError>(file("big.bmp", encode(".bmp", img)), 2999);  // no header peek: checked after
  EXPECT_NO_THROW(loadImage(file("ok.png", encode(".png", img)), 3000));
}

TEST(ImageExtensions, RecognisesImageFiles) {
  EXPECT_TRUE(hasImageExtension("a/b.PNG"));
  EXPECT_TRUE(hasImageExtension("x.jpeg"));
  EXPECT_TRUE(hasImageExtension("x.tif"));
  EXPECT_FALSE(hasImageExtension("x.txt"));
  EXPECT_FALSE(hasImageExtension("dir.png/file"));
  EXPECT_FALSE(hasImageExtension("noext"));
}

}  // namespace
}  // namespace bovw::test
