// numpy views and owning results (numpy_buffers.hpp).
#include "numpy_buffers.hpp"

#include <bovw/error.hpp>

#include <pybind11/stl.h>

#include <sstream>

namespace bovw::python {

namespace {

std::string describe(const py::array& array) {
  std::ostringstream text;
  text << py::str(array.dtype()).cast<std::string>() << " array of shape (";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) text << (i ? ", " : "") << array.shape(i);
  text << (array.ndim() == 1 ? ",)" : ")");
  if (!(array.flags() & py::array::c_style)) text << ", not C-contiguous";
  return text.str();
}

}  // namespace

DescriptorsView descriptorsView(const py::handle& object, const char* what, bool copy) {
  DescriptorsView result;
  if (copy) {
    result.owner = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(object);
    if (!result.owner) throw py::error_already_set();
  } else {
    if (!py::isinstance<py::array>(object))
      throw py::type_error(std::string(what) + ": expected a C-contiguous float32 numpy array of N x D (2-D), got " +
                           py::str(py::type::of(object)).cast<std::string>() +
                           " (pass numpy.ascontiguousarray(x, dtype=numpy.float32), or copy=True)");
    result.owner = py::reinterpret_borrow<py::array>(object);
    const bool fits = result.owner.dtype().is(py::dtype::of<float>()) && (result.owner.flags() & py::array::c_style);
    if (!fits || result.owner.ndim() != 2)
      throw py::type_error(std::string(what) + ": expected a C-contiguous float32 numpy array of N x D (2-D), got a " +
                           describe(result.owner) +
                           (fits ? std::string()
                                 : " (pass numpy.ascontiguousarray(x, dtype=numpy.float32), or copy=True to convert)"));
  }
  if (result.owner.ndim() != 2)
    throw py::type_error(std::string(what) + ": expected N x D (2-D), got a " + describe(result.owner));
  result.data = static_cast<const float*>(result.owner.data());
  result.rows = result.owner.shape(0);
  result.cols = result.owner.shape(1);
  return result;
}

std::vector<std::int64_t> offsetsFrom(const py::handle& offsets) {
  if (py::isinstance<py::array>(offsets)) {
    const auto array = py::reinterpret_borrow<py::array>(offsets);
    const char kind = array.dtype().kind();
    if ((kind != 'i' && kind != 'u') || array.ndim() != 1)
      throw py::type_error("offsets: expected a 1-D integer array of I+1 row offsets, got a " + describe(array));
    return py::array_t<std::int64_t, py::array::forcecast>::ensure(array).cast<std::vector<std::int64_t>>();
  }
  try {
    return offsets.cast<std::vector<std::int64_t>>();
  } catch (const py::cast_error&) {
    throw py::type_error("offsets: expected a 1-D integer array or a sequence of ints, got " +
                         py::str(py::type::of(offsets)).cast<std::string>());
  }
}

cv::Mat imageView(const py::array& image) {
  const bool u8 = image.dtype().is(py::dtype::of<std::uint8_t>());
  const bool u16 = image.dtype().is(py::dtype::of<std::uint16_t>());
  const int channels = image.ndim() == 2 ? 1 : image.ndim() == 3 ? static_cast<int>(image.shape(2)) : 0;
  if (!(u8 || u16) || !(channels == 1 || channels == 3 || channels == 4) || !(image.flags() & py::array::c_style))
    throw py::type_error("image: expected a C-contiguous uint8 or uint16 numpy array of H x W (gray) or H x W x 3|4 "
                         "(BGR, BGRA), got a " + describe(image) + " (numpy.ascontiguousarray(image) makes one)");
  if (image.shape(0) > INT32_MAX || image.shape(1) > INT32_MAX)
    throw InvalidInput("image: " + std::to_string(image.shape(0)) + " x " + std::to_string(image.shape(1)) +
                       " pixels is larger than OpenCV's images");
  const int type = CV_MAKETYPE(u8 ? CV_8U : CV_16U, channels);
  return cv::Mat(static_cast<int>(image.shape(0)), static_cast<int>(image.shape(1)), type,
                 const_cast<void*>(image.data()));
}

py::array_t<float> toNumpy(const cv::Mat& matrix, int columns) {
  if (matrix.empty()) return py::array_t<float>(std::vector<py::ssize_t>{0, static_cast<py::ssize_t>(columns)});
  CV_Assert(matrix.type() == CV_32F && matrix.dims == 2);
  auto* owned = new cv::Mat(matrix.isContinuous() ? matrix : matrix.clone());
  py::capsule owner(owned, [](void* p) { delete static_cast<cv::Mat*>(p); });
  const auto rows = static_cast<py::ssize_t>(owned->rows), cols = static_cast<py::ssize_t>(owned->cols);
  return py::array_t<float>({rows, cols}, {static_cast<py::ssize_t>(sizeof(float)) * cols,
                                           static_cast<py::ssize_t>(sizeof(float))},
                            owned->ptr<float>(), owner);
}

}  // namespace bovw::python
