// numpy in and out without copies: views of the caller's arrays for the library (refused with a
// TypeError that says what to pass unless the caller asks for a copy), and results moved into
// arrays whose memory a capsule owns.
#pragma once

#include <bovw/descriptors.hpp>

#include <opencv2/core.hpp>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bovw::python {

namespace py = pybind11;

// A read-only N x D float32 view of `array`, and the array that holds its memory (the caller's own,
// or with `copy` a converted copy). Keep `owner` alive while the view is used.
struct DescriptorsView {
  py::array owner;
  const float* data = nullptr;
  Eigen::Index rows = 0, cols = 0;
  Eigen::Map<const Descriptors> view() const { return Eigen::Map<const Descriptors>(data, rows, cols); }
};
// `what` names the argument in messages ("descriptors"). Without `copy`, anything but a 2-D
// C-contiguous float32 numpy array raises TypeError; with it, any 2-D array-like of numbers is
// converted (copied only when it is not such an array already).
DescriptorsView descriptorsView(const py::handle& array, const char* what, bool copy);

// I+1 row offsets from a 1-D integer numpy array or a sequence of ints (small: always converted).
// Raises TypeError for anything else.
std::vector<std::int64_t> offsetsFrom(const py::handle& offsets);

// A cv::Mat header over an image array (H x W, or H x W x 3|4 as BGR(A); uint8 or uint16;
// C-contiguous), no copy: the array must outlive the Mat. Raises TypeError otherwise.
cv::Mat imageView(const py::array& image);

// Arrays that own what they are given: the vector, matrix or Mat moves into a capsule that is the
// array's base (a cv::Mat shares its reference-counted buffer: no copy either).
template <typename T>
py::array_t<T> toNumpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(owned->size())}, {static_cast<py::ssize_t>(sizeof(T))},
                        owned->data(), owner);
}

template <typename Matrix>
py::array_t<typename Matrix::Scalar> toNumpy(Matrix&& matrix) {
  static_assert(Matrix::IsRowMajor || Matrix::ColsAtCompileTime == 1, "row-major matrices only");
  using T = typename Matrix::Scalar;
  auto* owned = new std::decay_t<Matrix>(std::move(matrix));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::decay_t<Matrix>*>(p); });
  const auto rows = static_cast<py::ssize_t>(owned->rows()), cols = static_cast<py::ssize_t>(owned->cols());
  return py::array_t<T>({rows, cols}, {static_cast<py::ssize_t>(sizeof(T)) * cols, static_cast<py::ssize_t>(sizeof(T))},
                        owned->data(), owner);
}

// A 2-D single-channel CV_32F Mat (continuous rows: the extractors' output) as a float32 array of
// `columns` columns (an empty Mat gives 0 x columns).
py::array_t<float> toNumpy(const cv::Mat& matrix, int columns);

}  // namespace bovw::python
