// The keyword arguments several calls share: what features to extract (features="surf" and SURF's
// options, or params= for any kind) and where histograms are computed (backend, variant, device,
// threads). One parser each, so that extract, train and Database read them alike.
#pragma once

#include <bovw/feature_registry.hpp>
#include <bovw/feature_spec.hpp>
#include <bovw/histogrammer.hpp>

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>

namespace bovw::python {

namespace py = pybind11;

struct FeatureArguments {
  FeatureSpec spec;            // normalised: every parameter of its kind present
  ExtractorOptions extractor;  // surf_backend, surf_device, max_pixels
};

// `features` ("surf", "sift", "orb" or any registered kind) and the keyword arguments
// hessian_threshold, octaves, octave_layers, extended, upright (SURF only), params (a dict of any
// kind's parameters, as --feature-param), surf_backend, surf_device, max_pixels. Each recognised
// keyword is removed from `options`; the caller refuses what is left (rejectUnknown). Raises
// TypeError for a value of the wrong type, InvalidInput (a ValueError) for one out of range.
FeatureArguments featureArguments(const std::string& features, py::dict& options);

// Raises TypeError naming the first keyword argument left in `options` (`call` names the function).
void rejectUnknown(const py::dict& options, const char* call);

// The histogrammer's configuration. backend: "auto" (resolved by bovw::resolveBackend: OpenCL when
// the device is a GPU, else openmp-tiled), "serial", "openmp", "openmp-tiled", "opencl",
// "openmp-ann"; variant: an OpenCL kernel variant or "auto"; device: None for $BOVW_DEVICE or the first GPU, else a spec ("0:1", "gpu", a name part);
// threads: OpenMP threads, 0 for all cores. Raises InvalidInput for unknown names.
HistogrammerConfig histogrammerConfig(const std::string& backend, const std::string& variant,
                                      const std::optional<std::string>& device, int threads);

// An extractor for `arguments`, made once per distinct spec and options and shared (extractors are
// safe to call from several threads; an OpenCL one compiles its kernels once).
std::shared_ptr<const FeatureExtractor> cachedExtractor(const FeatureArguments& arguments);

}  // namespace bovw::python
