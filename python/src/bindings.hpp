// What the binding files share: each adds its part of the module (module.cpp calls them in order),
// and file names and texts cross between Python and C++ the way Python's os module does.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace bovw::python {

namespace py = pybind11;

void bindErrors(py::module_& module);
void bindVocabulary(py::module_& module);
void bindFeatures(py::module_& module);
void bindHistogrammer(py::module_& module);
void bindDatabase(py::module_& module);
void bindDevices(py::module_& module);

// A path given as str, bytes or os.PathLike, in the file system's bytes (os.fsencode): names that
// are not UTF-8 survive the round trip. Raises TypeError for anything else.
std::string pathFrom(const py::handle& path);
// Text from bovw (messages, image names: file names, not always UTF-8) as str, undecodable bytes as
// surrogate escapes (os.fsdecode's rule), so that a result never fails to convert.
py::str text(const std::string& bytes);

}  // namespace bovw::python
