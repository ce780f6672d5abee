// OpenCLHistogrammer: one host path for all five variants. Per call: upload descriptors and
// offsets, transpose if the variant reads D x N, run the histogram kernel once per vocabulary
// chunk (one chunk unless the centroids live in a too-small constant buffer), read back.
// The vocabulary stays on the device until a different one is used.
#include "opencl/opencl_histogrammer.hpp"

#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "opencl/kernel_variants.hpp"
#include "opencl/program_cache.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace bovw::detail {

namespace {

std::size_t roundUp(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

std::string megabytes(std::uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

// A device buffer that only grows, so repeated calls of similar size allocate nothing.
struct GrowingBuffer {
  cl::Buffer buffer;
  std::size_t bytes = 0;
};

struct VocabularyChunk {
  cl::Buffer words;
  int begin;
  int count;
};

class OpenCLHistogrammer final : public Histogrammer {
 public:
  explicit OpenCLHistogrammer(const HistogrammerConfig& config)
      : device_(config.device),
        programs_(device_.context(), device_.device()),
        variant_(config.variant),
        traits_(traitsOf(config.variant)),
        work_group_size_(config.work_group_size),
        extra_options_(config.build_options),
        memory_limit_(config.device_memory_limit ? config.device_memory_limit
                                                 : device_.info().global_memory) {
    const auto& info = device_.info();
    if (static_cast<std::size_t>(work_group_size_) > info.max_work_group_size)
      throw CapacityError("work-group size " + std::to_string(work_group_size_) + " exceeds " +
                          info.name + "'s maximum of " + std::to_string(info.max_work_group_size));
  }

  std::string description() const override {
    return "opencl " + std::string(toString(variant_)) + " on " + device_.info().name +
           " (work-group " + std::to_string(work_group_size_) + ")";
  }

 protected:
  void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                   std::int32_t* assignments, Histograms& histograms, StageTimes& times) override {
    withOpenCLErrors([&] { run(batch, vocabulary, assignments, histograms, times); });
  }

 private:
  void run(const DescriptorBatch& batch, const Vocabulary& vocabulary, std::int32_t* assignments,
           Histograms& histograms, StageTimes& times) {
    const int d = vocabulary.dimension();
    const int n = static_cast<int>(batch.descriptors().rows());
    const int images = static_cast<int>(batch.imageCount());
    const int k_words = vocabulary.size();
    prepareKernels(d);
    reserveMemory(vocabulary, n, images);
    uploadVocabulary(vocabulary);

    // Device buffers need contiguous rows; a strided view is copied once here.
    const auto& view = batch.descriptors();
    Descriptors contiguous;
    const float* rows = view.data();
    if (view.outerStride() != view.cols()) {
      contiguous = view;
      rows = contiguous.data();
    }
    const std::vector<cl_int> offsets(batch.offsets().begin(), batch.offsets().end());

    auto& queue = device_.queue();
    const std::size_t descriptor_bytes = sizeof(float) * static_cast<std::size_t>(n) * d;
    const std::size_t histogram_bytes = sizeof(cl_int) * static_cast<std::size_t>(images) * k_words;
    cl::Buffer& x = ensure(descriptors_, descriptor_bytes, CL_MEM_READ_ONLY);
    cl::Buffer& off = ensure(offsets_, sizeof(cl_int) * offsets.size(), CL_MEM_READ_ONLY);
    cl::Buffer& hist = ensure(histograms_, histogram_bytes, CL_MEM_READ_WRITE);
    cl::Buffer& best_word = ensure(best_word_, sizeof(cl_int) * n, CL_MEM_READ_WRITE);
    cl::Buffer& best_dist = ensure(best_dist_, sizeof(float) * n, CL_MEM_READ_WRITE);

    // Blocking writes: the host memory (a local vector among it) must not be released while a
    // failed call leaves a copy pending. The queue is in order, so nothing overlaps them anyway.
    std::vector<cl::Event> upload(3);
    queue.enqueueWriteBuffer(x, CL_TRUE, 0, descriptor_bytes, rows, nullptr, &upload[0]);
    queue.enqueueWriteBuffer(off, CL_TRUE, 0, sizeof(cl_int) * offsets.size(), offsets.data(),
                             nullptr, &upload[1]);
    queue.enqueueFillBuffer(hist, cl_int{0}, 0, histogram_bytes, nullptr, &upload[2]);

    cl::Buffer input = x;
    cl::Event transpose_event;
    if (traits_.transposed) {
      cl::Buffer& xt = ensure(transposed_, descriptor_bytes, CL_MEM_READ_WRITE);
      transpose_.setArg(0, x);
      transpose_.setArg(1, xt);
      transpose_.setArg(2, n);
      transpose_.setArg(3, d);
      queue.enqueueNDRangeKernel(transpose_, cl::NullRange,
                                 cl::NDRange(roundUp(d, tile_), roundUp(n, tile_)),
                                 cl::NDRange(tile_, tile_), nullptr, &transpose_event);
      input = xt;
    }

    std::vector<cl::Event> kernel_events(chunks_.size());
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const VocabularyChunk& chunk = chunks_[c];
      const cl_int first = c == 0;
      const cl_int last = c + 1 == chunks_.size();
      // The order of BOVW_HISTOGRAM_PARAMS in kernels/common.h.
      histogram_.setArg(0, input);
      histogram_.setArg(1, chunk.words);
      histogram_.setArg(2, cl_int{n});
      histogram_.setArg(3, cl_int{chunk.begin});
      histogram_.setArg(4, cl_int{chunk.count});
      histogram_.setArg(5, cl_int{k_words});
      histogram_.setArg(6, first);
      histogram_.setArg(7, last);
      histogram_.setArg(8, best_dist);
      histogram_.setArg(9, best_word);
      histogram_.setArg(10, off);
      histogram_.setArg(11, cl_int{images});
      histogram_.setArg(12, hist);
      queue.enqueueNDRangeKernel(histogram_, cl::NullRange, cl::NDRange(roundUp(n, work_group_size_)),
                                 cl::NDRange(work_group_size_), nullptr, &kernel_events[c]);
    }

    std::vector<cl::Event> download(2);
    queue.enqueueReadBuffer(best_word, CL_FALSE, 0, sizeof(cl_int) * n, assignments, nullptr, &download[0]);
    // Blocking: when it returns, both reads (in order) are done and no copy into caller memory is pending.
    queue.enqueueReadBuffer(hist, CL_TRUE, 0, histogram_bytes, histograms.data(), nullptr, &download[1]);

    for (const auto& e : upload) times.upload_ms += elapsedMs(e);
    if (traits_.transposed) times.transpose_ms = elapsedMs(transpose_event);
    for (const auto& e : kernel_events) times.kernel_ms += elapsedMs(e);
    for (const auto& e : download) times.download_ms += elapsedMs(e);
  }

  // Builds (or fetches from the cache) the kernels for width d, after checking the device limits.
  void prepareKernels(int d) {
    if (d == kernels_width_) return;
    const auto& info = device_.info();
    const std::uint64_t local_bytes = sizeof(float) * static_cast<std::uint64_t>(work_group_size_) * d;
    if (traits_.local_descriptors && local_bytes > info.local_memory)
      throw CapacityError("variant '" + std::string(toString(variant_)) + "' needs work-group x D x 4 = " +
                          std::to_string(local_bytes) + " bytes of local memory; " + info.name + " has " +
                          std::to_string(info.local_memory) + ": use a smaller work-group size");
    if (traits_.constant_centroids && sizeof(float) * static_cast<std::uint64_t>(d) > info.constant_memory)
      throw CapacityError("one word of width " + std::to_string(d) + " does not fit " + info.name +
                          "'s constant buffer of " + std::to_string(info.constant_memory) + " bytes");
    tile_ = info.max_work_group_size >= 256 ? 16 : 8;
    const std::string options = "-cl-std=CL1.2 -DBOVW_D=" + std::to_string(d) +
                                " -DBOVW_WG=" + std::to_string(work_group_size_) + " " +
                                traits_.defines + " " + extra_options_;
    histogram_ = programs_.kernel(traits_.file, traits_.kernel, options);
    const auto limit = histogram_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_.device());
    if (static_cast<std::size_t>(work_group_size_) > limit)
      throw CapacityError("kernel '" + std::string(traits_.kernel) + "' can run at most " +
                          std::to_string(limit) + " work-items per group on " + info.name +
                          ", asked for " + std::to_string(work_group_size_));
    if (traits_.transposed)
      transpose_ = programs_.kernel("transpose", "transpose", "-DBOVW_TILE=" + std::to_string(tile_) +
                                                               " " + extra_options_);
    kernels_width_ = d;
  }

  // Checks the whole call's device memory against the limit before allocating anything.
  void reserveMemory(const Vocabulary& vocabulary, int n, int images) {
    const std::uint64_t descriptors = sizeof(float) * static_cast<std::uint64_t>(n) * vocabulary.dimension();
    const std::uint64_t words = sizeof(float) * static_cast<std::uint64_t>(vocabulary.centroids().size());
    const std::uint64_t bins = sizeof(cl_int) * static_cast<std::uint64_t>(images) * vocabulary.size();
    const std::uint64_t total = descriptors * (traits_.transposed ? 2 : 1) + words + bins +
                                (sizeof(float) + sizeof(cl_int)) * static_cast<std::uint64_t>(n) +
                                sizeof(cl_int) * (images + 1ull);
    const auto& info = device_.info();
    const std::uint64_t largest = std::max({descriptors, words, bins});
    if (total > memory_limit_ || largest > info.max_allocation)
      throw CapacityError("this call needs " + megabytes(total) + " of device memory (largest buffer " +
                          megabytes(largest) + "); " + info.name + " allows " + megabytes(memory_limit_) +
                          " in all and " + megabytes(info.max_allocation) +
                          " per buffer: split the batch into smaller ones");
  }

  void uploadVocabulary(const Vocabulary& vocabulary) {
    if (vocabulary.id() == vocabulary_id_) return;
    chunks_.clear();
    vocabulary_id_ = 0;
    const int k_words = vocabulary.size();
    const std::size_t word_bytes = sizeof(float) * vocabulary.dimension();
    int per_chunk = k_words;
    if (traits_.constant_centroids)
      per_chunk = static_cast<int>(std::min<std::uint64_t>(k_words, device_.info().constant_memory / word_bytes));
    for (int begin = 0; begin < k_words; begin += per_chunk) {
      const int count = std::min(per_chunk, k_words - begin);
      auto* words = const_cast<float*>(vocabulary.centroids().row(begin).data());
      chunks_.push_back({cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    word_bytes * count, words),
                         begin, count});
    }
    vocabulary_id_ = vocabulary.id();
  }

  cl::Buffer& ensure(GrowingBuffer& b, std::size_t bytes, cl_mem_flags flags) {
    if (b.bytes < bytes) {
      b.buffer = cl::Buffer(device_.context(), flags, bytes);
      b.bytes = bytes;
    }
    return b.buffer;
  }

  DeviceContext device_;
  ProgramCache programs_;
  KernelVariant variant_;
  VariantTraits traits_;
  int work_group_size_;
  std::string extra_options_;
  std::uint64_t memory_limit_;

  int kernels_width_ = -1;
  int tile_ = 16;
  cl::Kernel histogram_;
  cl::Kernel transpose_;

  std::uint64_t vocabulary_id_ = 0;
  std::vector<VocabularyChunk> chunks_;
  GrowingBuffer descriptors_, transposed_, offsets_, histograms_, best_word_, best_dist_;
};

}  // namespace

std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config) {
  return withOpenCLErrors([&] { return std::make_unique<OpenCLHistogrammer>(config); });
}

}  // namespace bovw::detail
