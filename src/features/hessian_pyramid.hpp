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

// The filter of one layer as the offsets the inner loop reads (and the OpenCL kernels, through
// opencl/device_layers.hpp). Dxx's lobes are contiguous in x and share their rows: corner k of the top
// (bottom) edge is at x boundary k. Dyy likewise with columns.
struct LayerFilter {
  int x_top[4], x_bottom[4];  // Dxx: integral offsets of the 4 x boundaries on the lobes' top and bottom rows
  int y_left[4], y_right[4];  // Dyy: the 4 y boundaries on the lobes' left and right columns
  int q[4][4];                // Dxy: the four quadrants' corners (p0, p1, p2, p3), OpenCV's order
  float wx[3], wy[3], wxy[4];  // each box's weight, as resizeBoxPattern computes it
};

// Filter side of layer l of octave o: (9 + 6 l) << o (OpenCV's sizes: 9, 15, 21, 27 at octave 0).
inline int layerFilterSize(int octave, int layer) { return (9 + 6 * layer) << octave; }

// The filter of side `size` over an integral image of `row_step` elements per row.
LayerFilter makeLayerFilter(int size, int row_step);

// Allocates the layers (zeroed) for an image of `image_size`.
HessianPyramid planHessianPyramid(cv::Size image_size, int octaves, int octave_layers);

// Fills every layer's determinants from the integral image (multi-threaded over layers and rows).
void computeHessianDeterminants(const cv::Mat& sum, HessianPyramid& pyramid);

// Sign of the Hessian trace (the Laplacian) for the filter of `size` with top-left corner at pixel
// (x, y): OpenCV stores it in KeyPoint::class_id. Computed per keypoint instead of as a whole layer.
int laplacianSign(const cv::Mat& sum, int size, int y, int x);

}  // namespace bovw::surf
