// Stage 2 of SURF: the scale space of box-filter Hessian determinants. Layout of OpenCV's
// fastHessianDetector: octave o has octave_layers + 2 layers of filter size (9 + 6 l) << o, sampled
// every 2^o pixels, so that the middle layers have a neighbour above and below for the 3x3x3 search.
// The layers are plain CV_32F matrices: a GPU implementation can fill the same structure.
#pragma once

#include <opencv2/core.hpp>

#include <vector>

namespace bovw::surf {

struct HessianLayer {
  int octave = 0;
  int size = 0;  // filter side in pixels (9, 15, 21, 27 at octave 0)
  int step = 1;  // sampling step in pixels
  // (image rows / step) x (image cols / step) determinants; sample (i, j) belongs to the filter
  // whose top-left corner is at pixel ((i - margin) * step, (j - margin) * step), margin =
  // (size / 2) / step. Zero where the filter does not fit inside the image.
  cv::Mat det;
};

struct HessianPyramid {
  cv::Size image_size;
  int octaves = 0;
  int octave_layers = 0;
  std::vector<HessianLayer> layers;  // octave-major: octave o, layer l at o * (octave_layers + 2) + l

  const HessianLayer& layer(int octave, int l) const { return layers[octave * (octave_layers + 2) + l]; }
};

// Allocates the layers (zeroed) for an image of `image_size`.
HessianPyramid planHessianPyramid(cv::Size image_size, int octaves, int octave_layers);

// Fills every layer's determinants from the integral image (multi-threaded over layers and rows).
void computeHessianDeterminants(const cv::Mat& sum, HessianPyramid& pyramid);

// Sign of the Hessian trace (the Laplacian) for the filter of `size` with top-left corner at pixel
// (x, y): OpenCV stores it in KeyPoint::class_id. Computed per keypoint instead of as a whole layer.
int laplacianSign(const cv::Mat& sum, int size, int y, int x);

}  // namespace bovw::surf
