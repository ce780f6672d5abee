// OpenCLHistogrammer: the host side shared by every kernel variant. The descriptors go to the
// device in chunks, two device buffers in turn, on an upload queue of their own: while the variant's
// DeviceSearch runs chunk c on the compute queue, the upload queue sends chunk c+1 and a third queue
// reads back the assignments of chunk c-1 (uploads and read-backs use separate copy engines, and the
// read-backs into the caller's ordinary memory, slower than the uploads, never hold an upload back).
// Each chunk is uploaded straight from the caller's memory when that is pinned memory of this device
// (PinnedDescriptors), else through one of two pinned (page-locked) staging buffers that the host
// fills first. Events order the queues; the histograms accumulate on the device and come back once.
// All buffers stay for the next call, and the search keeps the vocabulary on the device until a
// different one is used. Rows already on the device come through the device seam (ResidentHistograms:
// k-means' sample, SURF's descriptors on this histogrammer's queue).
#include "opencl/opencl_histogrammer.hpp"

#include "opencl/cl_errors.hpp"
#include "opencl/device_context.hpp"
#include "opencl/device_search.hpp"
#include "opencl/device_tuning.hpp"
#include "opencl/resident_histograms.hpp"

#include <bovw/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace bovw::detail {

namespace {

std::string megabytes(std::uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MiB";
}

// Rows per chunk: the caller's, else about 64 MiB of descriptors: a 4 GiB batch flows through 64
// chunks, so the one upload and the one search that cannot overlap are short, and the pinned staging
// a process allocates on its first call stays small (256 MiB chunks made a one-call `bovw histogram`
// of 4 GiB twice as slow on the H100 machine: docs/PERFORMANCE.md).
int chunkRows(std::int64_t asked, int n, int d) {
  const std::int64_t automatic = std::max<std::int64_t>(1, (std::int64_t{64} << 20) / (sizeof(float) * d));
  return static_cast<int>(std::clamp<std::int64_t>(asked > 0 ? asked : automatic, 1, std::max(n, 1)));
}

// Rows [first, first + count) of `view` into contiguous pinned `out`, on all cores: the host side of
// the transfer must keep up with the bus (it does not on the H100 machine, hence PinnedDescriptors:
// docs/PERFORMANCE.md, "Transfers").
void copyRows(const DescriptorsRef& view, std::int64_t first, std::int64_t count, float* out) {
  const std::int64_t d = view.cols();
  if (view.outerStride() == d) {
    const float* from = view.data() + first * d;
    const std::int64_t total = count * d;
    const std::int64_t block = std::int64_t{1} << 18;  // 1 MiB of floats per task
#pragma omp parallel for schedule(static)
    for (std::int64_t at = 0; at < total; at += block)
      std::memcpy(out + at, from + at, sizeof(float) * std::min(block, total - at));
    return;
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < count; ++r)
    std::memcpy(out + r * d, view.row(first + r).data(), sizeof(float) * d);
}

// One of the two chunk slots: pinned staging on the host, descriptors and assignments on the
// device, and the events that say when each may be reused.
struct ChunkSlot {
  cl::Buffer pinned;
  float* staging = nullptr;  // `pinned`, mapped for the slot's lifetime; allocated on first use
  std::size_t capacity = 0;  // bytes of staging
  std::size_t chunk_bytes = 0;  // the current call's full chunk of descriptors
  cl::Buffer descriptors;
  cl::Buffer best_word;
  cl::Event uploaded;    // staging may be refilled
  cl::Event searched;    // `descriptors` and `best_word` are free for the next chunk's search
  cl::Event downloaded;  // `best_word` has reached the caller
};

HistogrammerConfig withVariant(HistogrammerConfig config, KernelVariant variant) {
  config.variant = variant;
  return config;
}

std::unique_ptr<DeviceSearch> makeSearch(DeviceContext& device, const HistogrammerConfig& config) {
  switch (config.variant) {
    case KernelVariant::Tiled:
      return makeTiledSearch(device, config);
    case KernelVariant::TiledTF32:
    case KernelVariant::TiledFP16:
      return makeTensorCoreSearch(device, config);
    default:
      return makeChapterSearch(device, config);
  }
}

class OpenCLHistogrammer final : public Histogrammer, public ResidentHistograms {
 public:
  explicit OpenCLHistogrammer(const HistogrammerConfig& asked)
      : device_(asked.device),
        config_(tunedConfig(asked, device_.info())),
        search_(makeSearch(device_, config_)),
        fallback_(asked.variant == KernelVariant::Auto &&
                          (config_.variant == KernelVariant::TiledTF32 || config_.variant == KernelVariant::TiledFP16)
                      ? std::optional<HistogrammerConfig>(tunedConfig(withVariant(asked, KernelVariant::Tiled),
                                                                      device_.info()))
                      : std::nullopt),
        memory_limit_(config_.device_memory_limit ? config_.device_memory_limit : device_.info().global_memory),
        copy_queue_(device_.context(), device_.device(), CL_QUEUE_PROFILING_ENABLE),
        download_queue_(device_.context(), device_.device(), CL_QUEUE_PROFILING_ENABLE) {
    if (config_.transfer_rows < 0)
      throw InvalidInput("transfer rows " + std::to_string(config_.transfer_rows) + " must be >= 0 (0: automatic)");
  }

  ~OpenCLHistogrammer() override {
    try {
      for (ChunkSlot& slot : slots_)
        if (slot.staging) copy_queue_.enqueueUnmapMemObject(slot.pinned, slot.staging);
      copy_queue_.finish();
      download_queue_.finish();
    } catch (const cl::Error&) {  // nothing to do about a failure while tearing down
    }
  }

  std::string description() const override {
    return "opencl " + search_->describe() + " on " + device_.info().name;
  }

  DeviceContext& device() override { return device_; }

  std::vector<cl::Event> enqueueHistograms(const cl::Buffer& rows, int n, int d, const cl::Buffer& offsets,
                                           int images, const Vocabulary& words, const cl::Buffer& best_word,
                                           const cl::Buffer& histograms) override {
    return withOpenCLErrors([&] {
      prepareSearch(d);
      reserveMemory(words, n, images, 1);
      search_->setVocabulary(words);
      search_->startCall();
      auto& compute = device_.queue();
      compute.enqueueFillBuffer(histograms, cl_int{0}, 0, sizeof(cl_int) * static_cast<std::size_t>(images) * words.size());
      SearchEvents events;
      if (n > 0) search_->enqueue(compute, DeviceBatch{rows, n, d, 0, offsets, images, best_word, histograms}, events);
      std::vector<cl::Event> all = events.transpose;
      all.insert(all.end(), events.kernels.begin(), events.kernels.end());
      all.insert(all.end(), events.recheck.begin(), events.recheck.end());
      return all;
    });
  }

  // One batch of one image; only the assignments come back.
  void assign(const cl::Buffer& rows, int n, int d, const Vocabulary& words, std::int32_t* out) override {
    withOpenCLErrors([&] {
      const auto& context = device_.context();
      const cl_int offsets[2] = {0, n};
      cl::Buffer& offsets_buffer = offsets_.ensure(context, sizeof(offsets), CL_MEM_READ_ONLY);
      cl::Buffer& histograms_buffer =
          histograms_.ensure(context, sizeof(cl_int) * static_cast<std::size_t>(words.size()), CL_MEM_READ_WRITE);
      cl::Buffer& best_word = best_words_[0].ensure(context, sizeof(cl_int) * static_cast<std::size_t>(n),
                                                    CL_MEM_READ_WRITE);
      device_.queue().enqueueWriteBuffer(offsets_buffer, CL_TRUE, 0, sizeof(offsets), offsets);
      enqueueHistograms(rows, n, d, offsets_buffer, 1, words, best_word, histograms_buffer);
      device_.queue().enqueueReadBuffer(best_word, CL_TRUE, 0, sizeof(cl_int) * static_cast<std::size_t>(n), out);
    });
  }

 protected:
  void computeImpl(const DescriptorBatch& batch, const Vocabulary& vocabulary,
                   std::int32_t* assignments, Histograms& histograms, StageTimes& times) override {
    withOpenCLErrors([&] {
      try {
        run(batch, vocabulary, assignments, histograms, times);
      } catch (...) {
        // No copy from or into the caller's memory may still be pending when the error reaches it.
        // Each queue waits on the others' events, so all are flushed before any is waited for.
        flushAll();
        device_.queue().finish();
        copy_queue_.finish();
        download_queue_.finish();
        throw;
      }
    });
  }

 private:
  ResidentHistograms* resident() override { return this; }

  void run(const DescriptorBatch& batch, const Vocabulary& vocabulary, std::int32_t* assignments,
           Histograms& histograms, StageTimes& times) {
    const int d = vocabulary.dimension();
    const int n = static_cast<int>(batch.descriptors().rows());
    const int images = static_cast<int>(batch.imageCount());
    const int k_words = vocabulary.size();
    const int chunk = chunkRows(config_.transfer_rows, n, d);
    prepareSearch(d);
    reserveMemory(vocabulary, chunk, images, 2);
    search_->setVocabulary(vocabulary);
    search_->startCall();
    for (int i = 0; i < 2; ++i) prepareSlot(i, chunk, d);

    auto& compute = device_.queue();
    const auto& context = device_.context();
    const std::vector<cl_int> offsets(batch.offsets().begin(), batch.offsets().end());
    const std::size_t histogram_bytes = sizeof(cl_int) * static_cast<std::size_t>(images) * k_words;
    cl::Buffer& offsets_buffer = offsets_.ensure(context, sizeof(cl_int) * offsets.size(), CL_MEM_READ_ONLY);
    cl::Buffer& histograms_buffer = histograms_.ensure(context, histogram_bytes, CL_MEM_READ_WRITE);
    std::vector<cl::Event> upload(2), download(1), kernels;
    SearchEvents search_events;
    // Blocking: `offsets` is a local vector.
    compute.enqueueWriteBuffer(offsets_buffer, CL_TRUE, 0, sizeof(cl_int) * offsets.size(), offsets.data(),
                               nullptr, &upload[0]);
    compute.enqueueFillBuffer(histograms_buffer, cl_int{0}, 0, histogram_bytes, nullptr, &upload[1]);

    for (int first = 0, c = 0; first < n; first += chunk, ++c) {
      ChunkSlot& slot = slots_[c % 2];
      const int rows = std::min(chunk, n - first);
      const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(rows) * d;
      const float* source = uploadSource(batch.descriptors(), first, rows, slot, times);
      const std::vector<cl::Event> free_descriptors = waitList({slot.searched});
      copy_queue_.enqueueWriteBuffer(slot.descriptors, CL_FALSE, 0, bytes, source, &free_descriptors,
                                     &slot.uploaded);
      upload.push_back(slot.uploaded);

      const std::vector<cl::Event> ready = waitList({slot.uploaded, slot.downloaded});
      compute.enqueueMarkerWithWaitList(&ready);
      DeviceBatch device_batch{slot.descriptors, rows, d, first, offsets_buffer, images, slot.best_word,
                               histograms_buffer};
      search_->enqueue(compute, device_batch, search_events);
      compute.enqueueMarkerWithWaitList(nullptr, &slot.searched);

      const std::vector<cl::Event> searched = {slot.searched};
      download_queue_.enqueueReadBuffer(slot.best_word, CL_FALSE, 0, sizeof(cl_int) * rows, assignments + first,
                                        &searched, &slot.downloaded);
      download.push_back(slot.downloaded);
      // Submit every queue now: each waits on the others' events, which OpenCL only guarantees to
      // work once flushed, and nothing else in the loop blocks when no chunk goes through staging.
      flushAll();
    }
    // Blocking, and after every search on the in-order compute queue; then the last assignments.
    compute.enqueueReadBuffer(histograms_buffer, CL_TRUE, 0, histogram_bytes, histograms.data(), nullptr,
                              &download[0]);
    download_queue_.finish();
    copy_queue_.finish();

    for (const auto& e : upload) times.upload_ms += elapsedMs(e);
    for (const auto& e : search_events.transpose) times.transpose_ms += elapsedMs(e);
    for (const auto& e : search_events.kernels) times.kernel_ms += elapsedMs(e);
    for (const auto& e : search_events.recheck) times.recheck_ms += elapsedMs(e);
    times.kernel_ms += times.recheck_ms;
    for (const auto& e : download) times.download_ms += elapsedMs(e);
    times.rechecked_rows = search_->rechecked();
    times.fully_rechecked_rows = search_->fullyRechecked();
  }

  void flushAll() {
    copy_queue_.flush();
    device_.queue().flush();
    download_queue_.flush();
  }

  static std::vector<cl::Event> waitList(std::initializer_list<cl::Event> events) {
    std::vector<cl::Event> list;
    for (const cl::Event& e : events)
      if (e()) list.push_back(e);
    return list;
  }

  // Where chunk rows [first, first + rows) are uploaded from, the one place that decides: the
  // caller's memory itself when those rows are contiguous inside PinnedDescriptors of this device
  // (the bus reads them directly), else the slot's staging, filled here once its previous upload
  // has finished.
  const float* uploadSource(const DescriptorsRef& view, int first, int rows, ChunkSlot& slot, StageTimes& times) {
    const std::int64_t d = view.cols();
    const float* caller = view.data() + static_cast<std::int64_t>(first) * view.outerStride();
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(rows) * d;
    if ((view.outerStride() == d || rows == 1) && device_.pinnedRanges().contains(caller, bytes)) return caller;

    if (slot.uploaded()) slot.uploaded.wait();
    ensureStaging(slot);
    const auto start = std::chrono::steady_clock::now();
    copyRows(view, first, rows, slot.staging);
    times.staging_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    times.staged_rows += rows;
    return slot.staging;
  }

  // Sizes slot i's device buffers for chunks of `rows` rows of width d; the events of the previous
  // call are complete (each call ends with both queues drained).
  void prepareSlot(int i, int rows, int d) {
    ChunkSlot& slot = slots_[i];
    slot.uploaded = slot.searched = slot.downloaded = cl::Event();
    slot.chunk_bytes = sizeof(float) * static_cast<std::size_t>(rows) * d;
    slot.best_word = best_words_[i].ensure(device_.context(), sizeof(cl_int) * rows, CL_MEM_READ_WRITE);
    slot.descriptors = descriptors_[i].ensure(device_.context(), slot.chunk_bytes, CL_MEM_READ_ONLY);
  }

  // Grows a slot's pinned staging to the call's chunk size, on the first chunk that needs it: a call
  // whose descriptors are all in PinnedDescriptors allocates none. The slot's last upload has
  // finished; OpenCL keeps the old buffer until its unmap has run.
  void ensureStaging(ChunkSlot& slot) {
    const std::size_t bytes = slot.chunk_bytes;
    if (slot.capacity >= bytes) return;
    if (slot.staging) copy_queue_.enqueueUnmapMemObject(slot.pinned, slot.staging);
    slot.staging = nullptr;
    slot.capacity = 0;
    slot.pinned = cl::Buffer(device_.context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
    slot.staging = static_cast<float*>(
        copy_queue_.enqueueMapBuffer(slot.pinned, CL_TRUE, CL_MAP_WRITE, 0, bytes));
    slot.capacity = bytes;
  }

  // Checks the call's device memory against the limit before allocating anything: `copies` chunks of
  // descriptors and assignments (two while transfers overlap the search; one resident sample), the
  // histograms, the offsets, and what the search needs per chunk.
  void reserveMemory(const Vocabulary& vocabulary, int chunk, int images, int copies) {
    const int d = vocabulary.dimension();
    const std::uint64_t descriptors = sizeof(float) * static_cast<std::uint64_t>(chunk) * d;
    const std::uint64_t words = sizeof(float) * static_cast<std::uint64_t>(vocabulary.centroids().size());
    const std::uint64_t bins = sizeof(cl_int) * static_cast<std::uint64_t>(images) * vocabulary.size();
    const std::uint64_t total = copies * (descriptors + sizeof(cl_int) * static_cast<std::uint64_t>(chunk)) + bins +
                                sizeof(cl_int) * (images + 1ull) + search_->extraBytes(chunk, d, vocabulary);
    const auto& info = device_.info();
    const std::uint64_t largest = std::max({descriptors, words, bins});
    if (total > memory_limit_ || largest > info.max_allocation)
      throw CapacityError("this call needs " + megabytes(total) + " of device memory (largest buffer " +
                          megabytes(largest) + "); " + info.name + " allows " + megabytes(memory_limit_) +
                          " in all and " + megabytes(info.max_allocation) +
                          " per buffer: split the batch into smaller ones or set smaller transfer chunks");
  }

  // Compiles the search for width d. When `auto` chose a tensor-core variant and its PTX does not
  // build (an NVIDIA GPU without TF32 mma, or a driver that refuses the inline assembly), the FP32
  // tiled kernel takes over: same answers, no tensor cores.
  void prepareSearch(int d) {
    try {
      search_->prepare(d);
    } catch (const KernelBuildError&) {
      if (!fallback_) throw;
      config_ = *fallback_;
      fallback_.reset();
      search_ = makeSearch(device_, config_);
      search_->prepare(d);
    }
  }

  DeviceContext device_;
  HistogrammerConfig config_;
  std::unique_ptr<DeviceSearch> search_;
  std::optional<HistogrammerConfig> fallback_;  // what `auto` runs if search_ cannot be built
  std::uint64_t memory_limit_;
  cl::CommandQueue copy_queue_;      // uploads (and the staging's map/unmap)
  cl::CommandQueue download_queue_;  // assignments back to the caller
  ChunkSlot slots_[2];
  GrowingBuffer best_words_[2], descriptors_[2], offsets_, histograms_;
};

}  // namespace

std::unique_ptr<Histogrammer> makeOpenCLHistogrammer(const HistogrammerConfig& config) {
  return withOpenCLErrors([&] { return std::make_unique<OpenCLHistogrammer>(config); });
}

}  // namespace bovw::detail
