// ProgramCache: compile once per (file, options), surface build logs.
#include "opencl/program_cache.hpp"

#include <bovw/error.hpp>

namespace bovw::detail {

cl::Kernel ProgramCache::kernel(const std::string& file, const std::string& kernel_name,
                                const std::string& options) {
  const auto key = std::make_pair(file, options);
  auto it = programs_.find(key);
  if (it == programs_.end()) {
    cl::Program program(context_, embeddedKernel(file));
    try {
      program.build(device_, options.c_str());
    } catch (const cl::Error&) {
      std::string log;
      try {
        log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
      } catch (const cl::Error&) {
        log = "(no build log available)";
      }
      throw KernelBuildError(file + ".cl", options, log);
    }
    it = programs_.emplace(key, std::move(program)).first;
  }
  return cl::Kernel(it->second, kernel_name.c_str());
}

}  // namespace bovw::detail
