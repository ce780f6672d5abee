// Paths and texts between Python and bovw (bindings.hpp): file names as the file system's bytes,
// the way Python's os module passes them, so that names that are not UTF-8 survive.
#include "bindings.hpp"

namespace bovw::python {

std::string pathFrom(const py::handle& path) {
  // Kept for the life of the process: a static py::object would be released after the interpreter.
  static const py::handle fsencode = py::object(py::module_::import("os").attr("fsencode")).release();
  if (!py::isinstance<py::str>(path) && !py::isinstance<py::bytes>(path) && !py::hasattr(path, "__fspath__"))
    throw py::type_error("expected a path (str, bytes or os.PathLike), got " +
                         py::str(py::type::of(path)).cast<std::string>());
  return fsencode(path).cast<std::string>();
}

py::str text(const std::string& bytes) {
  PyObject* decoded = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "surrogateescape");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

}  // namespace bovw::python
