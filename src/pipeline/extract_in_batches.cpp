// The extraction pipeline: a pool of workers decodes images and extracts features in parallel,
// the calling thread assembles ordered batches and hands them to the consumer (for histograms on
// the device) while the workers continue with the next batches.
#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace bovw {

namespace {

struct Slot {
  ImageFeatures features;
  cv::Size image_size;
  std::string error;
  bool ready = false;
};

// Stacks the batch's descriptor matrices and keypoints into one, with offsets; releases the slots'
// memory.
ExtractedBatch assemble(std::vector<Slot>& slots, std::size_t first, std::size_t end, int width) {
  ExtractedBatch batch;
  batch.first = first;
  batch.offsets = {0};
  for (std::size_t i = first; i < end; ++i)
    batch.offsets.push_back(batch.offsets.back() + slots[i].features.descriptors.rows);
  batch.descriptors.resize(batch.offsets.back(), width);
  batch.points.reserve(static_cast<std::size_t>(batch.offsets.back()));
  for (std::size_t i = first; i < end; ++i) {
    ImageFeatures& f = slots[i].features;
    const cv::Mat& d = f.descriptors;
    batch.failed.push_back(!slots[i].error.empty());
    batch.image_sizes.push_back(slots[i].image_size);
    if (d.rows == 0) continue;
    if (d.cols != width || d.type() != CV_32F)
      throw Error("feature extractor returned " + std::to_string(d.cols) + " columns, expected " + std::to_string(width));
    if (f.keypoints.size() != static_cast<std::size_t>(d.rows))
      throw Error("feature extractor returned " + std::to_string(d.rows) + " descriptors but " +
                  std::to_string(f.keypoints.size()) + " keypoints");
    for (int r = 0; r < d.rows; ++r)
      std::copy(d.ptr<float>(r), d.ptr<float>(r) + width, batch.descriptors.row(batch.offsets[i - first] + r).data());
    for (const cv::KeyPoint& k : f.keypoints) batch.points.push_back(k.pt);
    f = ImageFeatures();  // the slot's memory is not needed any more
  }
  return batch;
}

}  // namespace

std::vector<ImageFailure> extractInBatches(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                           const PipelineOptions& options, const BatchConsumer& consume) {
  const std::size_t total = paths.size();
  const std::size_t batch_size = static_cast<std::size_t>(std::max(1, options.batch_images));
  const unsigned worker_count = options.workers > 0 ? static_cast<unsigned>(options.workers)
                                                    : std::max(1u, std::thread::hardware_concurrency());
  const auto start = std::chrono::steady_clock::now();

  std::vector<Slot> slots(total);
  std::mutex mutex;
  std::condition_variable slot_ready, window_moved;
  std::size_t next = 0;
  std::size_t window_end = std::min(total, 2 * batch_size);  // workers take images below this
  bool stop = false;

  auto work = [&] {
    for (;;) {
      std::size_t i;
      {
        std::unique_lock<std::mutex> lock(mutex);
        window_moved.wait(lock, [&] { return stop || next >= total || next < window_end; });
        if (stop || next >= total) return;
        i = next++;
      }
      Slot result;
      try {
        const cv::Mat image = loadImage(paths[i], options.max_pixels);
        result.image_size = image.size();
        result.features = extractor.extractFeatures(image);
      } catch (const std::exception& e) {  // bovw::Error, cv::Exception, std::bad_alloc
        result.error = e.what();
        if (result.error.find(paths[i]) == std::string::npos) result.error = "'" + paths[i] + "': " + result.error;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        result.ready = true;
        slots[i] = std::move(result);
      }
      slot_ready.notify_all();
    }
  };
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < std::min<std::size_t>(worker_count, std::max<std::size_t>(total, 1)); ++w)
    workers.emplace_back(work);
  auto shutdown = [&] {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    window_moved.notify_all();
    for (auto& t : workers) t.join();
    workers.clear();
  };

  std::vector<ImageFailure> failures;
  auto report = [&](std::size_t done) {
    if (!options.progress) return;
    PipelineProgress progress;
    progress.done = done;
    progress.failed = failures.size();
    progress.total = total;
    progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    options.progress(progress);
  };
  try {
    for (std::size_t first = 0; first < total; first += batch_size) {
      const std::size_t end = std::min(total, first + batch_size);
      for (std::size_t i = first; i < end; ++i) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          slot_ready.wait(lock, [&] { return slots[i].ready; });
        }
        if (!slots[i].error.empty()) {
          if (options.strict) throw InvalidInput(slots[i].error);
          failures.push_back({paths[i], slots[i].error});
        }
        report(i + 1);
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        window_end = std::min(total, end + 2 * batch_size);
      }
      window_moved.notify_all();
      consume(assemble(slots, first, end, extractor.descriptorSize()));
    }
  } catch (...) {
    shutdown();
    throw;
  }
  shutdown();
  return failures;
}

}  // namespace bovw
