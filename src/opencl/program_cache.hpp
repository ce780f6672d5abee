// Builds embedded kernels/*.cl programs lazily and keeps them per context, keyed on the file and
// the full option string (so a program is never rebuilt inside a timed loop, nor by a second
// histogrammer on the same device), and across processes in a ProgramBinaryStore: a program built
// before on the same device, driver, source and options is loaded from its binary instead of
// compiled. Safe to use from several threads.
#pragma once

#include "opencl/cl.hpp"
#include "opencl/program_binaries.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace bovw::detail {

// The source of kernels/<name>.cl with kernels/common.h inlined (generated at build time).
const std::string& embeddedKernel(const std::string& name);

class ProgramCache {
 public:
  // `store`: where binaries persist between processes (ProgramBinaryStore::fromEnvironment() for
  // the user's cache folder; an empty store keeps them in memory only).
  ProgramCache(cl::Context context, cl::Device device, ProgramBinaryStore store);

  // Throws KernelBuildError with the compiler's log if the program does not build.
  cl::Kernel kernel(const std::string& file, const std::string& kernel_name, const std::string& options);

  // How the programs of this cache were made, for tests and reports.
  struct Counts {
    int compiled = 0;      // from source
    int from_binary = 0;   // from a stored binary
  };
  Counts counts() const;

 private:
  cl::Program build(const std::string& file, const std::string& options);
  std::optional<cl::Program> buildFromStore(const ProgramKey& key, const std::string& options);

  cl::Context context_;
  cl::Device device_;
  ProgramBinaryStore store_;
  ProgramKey device_key_;  // the device's part of every key
  std::map<std::pair<std::string, std::string>, cl::Program> programs_;
  Counts counts_;
  std::unique_ptr<std::mutex> mutex_;  // a pointer keeps the cache movable
};

}  // namespace bovw::detail
