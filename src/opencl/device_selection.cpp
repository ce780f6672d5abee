// Device listing and selection by spec: "P:D", "gpu"/"cpu"/"accelerator", or a name substring.
#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <regex>

namespace bovw {

namespace {

std::string typeName(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

DeviceInfo describe(const cl::Platform& platform, const cl::Device& device, int p, int d) {
  DeviceInfo info;
  info.platform_index = p;
  info.device_index = d;
  info.platform = platform.getInfo<CL_PLATFORM_NAME>();
  info.name = device.getInfo<CL_DEVICE_NAME>();
  info.vendor = device.getInfo<CL_DEVICE_VENDOR>();
  info.type = typeName(device.getInfo<CL_DEVICE_TYPE>());
  info.version = device.getInfo<CL_DEVICE_VERSION>();
  info.c_version = device.getInfo<CL_DEVICE_OPENCL_C_VERSION>();
  info.driver_version = device.getInfo<CL_DRIVER_VERSION>();
  info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  info.global_memory = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  info.max_allocation = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  info.local_memory = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  info.constant_memory = device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>();
  info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  return info;
}

std::vector<detail::DeviceHandle> allDevices() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error&) {
    return {};  // no ICD installed: CL_PLATFORM_NOT_FOUND_KHR
  }
  std::vector<detail::DeviceHandle> handles;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // a platform without devices
    }
    for (std::size_t d = 0; d < devices.size(); ++d)
      handles.push_back({devices[d], describe(platforms[p], devices[d], static_cast<int>(p),
                                              static_cast<int>(d))});
  }
  return handles;
}

bool matches(const DeviceInfo& info, const std::string& spec) {
  static const std::regex indices(R"((\d+):(\d+))");
  std::smatch m;
  if (std::regex_match(spec, m, indices))
    return std::stoi(m[1]) == info.platform_index && std::stoi(m[2]) == info.device_index;
  const std::string wanted = lower(spec);
  if (wanted == "gpu" || wanted == "cpu" || wanted == "accelerator") return lower(info.type) == wanted;
  return lower(info.name).find(wanted) != std::string::npos ||
         lower(info.platform).find(wanted) != std::string::npos;
}

std::string availableList(const std::vector<detail::DeviceHandle>& handles) {
  if (handles.empty()) return "no OpenCL platform is installed (on Debian: apt install pocl-opencl-icd)";
  std::string list = "available:";
  for (const auto& h : handles)
    list += std::string(list.back() == ':' ? " [" : ", [") + std::to_string(h.info.platform_index) + ":" +
            std::to_string(h.info.device_index) + "] " + h.info.name + " (" + h.info.type + ")";
  return list;
}

}  // namespace

namespace detail {

std::string effectiveSpec(const std::string& spec) {
  if (!spec.empty()) return spec;
  const char* env = std::getenv("BOVW_DEVICE");
  return env ? env : "";
}

std::vector<int> matchingDevices(const std::vector<DeviceInfo>& devices, const std::string& effective) {
  std::vector<int> found;
  if (effective.empty()) {
    for (const char* type : {"GPU", "CPU"}) {
      for (std::size_t i = 0; i < devices.size(); ++i)
        if (devices[i].type == type) found.push_back(static_cast<int>(i));
      if (!found.empty()) return type == std::string("GPU") ? found : std::vector<int>{found.front()};
    }
    return found;
  }
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (matches(devices[i], effective)) found.push_back(static_cast<int>(i));
  return found;
}

int pickDevice(const std::vector<DeviceInfo>& devices, const std::string& spec) {
  const std::vector<int> found = matchingDevices(devices, effectiveSpec(spec));
  return found.empty() ? -1 : found.front();
}

DeviceHandle findDevice(const std::string& spec) {
  const auto handles = withOpenCLErrors(allDevices);
  std::vector<DeviceInfo> infos;
  for (const auto& h : handles) infos.push_back(h.info);
  const int picked = pickDevice(infos, spec);
  if (picked >= 0) return handles[static_cast<std::size_t>(picked)];
  const std::string effective = effectiveSpec(spec);
  if (effective.empty()) throw InvalidInput("no OpenCL GPU or CPU device found; " + availableList(handles));
  const std::string origin = spec.empty() ? "BOVW_DEVICE" : "device";
  throw InvalidInput(origin + " '" + effective + "' matches no OpenCL device; " + availableList(handles));
}

}  // namespace detail

std::vector<DeviceInfo> listDevices() {
  std::vector<DeviceInfo> infos;
  for (const auto& h : detail::withOpenCLErrors(allDevices)) infos.push_back(h.info);
  return infos;
}

DeviceInfo selectDevice(const std::string& spec) { return detail::findDevice(spec).info; }

}  // namespace bovw
