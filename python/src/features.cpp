// bovw.extract: keypoints and descriptors of one image (a file or a numpy array), exactly as
// `bovw extract` computes them, and bovw.feature_kinds().
#include "arguments.hpp"
#include "bindings.hpp"
#include "numpy_buffers.hpp"

#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include <pybind11/stl.h>

namespace bovw::python {

namespace {

// Keypoints as `bovw extract` writes them: N x 6 float32 rows of x, y, size, angle, response, octave.
py::array_t<float> keypointArray(const std::vector<cv::KeyPoint>& keypoints) {
  Eigen::Matrix<float, Eigen::Dynamic, 6, Eigen::RowMajor> rows(static_cast<Eigen::Index>(keypoints.size()), 6);
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const cv::KeyPoint& k = keypoints[static_cast<std::size_t>(i)];
    rows.row(i) << k.pt.x, k.pt.y, k.size, k.angle, k.response, static_cast<float>(k.octave);
  }
  return toNumpy(std::move(rows));
}

}  // namespace

void bindFeatures(py::module_& module) {
  module.def(
      "extract",
      [](const py::handle& image, const std::string& features, py::kwargs options) {
        py::dict rest = options;
        const FeatureArguments arguments = featureArguments(features, rest);
        rejectUnknown(rest, "extract");
        std::string path;
        py::array array;
        cv::Mat pixels;
        if (py::isinstance<py::array>(image)) {
          array = py::reinterpret_borrow<py::array>(image);  // held while the GIL is released
          pixels = imageView(array);
        } else {
          path = pathFrom(image);
        }
        ImageFeatures found;
        int width = 0;
        {
          py::gil_scoped_release unlocked;
          const auto extractor = cachedExtractor(arguments);
          width = extractor->descriptorSize();
          if (!path.empty())
            found = namingFile(path, [&] {
              return extractor->extractFeatures(loadImage(path, arguments.extractor.max_pixels));
            });
          else
            found = extractor->extractFeatures(pixels);
        }
        return py::make_tuple(keypointArray(found.keypoints), toNumpy(found.descriptors, width));
      },
      py::arg("image"), py::arg("features") = "surf",
      "Keypoints and descriptors of one image, as `bovw extract` computes them: returns (keypoints, descriptors), "
      "an N x 6 float32 array of x, y, size, angle, response, octave and an N x D float32 array (row i found at "
      "keypoint i).\n\n"
      "`image` is a path (decoded to gray as the CLI does) or a C-contiguous uint8/uint16 numpy array, H x W "
      "(gray) or H x W x 3|4 (BGR, BGRA: converted to gray as OpenCV's SURF does), read in place.\n"
      "features: \"surf\" (default), \"sift\", \"orb\" or any registered kind. Keyword arguments: "
      "hessian_threshold=100.0, octaves=4, octave_layers=3, extended=False, upright=False (SURF); params={NAME: "
      "VALUE} (any kind's parameters, e.g. {\"nfeatures\": 1000} for orb); surf_backend=\"auto\" (\"builtin\", "
      "\"opencv\", \"opencl\"); surf_device; max_pixels=100000000. The GIL is released while it runs; safe from "
      "several threads.");

  module.def(
      "feature_kinds", [] { return featureKindNames(); },
      "The feature kinds this build can extract: \"orb\", \"sift\", \"surf\", ...");
}

}  // namespace bovw::python
