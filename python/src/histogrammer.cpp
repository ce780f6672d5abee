// bovw.Histogrammer: the nearest word of each descriptor and one histogram per image, on the CPU or
// an OpenCL device, reading the caller's float32 array in place. One object's calls run one at a
// time (a lock: the device buffers it keeps are not shared); objects of their own run in parallel.
#include "arguments.hpp"
#include "bindings.hpp"
#include "numpy_buffers.hpp"

#include <bovw/histogrammer.hpp>

#include <pybind11/stl.h>

#include <mutex>

namespace bovw::python {

namespace {

class PyHistogrammer {
 public:
  PyHistogrammer(const Vocabulary& vocabulary, const HistogrammerConfig& config)
      : vocabulary_(vocabulary), histogrammer_(makeHistogrammer(config)) {}

  py::array_t<std::int32_t> compute(const py::handle& descriptors, const py::handle& offsets, bool copy) {
    const DescriptorsView view = descriptorsView(descriptors, "descriptors", copy);
    std::vector<std::int64_t> bounds = offsets.is_none() ? std::vector<std::int64_t>{0, view.rows} : offsetsFrom(offsets);
    Histograms histograms;
    {
      py::gil_scoped_release unlocked;
      const auto map = view.view();
      const DescriptorBatch batch(map, std::move(bounds));
      std::lock_guard<std::mutex> lock(mutex_);
      histograms = histogrammer_->compute(batch, vocabulary_);
    }
    return toNumpy(std::move(histograms));
  }

  py::array_t<std::int32_t> assign(const py::handle& descriptors, bool copy) {
    const DescriptorsView view = descriptorsView(descriptors, "descriptors", copy);
    std::vector<std::int32_t> words;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mutex_);
      words = histogrammer_->assign(view.view(), vocabulary_);
    }
    return toNumpy(std::move(words));
  }

  std::string description() const { return histogrammer_->description(); }

 private:
  const Vocabulary& vocabulary_;  // the Python Vocabulary's, kept alive by keep_alive below
  std::unique_ptr<Histogrammer> histogrammer_;
  std::mutex mutex_;
};

}  // namespace

void bindHistogrammer(py::module_& module) {
  py::class_<PyHistogrammer>(
      module, "Histogrammer",
      "Nearest visual word of each descriptor and one K-bin histogram per image, for one vocabulary. Results are "
      "exact on every backend but openmp-ann (ties go to the lower word). Safe to share between threads: one "
      "object's calls run one at a time; for parallel calls give each thread its own Histogrammer.")
      .def(py::init([](const Vocabulary& vocabulary, const std::string& backend, const std::string& variant,
                       const std::optional<std::string>& device, int threads) {
             const HistogrammerConfig config = histogrammerConfig(backend, variant, device, threads);
             py::gil_scoped_release unlocked;  // an OpenCL histogrammer finds its device and context
             return std::make_unique<PyHistogrammer>(vocabulary, config);
           }),
           py::arg("vocabulary"), py::arg("backend") = "auto", py::arg("variant") = "auto",
           py::arg("device") = py::none(), py::kw_only(), py::arg("threads") = 0, py::keep_alive<1, 2>(),
           "backend: \"auto\" (OpenCL when the device, device= or else $BOVW_DEVICE or the first GPU, is a GPU; else "
           "openmp-tiled), \"serial\", "
           "\"openmp\", \"openmp-tiled\", \"opencl\", \"openmp-ann\" (approximate); variant: the OpenCL kernel "
           "(\"baseline\", \"coalesced\", \"float4\", \"local\", \"constant\", \"tiled\", \"auto\"); device: None "
           "for $BOVW_DEVICE or the first GPU, else \"P:D\", \"gpu\", \"cpu\" or part of a device name "
           "(bovw.devices()); threads: OpenMP threads, 0 for all cores. Raises InvalidInput for unknown names, "
           "OpenCLError when the device cannot be used.")
      .def("compute", &PyHistogrammer::compute, py::arg("descriptors"), py::arg("offsets") = py::none(), py::kw_only(),
           py::arg("copy") = false,
           "The I x K int32 histograms of the N x D float32 `descriptors`: image i owns rows [offsets[i], "
           "offsets[i+1]) (offsets: I+1 ints from 0 to N; None: all rows are one image). The array is read in "
           "place: anything but a C-contiguous float32 2-D array raises TypeError unless copy=True. Raises "
           "InvalidInput for NaN/Inf, a width other than the vocabulary's, or bad offsets. The GIL is released.")
      .def("assign", &PyHistogrammer::assign, py::arg("descriptors"), py::kw_only(), py::arg("copy") = false,
           "The nearest word of each row of `descriptors` (N int32), with compute's rules for the input.")
      .def_property_readonly("description", &PyHistogrammer::description,
                             "Backend, variant, device and work-group size, as the CLI reports them")
      .def("__repr__", [](const PyHistogrammer& h) { return "<bovw.Histogrammer " + h.description() + ">"; });
}

}  // namespace bovw::python
