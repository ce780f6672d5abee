// ProgramCache: compile once per (file, options) and device, surface build logs.
#include "opencl/program_cache.hpp"

#include <bovw/error.hpp>

#include <cstdlib>
#include <fstream>
#include <functional>

namespace bovw::detail {

namespace {

// $BOVW_KERNEL_BINARIES=DIR: keep each compiled program as DIR/<file>-<hash of options>.bin, for
// reading what the device compiler made of it (on NVIDIA the binary is PTX: registers, spills,
// vector loads; `ptxas -v` reports the resources), and its build log beside it as .log (with
// -cl-nv-verbose in the options, NVIDIA's log has the registers and local memory its own JIT gave
// each kernel, which a later ptxas run on the PTX may not reproduce).
void saveBinaryIfAsked(const cl::Program& program, const cl::Device& device, const std::string& file,
                       const std::string& options) {
  const char* dir = std::getenv("BOVW_KERNEL_BINARIES");
  if (!dir || !*dir) return;
  const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
  if (binaries.empty()) return;
  const std::string path = std::string(dir) + "/" + file + "-" +
                           std::to_string(std::hash<std::string>{}(options) % 1000000) + ".bin";
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(binaries[0].data()), static_cast<std::streamsize>(binaries[0].size()));
  std::ofstream(path + ".options") << options << "\n";
  try {  // a log the driver cannot give back only means no .log: the program itself is fine
    const std::string log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    if (log.find_first_not_of(" \n\r\t") != std::string::npos) std::ofstream(path + ".log") << log;
  } catch (const cl::Error&) {
  }
}

}  // namespace

ProgramCache::ProgramCache(cl::Context context, cl::Device device, ProgramBinaryStore store)
    : context_(std::move(context)),
      device_(std::move(device)),
      store_(std::move(store)),
      mutex_(std::make_unique<std::mutex>()) {
  if (!store_.enabled()) return;
  const cl::Platform platform(device_.getInfo<CL_DEVICE_PLATFORM>());
  device_key_.platform = platform.getInfo<CL_PLATFORM_NAME>();
  device_key_.device = device_.getInfo<CL_DEVICE_NAME>();
  device_key_.device_version = device_.getInfo<CL_DEVICE_VERSION>();
  device_key_.driver_version = device_.getInfo<CL_DRIVER_VERSION>();
}

ProgramCache::Counts ProgramCache::counts() const {
  std::lock_guard<std::mutex> lock(*mutex_);
  return counts_;
}

std::optional<cl::Program> ProgramCache::buildFromStore(const ProgramKey& key, const std::string& options) {
  const auto binary = store_.load(key);
  if (!binary) return std::nullopt;
  try {
    cl::Program program(context_, {device_}, cl::Program::Binaries{*binary});
    program.build(device_, options.c_str());
    return program;
  } catch (const cl::Error& e) {
    // A binary that passed the checksum but that this driver refuses (an update that kept its version
    // string, say): the source is still there, and the entry is replaced below.
    noteProgramCache("the driver refused the binary in '" + store_.pathOf(key) + "' (" + e.what() +
                     "); compiling " + key.file + ".cl again");
    return std::nullopt;
  }
}

cl::Program ProgramCache::build(const std::string& file, const std::string& options) {
  ProgramKey key = device_key_;
  if (store_.enabled()) {
    key.file = file;
    key.options = options;
    key.source = embeddedKernel(file);
    if (auto program = buildFromStore(key, options)) {
      ++counts_.from_binary;
      return std::move(*program);
    }
  }
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
  ++counts_.compiled;
  saveBinaryIfAsked(program, device_, file, options);
  if (store_.enabled()) {
    try {
      const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
      if (!binaries.empty()) store_.save(key, binaries[0]);
    } catch (const cl::Error& e) {
      noteProgramCache(std::string("cannot read back the binary of ") + file + ".cl: " + e.what());
    }
  }
  return program;
}

cl::Kernel ProgramCache::kernel(const std::string& file, const std::string& kernel_name,
                                const std::string& options) {
  const auto key = std::make_pair(file, options);
  std::lock_guard<std::mutex> lock(*mutex_);
  auto it = programs_.find(key);
  if (it == programs_.end()) it = programs_.emplace(key, build(file, options)).first;
  return cl::Kernel(it->second, kernel_name.c_str());
}

}  // namespace bovw::detail
