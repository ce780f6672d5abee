// tf32_under_cuda: runs the PTX that NVIDIA's OpenCL made of kernels/tiled_tensor.cl through CUDA's
// driver API, with the buffers and arguments that src/opencl/tensor_core_search.cpp gives it, so that
// Nsight Compute, which does not see OpenCL kernels, can profile the same machine code (issue 24:
// stall reasons, occupancy, bytes). Not part of the build: it needs the CUDA toolkit and driver, so
// it is compiled on the GPU machine (bench/profiling/tf32_ncu.sh, which compares its kernel time
// with bovw-bench's before ncu's figures are read).
//
// Usage: tf32_under_cuda PTX N K [REPEATS]    (the PTX's build options fix D, the tiles and warps;
//        N random descriptors and K random words, uniform in [0, 1), as bovw-bench draws them)
// Occupancy experiments, which OpenCL cannot make: BOVW_MAX_REGISTERS=R compiles the PTX with at
// most R registers a thread (CU_JIT_MAX_REGISTERS), BOVW_CARVEOUT=P asks for P% of the SM's unified
// memory as shared memory (100: the most). It prints the registers and the groups an SM holds.
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* text = nullptr;
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "tf32_under_cuda: %s: %s\n", what, text ? text : "unknown error");
  std::exit(1);
}

// A -DNAME=VALUE of the PTX's build options (its .options file beside it), else `otherwise`.
int option(const std::string& options, const std::string& name, int otherwise) {
  const auto at = options.find("-D" + name + "=");
  return at == std::string::npos ? otherwise : std::atoi(options.c_str() + at + name.size() + 3);
}

// cvt.rna.tf32.f32 for finite values: round the magnitude to 10 mantissa bits, ties away from zero.
float roundToTf32(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = (bits + 0x1000u) & 0xffffe000u;
  std::memcpy(&value, &bits, 4);
  return value;
}

// An FP16 value's bits, rounded to nearest, ties to even, with FP16's subnormals and infinity past
// 65504, as Eigen's conversion on the host rounds (finite inputs).
std::uint16_t fp16Bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const float magnitude = std::fabs(value);
  if (!(magnitude < 65520.0f)) return sign | 0x7c00u;
  if (magnitude < 0x1.0p-14f) return sign | static_cast<std::uint16_t>(std::lrint(magnitude * 0x1.0p24f));
  std::memcpy(&bits, &magnitude, 4);
  bits += 0x0fffu + ((bits >> 13) & 1u);
  return sign | static_cast<std::uint16_t>((bits >> 13) - (112u << 10));
}

float fp16Value(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                        : std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
  return bits & 0x8000u ? -magnitude : magnitude;
}

CUdeviceptr upload(const void* data, std::size_t bytes) {
  CUdeviceptr pointer;
  check(cuMemAlloc(&pointer, bytes), "cuMemAlloc");
  if (data) check(cuMemcpyHtoD(pointer, data, bytes), "cuMemcpyHtoD");
  else check(cuMemsetD8(pointer, 0, bytes), "cuMemsetD8");
  return pointer;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: tf32_under_cuda PTX N K [REPEATS]\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  std::string ptx = text.str();
  ptx.erase(std::find(ptx.begin(), ptx.end(), '\0'), ptx.end());  // NVIDIA's binary ends in a NUL
  // NVIDIA's OpenCL computes get_group_id as %ctaid plus a group offset that its runtime keeps in
  // %envreg0 (for a range it launches in parts). A CUDA launch leaves that register undefined: the
  // first run read garbage there and stopped on "an illegal memory access". One launch covers the
  // whole range here, so the offset is 0.
  for (std::size_t at; (at = ptx.find("%envreg0")) != std::string::npos;) ptx.replace(at, 8, "0");
  if (ptx.find("%envreg") != std::string::npos) {
    std::fprintf(stderr, "tf32_under_cuda: the PTX reads another %%envreg register; see which, and set it\n");
    return 1;
  }
  std::ifstream options_file(std::string(argv[1]) + ".options");
  std::string options((std::istreambuf_iterator<char>(options_file)), std::istreambuf_iterator<char>());
  const int n = std::atoi(argv[2]), k = std::atoi(argv[3]), repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  const int d = option(options, "BOVW_D", 64), mt = option(options, "BOVW_MT", 2), warps = option(options, "BOVW_WARPS", 4);
  const bool f16 = option(options, "BOVW_F16", 0) == 1;  // tiled-fp16: FP16 pairs, 16 features a k-step
  const int block_words = 1024;  // the host's block: 128 n-tiles of 8 words
  const int pair = f16 ? 2 : 1, k_padded = (k + block_words - 1) / block_words * block_words,
            steps = (d + 8 * pair - 1) / (8 * pair);
  const int rows_per_group = 16 * mt * warps, threads = 32 * warps;
  auto rounded = [&](float v) { return f16 ? fp16Value(fp16Bits(v)) : roundToTf32(v); };

  std::mt19937_64 rng(1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(n) * d), c(static_cast<std::size_t>(k) * d);
  for (float& v : x) v = uniform(rng);
  for (float& v : c) v = uniform(rng);

  // The host side's layouts (tensor_core_search.cpp, exact_recheck.cpp): B fragments of n-tile,
  // k-step, lane, two 32-bit registers (TF32 features t and t + 4 of word g; FP16 pairs {2t, 2t + 1}
  // and {2t + 8, 2t + 9}, the lower feature in the low half).
  std::vector<std::uint32_t> fragments(static_cast<std::size_t>(k_padded / 8) * steps * 64, 0u);
  for (int tile = 0; tile < k_padded / 8; ++tile)
    for (int step = 0; step < steps; ++step)
      for (int lane = 0; lane < 32; ++lane) {
        const int word = tile * 8 + lane / 4;
        std::uint32_t* out = &fragments[((static_cast<std::size_t>(tile) * steps + step) * 32 + lane) * 2];
        for (int reg = 0; reg < 2; ++reg)
          for (int e = 0; e < pair; ++e) {
            const int feature = step * 8 * pair + pair * (lane % 4) + 4 * pair * reg + e;
            const float value = word < k && feature < d ? c[static_cast<std::size_t>(word) * d + feature] : 0.0f;
            if (f16) {
              out[reg] |= static_cast<std::uint32_t>(fp16Bits(value)) << (16 * e);
            } else {
              const float tf32 = roundToTf32(value);
              std::memcpy(&out[reg], &tf32, 4);
            }
          }
      }
  std::vector<float> starts(k_padded, -0x1.0p125f), norms(k_padded, INFINITY);
  double rho = 0, max_norm = 0;
  for (int j = 0; j < k; ++j) {
    double norm = 0, rounding = 0;
    for (int f = 0; f < d; ++f) {
      const float v = c[static_cast<std::size_t>(j) * d + f];
      norm += static_cast<double>(v) * v;
      rounding += std::pow(static_cast<double>(rounded(v)) - v, 2);
    }
    starts[j] = static_cast<float>(-0.5 * norm);
    norms[j] = static_cast<float>(norm);
    rho = std::max(rho, std::sqrt(rounding / norm));
    max_norm = std::max(max_norm, std::sqrt(norm));
  }
  const float rho_f = static_cast<float>(rho * (1 + 1e-6)), max_norm_f = static_cast<float>(max_norm);
  int index_bits = 1;
  while ((1 << index_bits) < std::min(k_padded / 4, 256)) ++index_bits;
  const int images = 1, row_base = 0;
  const std::vector<int> offsets = {0, n};

  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module;
  const char* max_registers = std::getenv("BOVW_MAX_REGISTERS");
  const char* carveout = std::getenv("BOVW_CARVEOUT");
  const auto register_cap = static_cast<std::uintptr_t>(max_registers ? std::atoi(max_registers) : 0);
  CUjit_option jit_options[] = {CU_JIT_MAX_REGISTERS};
  void* jit_values[] = {reinterpret_cast<void*>(register_cap)};
  check(cuModuleLoadDataEx(&module, ptx.c_str(), max_registers ? 1 : 0, jit_options, jit_values),
        "cuModuleLoadDataEx (the PTX)");
  CUfunction kernel;
  check(cuModuleGetFunction(&kernel, module, "histogram_tiled_tensor"), "cuModuleGetFunction");
  if (carveout)
    check(cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, std::atoi(carveout)),
          "cuFuncSetAttribute (the carveout)");
  int registers = 0, groups_per_sm = 0;
  check(cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel), "cuFuncGetAttribute");
  check(cuOccupancyMaxActiveBlocksPerMultiprocessor(&groups_per_sm, kernel, threads, 0), "cuOccupancy");
  std::printf("%d registers a thread, %d groups an SM (BOVW_MAX_REGISTERS=%s, BOVW_CARVEOUT=%s)\n", registers,
              groups_per_sm, max_registers ? max_registers : "-", carveout ? carveout : "-");

  CUdeviceptr descriptors = upload(x.data(), 4 * x.size()), frag = upload(fragments.data(), 4 * fragments.size()),
              start = upload(starts.data(), 4 * starts.size()), rows = upload(c.data(), 4 * c.size()),
              nm = upload(norms.data(), 4 * norms.size()), off = upload(offsets.data(), 4 * offsets.size()),
              best = upload(nullptr, 4 * static_cast<std::size_t>(n)),
              hist = upload(nullptr, 4 * static_cast<std::size_t>(images) * k),
              flagged = upload(nullptr, 4 * static_cast<std::size_t>(n)),
              count = upload(nullptr, 8);  // flagged rows, then rows decided between their two best words
  // The kernel's parameters in order (kernels/tiled_tensor.cl), each from a variable of its own type.
  int n_arg = n, row_base_arg = row_base, k_arg = k, k_padded_arg = k_padded, index_bits_arg = index_bits,
      images_arg = images;
  float max_norm_arg = max_norm_f, rho_arg = rho_f;
  void* arguments[] = {&descriptors, &n_arg,  &row_base_arg,   &frag,   &start,      &rows,   &nm,
                       &k_arg,       &k_padded_arg, &max_norm_arg, &rho_arg, &index_bits_arg, &off, &images_arg,
                       &best,        &hist,   &flagged,        &count};
  const unsigned groups = static_cast<unsigned>((n + rows_per_group - 1) / rows_per_group);
  CUevent begin, end;
  check(cuEventCreate(&begin, 0), "cuEventCreate");
  check(cuEventCreate(&end, 0), "cuEventCreate");
  for (int r = 0; r < repeats; ++r) {
    check(cuMemsetD8(count, 0, 8), "cuMemsetD8");
    check(cuMemsetD8(hist, 0, 4 * static_cast<std::size_t>(images) * k), "cuMemsetD8");
    check(cuEventRecord(begin, nullptr), "cuEventRecord");
    check(cuLaunchKernel(kernel, groups, 1, 1, threads, 1, 1, 0, nullptr, arguments, nullptr), "cuLaunchKernel");
    check(cuEventRecord(end, nullptr), "cuEventRecord");
    check(cuEventSynchronize(end), "cuEventSynchronize");
    float ms = 0;
    check(cuEventElapsedTime(&ms, begin, end), "cuEventElapsedTime");
    int counts[2] = {0, 0};
    check(cuMemcpyDtoH(counts, count, 8), "cuMemcpyDtoH");
    std::printf("histogram_tiled_tensor %d x %d x %d: %.3f ms, %d rows flagged for the re-check, %d decided by two sums\n",
                n, k, d, ms, counts[0], counts[1]);
  }
  return 0;
}
