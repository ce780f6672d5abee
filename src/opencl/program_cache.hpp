// Builds embedded kernels/*.cl programs lazily and keeps them per context, keyed on the file and
// the full option string (so a program is never rebuilt inside a timed loop, nor by a second
// histogrammer on the same device). Safe to use from several threads.
#pragma once

#include "opencl/cl.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace bovw::detail {

// The source of kernels/<name>.cl with kernels/common.h inlined (generated at build time).
const std::string& embeddedKernel(const std::string& name);

class ProgramCache {
 public:
  ProgramCache(cl::Context context, cl::Device device)
      : context_(std::move(context)), device_(std::move(device)), mutex_(std::make_unique<std::mutex>()) {}

  // Throws KernelBuildError with the compiler's log if the program does not build.
  cl::Kernel kernel(const std::string& file, const std::string& kernel_name, const std::string& options);

 private:
  cl::Context context_;
  cl::Device device_;
  std::map<std::pair<std::string, std::string>, cl::Program> programs_;
  std::unique_ptr<std::mutex> mutex_;  // a pointer keeps the cache movable
};

}  // namespace bovw::detail
