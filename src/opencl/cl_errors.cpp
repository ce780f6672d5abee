// OpenCL error translation and event timing.
#include "opencl/cl_errors.hpp"

namespace bovw::detail {

void throwOpenCLError(const cl::Error& error) {
  throw OpenCLError(error.what() ? error.what() : "unknown call", error.err());
}

double elapsedMs(const cl::Event& event) {
  const auto start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const auto end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return static_cast<double>(end - start) * 1e-6;
}

}  // namespace bovw::detail
