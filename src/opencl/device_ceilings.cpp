// Measures a device's FP32 (and on NVIDIA TF32 tensor-core), copy and host-to-device ceilings in the same process as the kernels they judge.
#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace bovw {

namespace {

constexpr int kChains = 8;       // independent FMA chains per work-item (kernels/peak_fma.cl)
constexpr double kMinMs = 20.0;  // grow the work until one launch takes at least this long
constexpr int kRepeats = 5;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// A microkernel whose argument 1 is its loop count: the count doubled until one launch takes
// kMinMs, then the median of kRepeats launches. Returns the count and that median.
std::pair<int, double> timeMicrokernel(detail::DeviceContext& device, cl::Kernel& kernel, const cl::NDRange& global,
                                       const cl::NDRange& local) {
  auto launch = [&](int iterations) {
    kernel.setArg(1, iterations);
    cl::Event event;
    device.queue().enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
    event.wait();
    return detail::elapsedMs(event);
  };
  int iterations = 64;
  while (launch(iterations) < kMinMs && iterations < (1 << 24)) iterations *= 2;
  std::vector<double> ms;
  for (int r = 0; r < kRepeats; ++r) ms.push_back(launch(iterations));
  return {iterations, median(ms)};
}

double fp32Gflops(detail::DeviceContext& device) {
  cl::Kernel kernel = device.programs().kernel("peak_fma", "peak_fma", "-DBOVW_FMA_CHAINS=" + std::to_string(kChains));
  const std::size_t items = std::size_t{device.info().compute_units} * 2048;
  cl::Buffer out(device.context(), CL_MEM_WRITE_ONLY, sizeof(float) * items);
  kernel.setArg(0, out);
  kernel.setArg(2, 0.999f);
  kernel.setArg(3, 0.001f);
  const auto [iterations, ms] = timeMicrokernel(device, kernel, cl::NDRange(items), cl::NullRange);
  const double flops = 2.0 * kChains * static_cast<double>(items) * iterations;
  return flops / (ms * 1e-3) * 1e-9;
}

// Tensor cores through mma.sync (inline PTX: NVIDIA only), TF32 or FP16 operands. Work-groups of 4
// warps, 8 per compute unit, so every SM sub-partition has warps to switch between.
double mmaGflops(detail::DeviceContext& device, bool fp16) {
  constexpr int kMmaChains = 8;
  cl::Kernel kernel = device.programs().kernel(
      "peak_mma", "peak_mma",
      "-DBOVW_MMA_CHAINS=" + std::to_string(kMmaChains) + " -DBOVW_MMA_F16=" + (fp16 ? "1" : "0"));
  const std::size_t group = 128;
  const std::size_t items = std::size_t{device.info().compute_units} * 8 * group;
  cl::Buffer out(device.context(), CL_MEM_WRITE_ONLY, sizeof(float) * items);
  kernel.setArg(0, out);
  kernel.setArg(2, 0.999f);
  const auto [iterations, ms] = timeMicrokernel(device, kernel, cl::NDRange(items), cl::NDRange(group));
  const double flops_per_mma = fp16 ? 4096.0 : 2048.0;  // per warp
  const double flops = flops_per_mma * kMmaChains * static_cast<double>(items / 32) * iterations;
  return flops / (ms * 1e-3) * 1e-9;
}

double copyGbPerS(detail::DeviceContext& device) {
  const std::size_t bytes = static_cast<std::size_t>(
      std::min<std::uint64_t>(256ull << 20, device.info().max_allocation / 2));
  cl::Buffer src(device.context(), CL_MEM_READ_WRITE, bytes);
  cl::Buffer dst(device.context(), CL_MEM_READ_WRITE, bytes);
  device.queue().enqueueFillBuffer(src, cl_float{1.0f}, 0, bytes);
  std::vector<double> ms;
  for (int r = 0; r < kRepeats + 1; ++r) {
    cl::Event event;
    device.queue().enqueueCopyBuffer(src, dst, 0, 0, bytes, nullptr, &event);
    event.wait();
    if (r > 0) ms.push_back(detail::elapsedMs(event));  // the first is a warm-up
  }
  return 2.0 * static_cast<double>(bytes) / (median(ms) * 1e-3) * 1e-9;
}

// Host to device, 256 MiB (or half the largest allocation) per copy, from a pinned buffer mapped
// into the host's address space or from ordinary memory: the bus, and what pageable memory costs.
double uploadGbPerS(detail::DeviceContext& device, bool pinned) {
  const std::size_t bytes = static_cast<std::size_t>(
      std::min<std::uint64_t>(256ull << 20, device.info().max_allocation / 2));
  auto& queue = device.queue();
  cl::Buffer dst(device.context(), CL_MEM_READ_WRITE, bytes);
  cl::Buffer host_buffer;
  std::vector<char> pageable;
  void* source = nullptr;
  if (pinned) {
    host_buffer = cl::Buffer(device.context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
    source = queue.enqueueMapBuffer(host_buffer, CL_TRUE, CL_MAP_WRITE, 0, bytes);
  } else {
    pageable.resize(bytes);
    source = pageable.data();
  }
  std::memset(source, 1, bytes);
  std::vector<double> ms;
  for (int r = 0; r < kRepeats + 1; ++r) {
    cl::Event event;
    queue.enqueueWriteBuffer(dst, CL_TRUE, 0, bytes, source, nullptr, &event);
    if (r > 0) ms.push_back(detail::elapsedMs(event));  // the first is a warm-up
  }
  if (pinned) {
    queue.enqueueUnmapMemObject(host_buffer, source);
    queue.finish();
  }
  return static_cast<double>(bytes) / (median(ms) * 1e-3) * 1e-9;
}

}  // namespace

DeviceCeilings measureDeviceCeilings(const std::string& spec) {
  detail::DeviceContext device(spec);
  return detail::withOpenCLErrors([&] {
    DeviceCeilings ceilings;
    ceilings.fp32_gflops = fp32Gflops(device);
    if (device.info().vendor.find("NVIDIA") != std::string::npos) {
      ceilings.tf32_gflops = mmaGflops(device, false);
      ceilings.fp16_gflops = mmaGflops(device, true);
    }
    ceilings.copy_gb_per_s = copyGbPerS(device);
    ceilings.pinned_upload_gb_per_s = uploadGbPerS(device, true);
    ceilings.pageable_upload_gb_per_s = uploadGbPerS(device, false);
    return ceilings;
  });
}

}  // namespace bovw
