#include "features/decoder_checks/opencv_orientation.hpp"

#include <opencv2/imgcodecs.hpp>

namespace bovw::detail {
namespace {

// Four flat 8 x 8 quadrants of distinct levels: each of the eight turns and flips of the Exif
// orientations puts them elsewhere, and a JPEG block that is flat decodes exactly to its level.
cv::Mat probePixels() {
  cv::Mat m(16, 16, CV_8UC1);
  m(cv::Rect(0, 0, 8, 8)).setTo(16);
  m(cv::Rect(8, 0, 8, 8)).setTo(80);
  m(cv::Rect(0, 8, 8, 8)).setTo(160);
  m(cv::Rect(8, 8, 8, 8)).setTo(240);
  return m;
}

const std::vector<unsigned char>& probeJpeg() {
  static const std::vector<unsigned char> jpeg = [] {
    std::vector<unsigned char> out;
    cv::imencode(".jpg", probePixels(), out, {cv::IMWRITE_JPEG_QUALITY, 100});
    return out;
  }();
  return jpeg;
}

// The pixels of Exif orientation 1-8 from those of orientation 1, made as OpenCV 4.6's
// ApplyExifOrientation makes them (a transpose, then a flip).
void turn(const cv::Mat& in, int orientation, cv::Mat& out) {
  const bool transposed = orientation >= 5;
  if (transposed) cv::transpose(in, out);
  else in.copyTo(out);
  switch (orientation) {
    case 2: case 6: cv::flip(out, out, 1); break;   // around the vertical axis
    case 3: case 7: cv::flip(out, out, -1); break;  // both
    case 4: case 8: cv::flip(out, out, 0); break;   // around the horizontal axis
    default: break;
  }
}

}  // namespace

bool turnAsOpenCV(const std::vector<unsigned char>& app1, cv::Mat& gray) {
  if (app1.size() > 0xFFFF - 2) return false;  // a segment's length field holds its body and itself
  // SOI, the APP1 segment, then the probe's own segments.
  const std::vector<unsigned char>& body = probeJpeg();
  std::vector<unsigned char> probe = {0xFF, 0xD8, 0xFF, 0xE1, static_cast<unsigned char>((app1.size() + 2) >> 8),
                                      static_cast<unsigned char>((app1.size() + 2) & 0xFF)};
  probe.insert(probe.end(), app1.begin(), app1.end());
  probe.insert(probe.end(), body.begin() + 2, body.end());
  cv::Mat seen;
  try {
    seen = cv::imdecode(probe, cv::IMREAD_GRAYSCALE);
  } catch (const cv::Exception&) {
    return false;
  }
  if (seen.empty()) return false;
  static const cv::Mat upright = cv::imdecode(body, cv::IMREAD_GRAYSCALE);
  for (int orientation = 1; orientation <= 8; ++orientation) {
    cv::Mat candidate;
    turn(upright, orientation, candidate);
    if (candidate.size() != seen.size() || cv::norm(candidate, seen, cv::NORM_INF) != 0) continue;
    if (orientation != 1) {
      cv::Mat turned;
      turned.allocator = gray.allocator;
      turn(gray, orientation, turned);
      gray = turned;
    }
    return true;
  }
  return false;
}

}  // namespace bovw::detail
