// An image's visual words and where they lie: what geometric verification matches between a query
// and an indexed image (bovw/geometric_verification.hpp), and what a database stores per image when
// it keeps keypoints.
#pragma once

#include <bovw/descriptors.hpp>
#include <bovw/vocabulary.hpp>

#include <Eigen/Core>
#include <opencv2/core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bovw {

struct ImageWords {
  cv::Size image_size;              // of the image the points lie in (width, height in pixels)
  std::vector<cv::Point2f> points;  // keypoint centres
  std::vector<std::int32_t> words;  // words[i]: the visual word of the descriptor found at points[i]
  // signatures[i]: wordSignature of that descriptor; empty when not known (pairs are then not
  // filtered by them).
  std::vector<std::uint64_t> signatures;
  // sizes[i], angles[i]: the keypoint's diameter in pixels and its orientation in degrees [0, 360)
  // (cv::KeyPoint::size and angle; -1: the detector gives none), what weak geometric consistency
  // compares (Scoring::Hamming with weak_geometry, bovw/scoring.hpp). Both empty when not known.
  std::vector<float> sizes;
  std::vector<float> angles;
};

// Where a descriptor lies inside its word's cell, in 64 bits: bit j is set when the descriptor
// exceeds the word's centroid in dimension j * D / 64 (every dimension when D <= 64; bits >= D
// stay 0). Two descriptors of the same word whose signatures differ in many bits were far apart
// in the cell: a coarse vocabulary put them together, they are unlikely to be one scene point.
// This is Jégou, Douze and Schmid's Hamming embedding (ECCV 2008) with the identity as projection
// and the centroid as threshold, so it needs no training beyond the vocabulary.
std::uint64_t wordSignature(const float* descriptor, const Vocabulary& vocabulary, std::int32_t word);

// The number of bits in which two signatures differ.
int signatureDistance(std::uint64_t a, std::uint64_t b);

// The image's histogram over a vocabulary of `vocabulary_size` words: each word's count. Throws
// InvalidInput naming the image (`whose`: "the query", "'a.jpg'") and the first word outside
// [0, vocabulary_size).
Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> histogramOf(const ImageWords& image, int vocabulary_size,
                                                           const std::string& whose);

}  // namespace bovw
