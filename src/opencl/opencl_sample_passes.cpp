// k-means' passes on an OpenCL device (src/vocabulary/sample_passes.hpp). The sample goes to the
// device once per training and stays there: seeding runs one kernels/kmeans_seeding.cl launch per
// chosen word (uploaded: on several ranks it may come from another rank), reading back only the
// block sums and the one block the draw lands in; Lloyd's
// assignments run the histogrammer's search on the resident rows.
#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "opencl/resident_histograms.hpp"
#include "vocabulary/sample_passes.hpp"

#include <algorithm>
#include <stdexcept>
#include <cstdint>
#include <string>

namespace bovw::detail {

namespace {

bool hasFloat64(const cl::Device& device) {
  return device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_khr_fp64") != std::string::npos;
}

class OpenCLSamplePasses final : public SamplePasses {
 public:
  OpenCLSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment, double seed_weight_scale)
      : device_(assignment.device),
        scale_(seed_weight_scale),
        histogrammer_(makeHistogrammer(assignment)),  // validates the configuration
        resident_(residentHistogramsOf(*histogrammer_)),
        n_(static_cast<int>(sample.rows())),
        d_(static_cast<int>(sample.cols())),
        blocks_((n_ + kSeedBlock - 1) / kSeedBlock),
        block_sums_(static_cast<std::size_t>(blocks_)) {
    if (resident_ == nullptr) throw std::logic_error("k-means on the device needs an OpenCL histogrammer");
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(n_) * d_;
    if (sample.outerStride() == d_) {
      rows_ = cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                         const_cast<float*>(sample.data()));
    } else {
      const Descriptors contiguous = sample;
      rows_ = cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes,
                         const_cast<float*>(contiguous.data()));
    }
  }

  const std::vector<std::int64_t>& addSeed(const float* word) override {
    const bool first = !nearest_();
    if (first) startSeeding();
    auto& queue = device_.queue();
    queue.enqueueWriteBuffer(word_, CL_TRUE, 0, sizeof(float) * static_cast<std::size_t>(d_), word);
    seed_.setArg(0, rows_);
    seed_.setArg(1, cl_int{n_});
    seed_.setArg(2, word_);
    seed_.setArg(3, cl_int{first ? 1 : 0});
    seed_.setArg(4, nearest_);
    seed_.setArg(5, sums_);
    seed_.setArg(6, cl_double{scale_});
    queue.enqueueNDRangeKernel(seed_, cl::NullRange, cl::NDRange(static_cast<std::size_t>(blocks_) * kSeedGroup),
                               cl::NDRange(kSeedGroup));
    queue.enqueueReadBuffer(sums_, CL_TRUE, 0, sizeof(cl_long) * block_sums_.size(), block_sums_.data());
    return block_sums_;
  }

  std::vector<float> blockNearest(std::int64_t block) override {
    const int first = static_cast<int>(block) * kSeedBlock;
    std::vector<float> values(static_cast<std::size_t>(std::min(kSeedBlock, n_ - first)));
    device_.queue().enqueueReadBuffer(nearest_, CL_TRUE, sizeof(float) * first, sizeof(float) * values.size(),
                                      values.data());
    return values;
  }

  void endSeeding() override {
    nearest_ = cl::Buffer();
    sums_ = cl::Buffer();
    word_ = cl::Buffer();
  }

  std::vector<std::int32_t> assign(const Vocabulary& words) override {
    std::vector<std::int32_t> out(static_cast<std::size_t>(n_));
    resident_->assign(rows_, n_, d_, words, out.data());
    return out;
  }

  std::string description() const override { return histogrammer_->description() + " (sample resident)"; }

 private:
  // The seeding kernel and its buffers, made on the first seed.
  void startSeeding() {
    seed_ = device_.programs().kernel("kmeans_seeding", "seed_distances",
                                      "-cl-std=CL1.2 -DBOVW_D=" + std::to_string(d_) + " -DBOVW_SEED_GROUP=" +
                                          std::to_string(kSeedGroup) + " -DBOVW_SEED_ROWS=" +
                                          std::to_string(kSeedRowsPerItem));
    nearest_ = cl::Buffer(device_.context(), CL_MEM_READ_WRITE, sizeof(float) * static_cast<std::size_t>(n_));
    sums_ = cl::Buffer(device_.context(), CL_MEM_READ_WRITE, sizeof(cl_long) * block_sums_.size());
    word_ = cl::Buffer(device_.context(), CL_MEM_READ_ONLY, sizeof(float) * static_cast<std::size_t>(d_));
  }

  DeviceContext device_;
  double scale_;
  std::unique_ptr<Histogrammer> histogrammer_;
  ResidentHistograms* resident_;  // histogrammer_'s device seam (an OpenCL one: never null)
  int n_;
  int d_;
  int blocks_;
  cl::Buffer rows_;
  cl::Buffer nearest_, sums_, word_;
  cl::Kernel seed_;
  std::vector<std::int64_t> block_sums_;
};

// What a training run may need on the device, at most: the resident sample; the search's words (K <= n
// rows), its transposed copy of the rows (chapter variants) and its per-row buffers; the seeding
// distances: 3 x the sample + 16 bytes per row.
std::uint64_t residentBytes(DescriptorsRef sample) {
  const auto rows = static_cast<std::uint64_t>(sample.rows());
  return 3 * sizeof(float) * rows * static_cast<std::uint64_t>(sample.cols()) + 16 * rows;
}

bool fitsOnDevice(DescriptorsRef sample, const HistogrammerConfig& assignment, const DeviceInfo& info) {
  const std::uint64_t bytes = sizeof(float) * static_cast<std::uint64_t>(sample.rows()) * sample.cols();
  const std::uint64_t limit = assignment.device_memory_limit ? assignment.device_memory_limit : info.global_memory;
  const bool indexable = static_cast<std::uint64_t>(sample.rows()) < static_cast<std::uint64_t>(INT32_MAX);
  return indexable && bytes <= info.max_allocation && residentBytes(sample) <= limit;
}

}  // namespace

std::unique_ptr<SamplePasses> makeOpenCLSamplePasses(DescriptorsRef sample, const HistogrammerConfig& assignment,
                                                     double seed_weight_scale) {
  if (sample.rows() == 0) return nullptr;
  return withOpenCLErrors([&]() -> std::unique_ptr<SamplePasses> {
    const DeviceHandle device = findDevice(assignment.device);
    if (!hasFloat64(device.device) || !fitsOnDevice(sample, assignment, device.info)) return nullptr;
    return std::make_unique<OpenCLSamplePasses>(sample, assignment, seed_weight_scale);
  });
}

}  // namespace bovw::detail
