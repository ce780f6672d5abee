// The extension module bovw._bovw; the package bovw (python/bovw/__init__.py) re-exports it.
#include "bindings.hpp"

#include <bovw/version.hpp>

PYBIND11_MODULE(_bovw, module) {
  module.doc() =
      "bovw: bag-of-visual-words image retrieval. Vocabularies, feature extraction (SURF, SIFT, ORB), "
      "histograms on the CPU or an OpenCL device, and image databases (docs/PYTHON.md).";
  module.attr("__version__") = BOVW_VERSION;
  bovw::python::bindErrors(module);
  bovw::python::bindDevices(module);
  bovw::python::bindVocabulary(module);
  bovw::python::bindFeatures(module);
  bovw::python::bindHistogrammer(module);
  bovw::python::bindDatabase(module);
}
