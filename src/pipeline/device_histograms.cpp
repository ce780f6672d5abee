#include "device_histograms.hpp"

#include "features/opencl/device_features.hpp"
#include "features/opencl/surf_batch.hpp"
#include "device_batches.hpp"
#include "image_workers.hpp"
#include "opencl/cl_errors.hpp"
#include "opencl/pinned_host.hpp"
#include "opencl/resident_histograms.hpp"

#include <bovw/error.hpp>
#include <bovw/vocabulary.hpp>

#include <opencv2/core/utility.hpp>

#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>

namespace bovw::detail {
namespace {

// What one image of a device batch gives.
struct ImageResult {
  std::vector<std::int32_t> histogram;
  std::int64_t descriptors = 0;
  ImageWords words;
};

// One device batch between its start and its collection: what the device was asked for, and where
// its read-backs land (pinned memory of its slot, kept still until it is collected: the reads are
// asynchronous).
struct InFlight {
  std::vector<std::size_t> members;  // slot indices
  surf::SurfBatchInput input;        // the grays its uploads read
  surf::SurfOnDevice surf;
  std::vector<cl::Event> search;
  const cl_int* counts = nullptr;    // (images + 1) x K histograms, row-major
  const cl_int* offsets = nullptr;   // images + 2
  // With words: n records, their words, and their signatures (kernels/word_signatures.cl).
  const surf::DeviceKeypoint* records = nullptr;
  const cl_int* assigned = nullptr;
  const cl_ulong* signatures = nullptr;
  cl::Event done;  // the last read-back: the queue is in order, so the whole batch has run
};

// Runs device batches three deep on one in-order queue. A batch is started (uploaded, searched for
// keypoints) before the host waits for the keypoint count of the batch started before it, so the
// device goes on working through that wait and while the host enqueues the earlier batch's
// description, histogram search and read-backs; the batch before that one is collected then, while
// the device runs. Consecutive batches use different working buffers and read-back memory
// (SurfBatchInput::slot). Nothing drains the queue between pipeline batches: the last batch of one
// is finished before the host goes to wait for the next one's images, so the device has its
// description to run meanwhile.
class DeviceRoute {
 public:
  DeviceRoute(const DeviceFeatures& features, ResidentHistograms& search, const Vocabulary& vocabulary,
              bool keep_words, PipelineProfile* profile)
      : features_(features), search_(search), device_(search.device()), vocabulary_(vocabulary),
        keep_words_(keep_words), profile_(profile) {
    device_.scratch().retainUpTo(std::size_t{1} << 30);  // a batch's scale space, every batch
  }
  DeviceRoute(const DeviceRoute&) = delete;
  DeviceRoute& operator=(const DeviceRoute&) = delete;

  // A batch still in flight reads into memory that goes with this object.
  ~DeviceRoute() {
    if (!started_ && finished_.empty()) return;
    try {
      device_.queue().finish();
    } catch (const cl::Error&) {
    }
  }

  // Starts the device batches (slot indices; grays in slot.kept); each start finishes the batch
  // started before and collects the one finished before that. The last two stay in flight, finished
  // (settle() collects them). An image's results go to results(); one that fails gets its error in
  // its slot: a failed batch of several is retried image by image, so that the error names its
  // image and the others still finish.
  void run(const std::vector<std::vector<std::size_t>>& batches, std::vector<ImageSlot>& slots,
           const std::vector<std::string>& paths) {
    for (const std::vector<std::size_t>& members : batches) {
      std::unique_ptr<InFlight> started;
      try {
        started = start(members, slots, next_slot_);
      } catch (const std::exception& e) {
        settle(slots, paths);
        retryAlone(members, e, slots, paths);
        continue;
      }
      next_slot_ = 1 - next_slot_;
      finishStarted(slots, paths);
      collectDownTo(1, slots, paths);  // the batch of this slot's memory, finished two steps ago
      started_ = std::move(started);
    }
    finishStarted(slots, paths);
  }

  // Finishes and collects every batch in flight.
  void settle(std::vector<ImageSlot>& slots, const std::vector<std::string>& paths) {
    finishStarted(slots, paths);
    collectDownTo(0, slots, paths);
  }

  // The slots below this are settled: no batch in flight holds them.
  std::size_t settledBelow(std::size_t end) const {
    if (!finished_.empty()) return finished_.front()->members.front();
    return started_ ? started_->members.front() : end;
  }

  // The results of settled images that succeeded, by slot index (taken by the caller).
  std::map<std::size_t, ImageResult>& results() { return results_; }

 private:
  static constexpr int kRetrySlot = 2;  // the working buffers of batches retried image by image

  // The pinned read-back memory of working-buffer slot `slot`: a batch's region is reused by the
  // next batch of its slot, which is finished only after it was collected (at most two batches
  // are finished and not collected, of different slots). Made on first use, and
  // mapped through a queue of its own (so that growing it never waits for this queue's work).
  PinnedReadback& readback(int slot) {
    std::unique_ptr<PinnedReadback>& memory = readbacks_.at(static_cast<std::size_t>(slot));
    if (!memory) {
      if (!mapping_) mapping_ = device_.anotherQueue();
      memory = std::make_unique<PinnedReadback>(mapping_->context(), mapping_->queue());
    }
    return *memory;
  }

  // The started batch, if any, finished (the wait for its keypoint count while the device runs
  // whatever was queued after it) and queued for collection.
  void finishStarted(std::vector<ImageSlot>& slots, const std::vector<std::string>& paths) {
    std::unique_ptr<InFlight> batch = std::move(started_);
    if (!batch) return;
    try {
      finish(*batch);
      finished_.push_back(std::move(batch));
    } catch (const std::exception& e) {
      retryAlone(batch->members, e, slots, paths);
    }
  }

  // Collects the oldest finished batches until `keep` remain.
  void collectDownTo(std::size_t keep, std::vector<ImageSlot>& slots, const std::vector<std::string>& paths) {
    while (finished_.size() > keep) {
      std::unique_ptr<InFlight> batch = std::move(finished_.front());
      finished_.pop_front();
      try {
        collect(*batch, slots);
      } catch (const std::exception& e) {
        retryAlone(batch->members, e, slots, paths);
      }
    }
  }

  // After a failure: the queue drained, then each image alone (or, alone already, the error in its slot).
  void retryAlone(const std::vector<std::size_t>& members, const std::exception& failure,
                  std::vector<ImageSlot>& slots, const std::vector<std::string>& paths) {
    try {
      device_.queue().finish();  // nothing of the failed batch may still run
    } catch (const cl::Error&) {
    }
    if (members.size() > 1) {
      for (std::size_t i : members) {
        try {
          const std::unique_ptr<InFlight> alone = start({i}, slots, kRetrySlot);
          finish(*alone);
          collect(*alone, slots);
        } catch (const std::exception& e) {
          retryAlone({i}, e, slots, paths);
        }
      }
      return;
    }
    const std::string& path = paths[members[0]];
    std::string message = failure.what();
    if (message.find(path) == std::string::npos) message = "'" + path + "': " + message;
    slots[members[0]].error = message;
  }

  // Enqueues the upload and keypoint search of one batch in working-buffer slot `slot` (nothing is
  // waited for).
  std::unique_ptr<InFlight> start(const std::vector<std::size_t>& members, const std::vector<ImageSlot>& slots,
                                  int slot) {
    auto batch = std::make_unique<InFlight>();
    batch->members = members;
    batch->input.slot = slot;
    for (std::size_t i : members) batch->input.grays.push_back(slots[i].kept);
    timed([&] { batch->surf = features_.start(device_, batch->input); });
    return batch;
  }

  // Waits for a started batch's keypoint count, then enqueues the rest of its SURF, the histogram
  // search and the read-backs (nothing else is waited for).
  void finish(InFlight& batch) {
    timed([&] {
      // Reads into `batch` may be queued when a step fails: they must be done before it goes.
      finishingQueueOnFailure(device_.queue(), [&] { enqueueRest(batch); });
    });
    if (profile_ != nullptr) profile_->count_wait_s += batch.surf.detection.count_wait_s;
  }

  // `step` under the OpenCL error translation, its time added to the profile's enqueueing.
  template <typename Step>
  void timed(Step step) {
    const auto begin = std::chrono::steady_clock::now();
    withOpenCLErrors(step);
    if (profile_ != nullptr) profile_->enqueue_s += secondsSince(begin);
  }

  // finish's work, into `out`.
  void enqueueRest(InFlight& out) {
    features_.finish(device_, out.input, out.surf);
    const surf::SurfOnDevice& surf = out.surf;
    const int images = surf.image_count, words = vocabulary_.size(), n = surf.count;
    // One more histogram than images: the keypoints the orientation stage dropped, counted and ignored.
    const cl::Buffer best_word = device_.scratch().get("pipeline.best_word", sizeof(cl_int) * std::max(n, 1));
    const cl::Buffer histograms = device_.scratch().get(
        "pipeline.histograms", sizeof(cl_int) * static_cast<std::size_t>(images + 1) * words);
    out.search = search_.enqueueHistograms(surf.descriptors, n, surf.width, surf.offsets, images + 1, vocabulary_,
                                           best_word, histograms);
    const bool words_too = keep_words_ && n > 0;  // keypoints, words and signatures
    cl::Buffer signatures;
    if (words_too) signatures = enqueueSignatures(surf, best_word);
    // The read-backs' parts, 64-byte aligned, in the slot's pinned memory (DMAs: a pageable
    // destination costs the driver a staging copy).
    const std::size_t count_bytes = sizeof(cl_int) * static_cast<std::size_t>(images + 1) * words;
    const std::size_t offset_bytes = sizeof(cl_int) * (static_cast<std::size_t>(images) + 2);
    const std::size_t record_bytes = words_too ? sizeof(surf::DeviceKeypoint) * n : 0;
    const std::size_t assigned_bytes = words_too ? sizeof(cl_int) * n : 0;
    const std::size_t signature_bytes = words_too ? sizeof(cl_ulong) * n : 0;
    const auto aligned = [](std::size_t bytes) { return (bytes + 63) / 64 * 64; };
    unsigned char* memory = readback(out.input.slot)
                                .reserve(aligned(count_bytes) + aligned(offset_bytes) + aligned(record_bytes) +
                                         aligned(assigned_bytes) + signature_bytes);
    std::size_t at = 0;
    const auto part = [&](std::size_t bytes) {
      unsigned char* p = memory + at;
      at += aligned(bytes);
      return p;
    };
    auto& queue = device_.queue();
    const auto read = [&](const cl::Buffer& from, std::size_t bytes, unsigned char* to) {
      queue.enqueueReadBuffer(from, CL_FALSE, 0, bytes, to, nullptr, &out.done);
      return to;
    };
    out.counts = reinterpret_cast<const cl_int*>(read(histograms, count_bytes, part(count_bytes)));
    out.offsets = reinterpret_cast<const cl_int*>(read(surf.offsets, offset_bytes, part(offset_bytes)));
    if (words_too) {
      out.records = reinterpret_cast<const surf::DeviceKeypoint*>(read(surf.records, record_bytes, part(record_bytes)));
      out.assigned = reinterpret_cast<const cl_int*>(read(best_word, assigned_bytes, part(assigned_bytes)));
      out.signatures = reinterpret_cast<const cl_ulong*>(read(signatures, signature_bytes, part(signature_bytes)));
    }
    queue.flush();
  }

  // Each descriptor's Hamming-embedding signature against its word (wordSignature's, computed where
  // the descriptors are: 8 bytes a keypoint come back instead of its row), in a scratch buffer.
  cl::Buffer enqueueSignatures(const surf::SurfOnDevice& surf, const cl::Buffer& best_word) {
    if (centroids_() == nullptr) {  // the vocabulary's words, row-major, once per route
      const auto& c = vocabulary_.centroids();
      centroids_ = cl::Buffer(device_.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * c.size(),
                              const_cast<float*>(c.data()));
    }
    const cl::Buffer signatures = device_.scratch().get("pipeline.signatures", sizeof(cl_ulong) * surf.count);
    cl::Kernel& kernel = device_.kernel("word_signatures", "word_signatures", "");
    kernel.setArg(0, surf.descriptors);
    kernel.setArg(1, best_word);
    kernel.setArg(2, centroids_);
    kernel.setArg(3, cl_int{surf.count});
    kernel.setArg(4, cl_int{surf.width});
    kernel.setArg(5, signatures);
    constexpr std::size_t kGroup = 128;
    const std::size_t items = (static_cast<std::size_t>(surf.count) + kGroup - 1) / kGroup * kGroup;
    device_.queue().enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(items), cl::NDRange(kGroup));
    return signatures;
  }

  // Waits for a started batch (not for what was queued after it) and puts each image's results in
  // `results`.
  void collect(InFlight& batch, const std::vector<ImageSlot>& slots) {
    const auto begin = std::chrono::steady_clock::now();
    // A failed wait drains the queue before the batch's memory can go.
    finishingQueueOnFailure(device_.queue(), [&] { withOpenCLErrors([&] { batch.done.wait(); }); });
    const auto finished = std::chrono::steady_clock::now();
    if (profile_ != nullptr) {
      profile_->finish_wait_s += std::chrono::duration<double>(finished - begin).count();
      ++profile_->device_batches;
      surf::addStageTimes(batch.surf, profile_->surf);
      for (const cl::Event& e : batch.search) profile_->histogram_ms += surf::elapsedBetween(e, e);
      addToTimeline(batch);
    }
    const int words = vocabulary_.size();
    std::vector<ImageResult*> results;
    for (std::size_t i : batch.members) {  // made here: the map is not thread-safe
      results_[i] = ImageResult();
      results.push_back(&results_[i]);
    }
    // The images in parallel: with words, sorting each image's keypoints is the host's largest share.
    cv::parallel_for_(cv::Range(0, batch.surf.image_count), [&](const cv::Range& range) {
      for (int i = range.start; i < range.end; ++i) {
        ImageResult& r = *results[i];
        const cl_int* counts = batch.counts + static_cast<std::size_t>(i) * words;
        r.histogram.assign(counts, counts + words);
        const int begin = batch.offsets[i], end = batch.offsets[i + 1];
        r.descriptors = end - begin;
        if (!keep_words_) continue;
        // In OpenCV's keypoint order, as the image-by-image path stores them.
        r.words.image_size = slots[batch.members[i]].image_size;
        for (int k : surf::outputOrder(batch.records + begin, end - begin, true, cv::Mat())) {
          const int row = begin + k;
          r.words.points.emplace_back(batch.records[row].x, batch.records[row].y);
          r.words.sizes.push_back(batch.records[row].size);
          r.words.angles.push_back(batch.records[row].angle);
          r.words.words.push_back(batch.assigned[row]);
          r.words.signatures.push_back(batch.signatures[row]);
        }
      }
    });
    if (profile_ != nullptr) profile_->collect_s += secondsSince(finished);
  }

  // Widens the profile's device timeline to cover the batch (a device that withholds a timestamp
  // leaves it as it was).
  void addToTimeline(const InFlight& batch) {
    try {
      if (batch.surf.images.uploaded() == nullptr || batch.done() == nullptr) return;
      const auto first = batch.surf.images.uploaded.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      const auto last = batch.done.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      if (profile_->device_first_ns == 0 || first < profile_->device_first_ns) profile_->device_first_ns = first;
      profile_->device_last_ns = std::max<std::uint64_t>(profile_->device_last_ns, last);
    } catch (const cl::Error&) {
    }
  }

  static double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  const DeviceFeatures& features_;
  ResidentHistograms& search_;
  DeviceContext& device_;  // search_'s: SURF's batches run on its queue, in order with the searches
  const Vocabulary& vocabulary_;
  bool keep_words_;
  PipelineProfile* profile_;
  cl::Buffer centroids_;                                         // the words, for the signatures
  std::unique_ptr<DeviceContext> mapping_;                       // maps the read-back memory
  std::array<std::unique_ptr<PinnedReadback>, 3> readbacks_;     // per working-buffer slot
  int next_slot_ = 0;                  // the working-buffer slot of the next batch started (0 or 1)
  std::unique_ptr<InFlight> started_;  // the batch started last: its keypoint count not yet waited for
  std::deque<std::unique_ptr<InFlight>> finished_;  // finished, not yet collected, oldest first
  std::map<std::size_t, ImageResult> results_;
};

}  // namespace

bool histogramImagesOnDevice(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                             const Vocabulary& vocabulary, Histogrammer& histogrammer,
                             const PipelineOptions& options, const HistogramConsumer& finished,
                             std::vector<ImageFailure>& failures) {
  // Both sides of the device seam: features computed on an OpenCL device, a search on the same one.
  const DeviceFeatures* features = deviceFeaturesOf(extractor);
  ResidentHistograms* search = residentHistogramsOf(histogrammer);
  if (!options.fused_device || features == nullptr || search == nullptr || !features->runsOn(search->device()))
    return false;
  const auto begin = std::chrono::steady_clock::now();
  // Staging on the device's context, mapped through a queue of its own; made before `route`, which
  // finishes any batch still in flight (reading from it) when it goes.
  PinnedStaging staging(search->device().anotherQueue(), kStagingDepth);
  DeviceRoute route(*features, *search, vocabulary, options.keep_words, options.profile);
  const std::int64_t pixel_limit = features->batchPixelLimit(search->device());
  const StagedDecoding staged = stagedDecoding(staging, *features, paths, options);
  std::size_t emitted = 0;   // the slots below it are handed on (or failed) and their memory released
  std::size_t released = 0;  // the pipeline batches below it have given their staging back
  if (options.profile != nullptr)
    options.profile->setup_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  failures = runImageWorkers(
      paths, options, staged.decode, staged.work,
      [&](std::size_t first, std::size_t end, std::vector<ImageSlot>& slots) {
        if (first < end) route.run(deviceBatches(slots, first, end, options, pixel_limit), slots, paths);
        else route.settle(slots, paths);  // the end: the last batch
        const std::size_t settled = route.settledBelow(end);
        // The images settled since the last call, as one batch (the device batch still in flight
        // follows with the next call).
        std::vector<std::size_t> good;
        for (; emitted < settled; ++emitted) {
          slots[emitted].kept.release();
          const auto found = route.results().find(emitted);
          if (!slots[emitted].error.empty()) {
            if (found != route.results().end()) route.results().erase(found);
            continue;
          }
          good.push_back(emitted);
        }
        if (!good.empty()) {
          ImageHistograms batch;
          batch.histograms.resize(static_cast<Eigen::Index>(good.size()), vocabulary.size());
          for (std::size_t i : good) {
            const auto found = route.results().find(i);
            ImageResult& r = found->second;
            std::memcpy(batch.histograms.row(static_cast<Eigen::Index>(batch.names.size())).data(),
                        r.histogram.data(), sizeof(std::int32_t) * r.histogram.size());
            batch.names.push_back(paths[i]);
            batch.descriptor_counts.push_back(r.descriptors);
            if (options.keep_words) batch.words.push_back(std::move(r.words));
            route.results().erase(found);
          }
          finished(std::move(batch));
        }
        // Pipeline batches whose images are all settled: nothing reads their staging again.
        for (; released < pipelineBatch(settled, options); ++released) staging.release(released);
        return settled;
      });
  return true;
}

}  // namespace bovw::detail
