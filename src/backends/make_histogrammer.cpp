// makeHistogrammer: the one place that knows every backend, so that core/ includes none of them.
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#ifdef BOVW_HAVE_OPENCV
#include "cpu/approximate_cpu_histogrammer.hpp"
#endif
#include "cpu/cpu_histogrammer.hpp"
#include "cpu/tiled_cpu_histogrammer.hpp"
#include "opencl/opencl_histogrammer.hpp"

#include <string>

namespace bovw {

std::unique_ptr<Histogrammer> makeHistogrammer(const HistogrammerConfig& config) {
  if (config.work_group_size < 1)
    throw InvalidInput("work-group size " + std::to_string(config.work_group_size) + " must be >= 1");
  if (config.threads < 0)
    throw InvalidInput("threads " + std::to_string(config.threads) + " must be >= 0 (0: all cores)");
  if (config.approximate_checks < 1)
    throw InvalidInput("approximate checks " + std::to_string(config.approximate_checks) + " must be >= 1");
  switch (config.backend) {
    case Backend::Auto:
      return makeHistogrammer(withResolvedBackend(config));
    case Backend::Serial:
      return detail::makeCpuHistogrammer(1);
    case Backend::OpenMP:
      return detail::makeCpuHistogrammer(config.threads);
    case Backend::OpenMPTiled:
      return detail::makeTiledCpuHistogrammer(config.threads);
    case Backend::OpenCL:
      return detail::makeOpenCLHistogrammer(config);
    case Backend::OpenMPApproximate:
#ifdef BOVW_HAVE_OPENCV
      return detail::makeApproximateCpuHistogrammer(config.threads, config.approximate_checks);
#else
      throw InvalidInput("backend openmp-ann needs OpenCV's FLANN: this bovw was built without OpenCV");
#endif
  }
  throw InvalidInput("unknown backend");
}

}  // namespace bovw
