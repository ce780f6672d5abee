// ProgramCache: compile once per (file, options), surface build logs.
#include "opencl/program_cache.hpp"

#include <bovw/error.hpp>

#include <cstdlib>
#include <fstream>
#include <functional>

namespace bovw::detail {

namespace {

// $BOVW_KERNEL_BINARIES=DIR: keep each compiled program as DIR/<file>-<hash of options>.bin, for
// reading what the device compiler made of it (on NVIDIA the binary is PTX: registers, spills,
// vector loads; `ptxas -v` reports the resources).
void saveBinaryIfAsked(const cl::Program& program, const std::string& file, const std::string& options) {
  const char* dir = std::getenv("BOVW_KERNEL_BINARIES");
  if (!dir || !*dir) return;
  const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
  if (binaries.empty()) return;
  const std::string path = std::string(dir) + "/" + file + "-" +
                           std::to_string(std::hash<std::string>{}(options) % 1000000) + ".bin";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(binaries[0].data()), static_cast<std::streamsize>(binaries[0].size()));
  std::ofstream(path + ".options") << options << "\n";
}

}  // namespace

cl::Kernel ProgramCache::kernel(const std::string& file, const std::string& kernel_name,
                                const std::string& options) {
  const auto key = std::make_pair(file, options);
  std::lock_guard<std::mutex> lock(*mutex_);
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
    saveBinaryIfAsked(program, file, options);
    it = programs_.emplace(key, std::move(program)).first;
  }
  return cl::Kernel(it->second, kernel_name.c_str());
}

}  // namespace bovw::detail
