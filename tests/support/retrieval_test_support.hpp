// Helpers of the tests on images (retrieval, pipeline, search, evaluation, the feature extractors):
// a temporary folder removed at the end, the test images (the shipped SURF images and views of them
// made with OpenCV, plus bad files of every kind), the per-image reference extraction, and exact
// comparisons of descriptor blocks.
#pragma once

#include "support/test_support.hpp"

#include <bovw/descriptors.hpp>
#include <bovw/feature_extractor.hpp>
#include <bovw/image_io.hpp>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#ifndef BOVW_TEST_DATA
#error "BOVW_TEST_DATA must name the tests/data folder"
#endif

namespace bovw::test {

inline std::string dataFile(const std::string& name) { return std::string(BOVW_TEST_DATA) + "/surf/" + name; }

// A fresh folder under the system's temporary directory, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bovw_retrieval_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::vector<char> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeBytes(const std::string& path, const char* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline void writeBytes(const std::string& path, const std::vector<char>& bytes) {
  writeBytes(path, bytes.data(), bytes.size());
}

inline void writeText(const std::string& path, const std::string& text) { writeBytes(path, text.data(), text.size()); }

inline void writeImage(const std::string& path, const cv::Mat& image) {
  if (!cv::imwrite(path, image)) throw std::runtime_error("cv::imwrite failed for " + path);
}

inline cv::Mat readGray(const std::string& path) {
  cv::Mat image = cv::imread(path, cv::IMREAD_GRAYSCALE);
  if (image.empty()) throw std::runtime_error("cannot read test image " + path);
  return image;
}

// A view of an image: rotated by `degrees` about its centre and scaled, borders reflected.
inline cv::Mat rotated(const cv::Mat& image, double degrees, double scale) {
  const cv::Mat m = cv::getRotationMatrix2D(cv::Point2f(image.cols / 2.0f, image.rows / 2.0f), degrees, scale);
  cv::Mat out;
  cv::warpAffine(image, out, m, image.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  return out;
}

// Brighter (gain > 1) and with a mild perspective tilt.
inline cv::Mat brightenedTilt(const cv::Mat& image, double gain) {
  const float w = static_cast<float>(image.cols), h = static_cast<float>(image.rows);
  const cv::Point2f from[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  const cv::Point2f to[4] = {{0.05f * w, 0.03f * h}, {0.97f * w, 0}, {w, h}, {0.02f * w, 0.94f * h}};
  cv::Mat warped;
  cv::warpPerspective(image, warped, cv::getPerspectiveTransform(from, to), image.size(), cv::INTER_LINEAR,
                      cv::BORDER_REFLECT);
  cv::Mat out;
  warped.convertTo(out, CV_8U, gain, 0);
  return out;
}

// A textured random scene (rectangles, circles and lines of random grey levels, slightly blurred):
// plenty of SURF and SIFT features, different from the shipped images.
inline cv::Mat randomTexture(std::mt19937_64& rng, int width, int height) {
  cv::Mat image(height, width, CV_8UC1, cv::Scalar(128));
  std::uniform_int_distribution<int> x(0, width - 1), y(0, height - 1), grey(0, 255), size(4, 40);
  for (int i = 0; i < 120; ++i) {
    const cv::Point p(x(rng), y(rng));
    switch (i % 3) {
      case 0: cv::rectangle(image, p, p + cv::Point(size(rng), size(rng)), cv::Scalar(grey(rng)), cv::FILLED); break;
      case 1: cv::circle(image, p, size(rng) / 2, cv::Scalar(grey(rng)), cv::FILLED); break;
      default: cv::line(image, p, cv::Point(x(rng), y(rng)), cv::Scalar(grey(rng)), 2); break;
    }
  }
  cv::GaussianBlur(image, image, cv::Size(3, 3), 0.8);
  return image;
}

// The test folder: good images (box.png and views, a crop of graf1, a random texture), a flat grey
// image without features, and bad files (a truncated PNG, a text file named .png, a path that does
// not exist). Made once per test program: extraction dominates the tests' run time.
struct ImageSet {
  std::string box, box_rotated, box_bright, graf_crop, texture, flat;  // decodable
  std::string truncated, text_as_png, missing;                        // bad

  std::vector<std::string> good() const { return {box, box_rotated, box_bright, graf_crop, texture}; }
  // Good and bad interleaved, bad ones not first or last.
  std::vector<std::string> mixed() const {
    return {box, box_rotated, truncated, graf_crop, text_as_png, missing, box_bright, texture};
  }
};

inline const ImageSet& imageSet() {
  static TempDir dir;  // lives for the program; removed at exit
  static const ImageSet set = [] {
    ImageSet s;
    const cv::Mat box = readGray(dataFile("box.png"));
    const cv::Mat graf = readGray(dataFile("graf1_gray.png"));
    s.box = dir.file("a_box.png");
    writeImage(s.box, box);
    s.box_rotated = dir.file("b_box_rotated.png");
    writeImage(s.box_rotated, rotated(box, 20, 0.9));
    s.box_bright = dir.file("c_box_bright.jpg");
    writeImage(s.box_bright, brightenedTilt(box, 1.25));
    s.graf_crop = dir.file("d_graf_crop.png");
    writeImage(s.graf_crop, graf(cv::Rect(100, 150, 320, 240)).clone());
    std::mt19937_64 rng(20240611);  // fixed: the image content is part of the fixture, not a random input
    s.texture = dir.file("e_texture.png");
    writeImage(s.texture, randomTexture(rng, 300, 220));
    s.flat = dir.file("f_flat.png");
    writeImage(s.flat, cv::Mat(200, 260, CV_8UC1, cv::Scalar(128)));

    const std::vector<char> png = readBytes(dataFile("box.png"));
    s.truncated = dir.file("g_truncated.png");
    writeBytes(s.truncated, png.data(), png.size() / 3);
    s.text_as_png = dir.file("h_text.png");
    writeText(s.text_as_png, "this is a text file, not an image\n");
    s.missing = dir.file("i_missing.png");
    return s;
  }();
  return set;
}

// The independent path: load one image and extract its descriptors.
inline cv::Mat extractOne(const FeatureExtractor& extractor, const std::string& path) {
  return extractor.extract(loadImage(path));
}

// Rows [begin, end) of `block` equal `expected` (N x D CV_32F, or empty) bit for bit.
inline testing::AssertionResult rowsEqual(const Descriptors& block, std::int64_t begin, std::int64_t end,
                                          const cv::Mat& expected) {
  const std::int64_t rows = end - begin;
  if (rows != expected.rows)
    return testing::AssertionFailure() << rows << " rows, the image alone gives " << expected.rows;
  if (rows == 0) return testing::AssertionSuccess();
  if (expected.type() != CV_32F || expected.cols != block.cols())
    return testing::AssertionFailure() << "reference is " << expected.cols << " columns of type " << expected.type();
  for (std::int64_t r = 0; r < rows; ++r)
    for (int c = 0; c < expected.cols; ++c)
      if (block(begin + r, c) != expected.at<float>(static_cast<int>(r), c))
        return testing::AssertionFailure() << "row " << r << " column " << c << ": " << block(begin + r, c)
                                           << ", the image alone gives " << expected.at<float>(static_cast<int>(r), c);
  return testing::AssertionSuccess();
}

// Same shape and bit-identical values (Eigen's == needs equal shapes).
inline bool sameMatrix(const Descriptors& a, const Descriptors& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.size() == 0 || a == b);
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

inline std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace bovw::test
