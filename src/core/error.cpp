// Messages of the structured exceptions, and OpenCL error-code names.
#include <bovw/error.hpp>

#include <map>

namespace bovw {

namespace {

std::string aboutFiles(const std::vector<std::string>& files, const std::string& problem) {
  std::string message;
  for (const std::string& file : files) message += (message.empty() ? "'" : " with '") + file + "'";
  return message.empty() ? problem : message + ": " + problem;
}

}  // namespace

InvalidInput::InvalidInput(const std::string& problem) : Error(problem), problem_(problem) {}

InvalidInput::InvalidInput(const std::string& file, const std::string& problem)
    : InvalidInput(std::vector<std::string>{file}, problem) {}

InvalidInput::InvalidInput(std::vector<std::string> files, const std::string& problem)
    : Error(aboutFiles(files, problem)), files_(std::move(files)), problem_(problem) {}

OpenCLError::OpenCLError(const std::string& call, int code)
    : Error("OpenCL call " + call + " failed with " + openclErrorName(code)), code_(code) {}

KernelBuildError::KernelBuildError(const std::string& kernel, const std::string& options,
                                   const std::string& log)
    : Error("OpenCL kernel '" + kernel + "' failed to build (options: " + options + ")\n" + log),
      options_(options),
      log_(log) {}

std::string openclErrorName(int code) {
  static const std::map<int, const char*> names = {
      {0, "CL_SUCCESS"},
      {-1, "CL_DEVICE_NOT_FOUND"},
      {-2, "CL_DEVICE_NOT_AVAILABLE"},
      {-3, "CL_COMPILER_NOT_AVAILABLE"},
      {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
      {-5, "CL_OUT_OF_RESOURCES"},
      {-6, "CL_OUT_OF_HOST_MEMORY"},
      {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
      {-11, "CL_BUILD_PROGRAM_FAILURE"},
      {-12, "CL_MAP_FAILURE"},
      {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
      {-30, "CL_INVALID_VALUE"},
      {-32, "CL_INVALID_PLATFORM"},
      {-33, "CL_INVALID_DEVICE"},
      {-34, "CL_INVALID_CONTEXT"},
      {-36, "CL_INVALID_COMMAND_QUEUE"},
      {-38, "CL_INVALID_MEM_OBJECT"},
      {-42, "CL_INVALID_BINARY"},
      {-43, "CL_INVALID_BUILD_OPTIONS"},
      {-44, "CL_INVALID_PROGRAM"},
      {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
      {-46, "CL_INVALID_KERNEL_NAME"},
      {-48, "CL_INVALID_KERNEL"},
      {-49, "CL_INVALID_ARG_INDEX"},
      {-50, "CL_INVALID_ARG_VALUE"},
      {-51, "CL_INVALID_ARG_SIZE"},
      {-52, "CL_INVALID_KERNEL_ARGS"},
      {-53, "CL_INVALID_WORK_DIMENSION"},
      {-54, "CL_INVALID_WORK_GROUP_SIZE"},
      {-55, "CL_INVALID_WORK_ITEM_SIZE"},
      {-56, "CL_INVALID_GLOBAL_OFFSET"},
      {-58, "CL_INVALID_EVENT"},
      {-59, "CL_INVALID_OPERATION"},
      {-61, "CL_INVALID_BUFFER_SIZE"},
      {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
      {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
  };
  auto it = names.find(code);
  return it != names.end() ? std::string(it->second) + " (" + std::to_string(code) + ")"
                           : "OpenCL error " + std::to_string(code);
}

}  // namespace bovw
