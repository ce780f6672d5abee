// OpenCLHistogrammer: the host side shared by every kernel variant. Per call: upload the descriptors
// and image offsets, let the variant's DeviceSearch find the nearest words and count them, read the
// assignments and histograms back. The search keeps the vocabulary on the device until a different
// one is used.
#include "opencl/opencl_histogrammer.hpp"

#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "opencl/device_search.hpp"
#include "opencl/program_cache.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace bovw::detail {

namespace {

std::string megabytes(std::uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

// Auto: the tiled kernel on GPUs, where it is the fastest (docs/PERFORMANCE.md); Float4 on other
// devices: on PoCL's CPU device its explicit vector arithmetic beats the tiled kernel.
HistogrammerConfig resolveAuto(HistogrammerConfig config, const DeviceInfo& info) {
  if (config.variant == KernelVariant::Auto)
    config.variant = info.type == "GPU" ? KernelVariant::Tiled : KernelVariant::Float4;
  return config;
}

class OpenCLHistogrammer final : public Histogrammer {
 public:
  explicit OpenCLHistogrammer(const HistogrammerConfig& asked)
      : device_(asked.device),
        programs_(device_.context(), device_.device()),
        config_(resolveAuto(asked, device_.info())),
        search_(config_.variant == KernelVariant::Tiled ? makeTiledSearch(device_, programs_, config_)
                                                        : makeChapterSearch(device_, programs_, config_)),
        memory_limit_(config_.device_memory_limit ? config_.device_memory_limit : device_.info().global_memory) {}

  std::string description() const override {
    return "opencl " + search_->describe() + " on " + device_.info().name;
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
    search_->prepare(d);
    reserveMemory(vocabulary, n, images);
    search_->setVocabulary(vocabulary);

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
    const auto& context = device_.context();
    const std::size_t descriptor_bytes = sizeof(float) * static_cast<std::size_t>(n) * d;
    const std::size_t histogram_bytes = sizeof(cl_int) * static_cast<std::size_t>(images) * k_words;
    DeviceBatch device_batch;
    device_batch.descriptors = descriptors_.ensure(context, descriptor_bytes, CL_MEM_READ_ONLY);
    device_batch.n = n;
    device_batch.d = d;
    device_batch.offsets = offsets_.ensure(context, sizeof(cl_int) * offsets.size(), CL_MEM_READ_ONLY);
    device_batch.images = images;
    device_batch.best_word = best_word_.ensure(context, sizeof(cl_int) * n, CL_MEM_READ_WRITE);
    device_batch.histograms = histograms_.ensure(context, histogram_bytes, CL_MEM_READ_WRITE);

    // Blocking writes: the host memory (a local vector among it) must not be released while a
    // failed call leaves a copy pending. The queue is in order, so nothing overlaps them anyway.
    std::vector<cl::Event> upload(3);
    queue.enqueueWriteBuffer(device_batch.descriptors, CL_TRUE, 0, descriptor_bytes, rows, nullptr, &upload[0]);
    queue.enqueueWriteBuffer(device_batch.offsets, CL_TRUE, 0, sizeof(cl_int) * offsets.size(), offsets.data(),
                             nullptr, &upload[1]);
    queue.enqueueFillBuffer(device_batch.histograms, cl_int{0}, 0, histogram_bytes, nullptr, &upload[2]);

    SearchEvents events;
    search_->enqueue(queue, device_batch, events);

    std::vector<cl::Event> download(2);
    queue.enqueueReadBuffer(device_batch.best_word, CL_FALSE, 0, sizeof(cl_int) * n, assignments, nullptr,
                            &download[0]);
    // Blocking: when it returns, both reads (in order) are done and no copy into caller memory is pending.
    queue.enqueueReadBuffer(device_batch.histograms, CL_TRUE, 0, histogram_bytes, histograms.data(), nullptr,
                            &download[1]);

    for (const auto& e : upload) times.upload_ms += elapsedMs(e);
    for (const auto& e : events.transpose) times.transpose_ms += elapsedMs(e);
    for (const auto& e : events.kernels) times.kernel_ms += elapsedMs(e);
    for (const auto& e : events.recheck) times.recheck_ms += elapsedMs(e);
    times.kernel_ms += times.recheck_ms;
    for (const auto& e : download) times.download_ms += elapsedMs(e);
    times.rechecked_rows = search_->rechecked();
  }

  // Checks the whole call's device memory against the limit before allocating anything.
  void reserveMemory(const Vocabulary& vocabulary, int n, int images) {
    const int d = vocabulary.dimension();
    const std::uint64_t descriptors = sizeof(float) * static_cast<std::uint64_t>(n) * d;
    const std::uint64_t words = sizeof(float) * static_cast<std::uint64_t>(vocabulary.centroids().size());
    const std::uint64_t bins = sizeof(cl_int) * static_cast<std::uint64_t>(images) * vocabulary.size();
    const std::uint64_t total = descriptors + bins + sizeof(cl_int) * static_cast<std::uint64_t>(n) +
                                sizeof(cl_int) * (images + 1ull) + search_->extraBytes(n, d, vocabulary);
    const auto& info = device_.info();
    const std::uint64_t largest = std::max({descriptors, words, bins});
    if (total > memory_limit_ || largest > info.max_allocation)
      throw CapacityError("this call needs " + megabytes(total) + " of device memory (largest buffer " +
                          megabytes(largest) + "); " + info.name + " allows " + megabytes(memory_limit_) +
                          " in all and " + megabytes(info.max_allocation) +
                          " per buffer: split the batch into smaller ones");
  }

  DeviceContext device_;
  ProgramCache programs_;
  HistogrammerConfig config_;
  std::unique_ptr<DeviceSearch> search_;
  std::uint64_t memory_limit_;
  GrowingBuffer descriptors_, offsets_, histograms_, best_word_;
};

}  // namespace

std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config) {
  return withOpenCLErrors([&] { return std::make_unique<OpenCLHistogrammer>(config); });
}

}  // namespace bovw::detail
