// The workers: decoding and per-image work in parallel, batches handed over in order.
#include "image_workers.hpp"

#include <bovw/error.hpp>
#include <bovw/image_io.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace bovw::detail {

std::vector<ImageFailure> runImageWorkers(const std::vector<std::string>& paths, const PipelineOptions& options,
                                          const ImageDecoder& decode, const ImageWork& work,
                                          const SlotConsumer& consume) {
  const std::size_t total = paths.size();
  const std::size_t batch_size = static_cast<std::size_t>(std::max(1, options.batch_images));
  const unsigned worker_count = options.workers > 0 ? static_cast<unsigned>(options.workers)
                                                    : std::max(1u, std::thread::hardware_concurrency());
  const auto start = std::chrono::steady_clock::now();

  std::vector<ImageSlot> slots(total);
  std::mutex mutex;
  std::condition_variable slot_ready, window_moved;
  std::size_t next = 0;
  std::size_t window_end = std::min(total, 2 * batch_size);  // workers take images below this
  bool stop = false;
  double decode_s = 0, work_s = 0, waiting_s = 0;  // for options.profile (under `mutex`)
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };

  auto worker = [&] {
    for (;;) {
      std::size_t i;
      {
        std::unique_lock<std::mutex> lock(mutex);
        window_moved.wait(lock, [&] { return stop || next >= total || next < window_end; });
        if (stop || next >= total) return;
        i = next++;
      }
      ImageSlot result;
      double decoding = 0, working = 0;
      try {
        const auto begin = std::chrono::steady_clock::now();
        const cv::Mat image = decode ? decode(i) : loadImage(paths[i], options.max_pixels);
        decoding = since(begin);
        result.image_size = image.size();
        const auto decoded = std::chrono::steady_clock::now();
        work(i, image, result);
        working = since(decoded);
      } catch (const std::exception& e) {  // bovw::Error, cv::Exception, std::bad_alloc
        result.error = e.what();
        if (result.error.find(paths[i]) == std::string::npos) result.error = "'" + paths[i] + "': " + result.error;
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        result.ready = true;
        slots[i] = std::move(result);
        decode_s += decoding;
        work_s += working;
      }
      slot_ready.notify_all();
    }
  };
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < std::min<std::size_t>(worker_count, std::max<std::size_t>(total, 1)); ++w)
    workers.emplace_back(worker);
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
  std::size_t failed = 0;  // before consume's verdicts: what progress reports
  auto report = [&](std::size_t done) {
    if (!options.progress) return;
    PipelineProgress progress;
    progress.done = done;
    progress.failed = failed;
    progress.total = total;
    progress.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    options.progress(progress);
  };
  std::size_t recorded = 0;  // the slots below it are final and their failures recorded
  auto recordUpTo = [&](std::size_t settled) {
    for (; recorded < std::min(settled, total); ++recorded)
      if (!slots[recorded].error.empty()) {
        if (options.strict) throw InvalidInput(slots[recorded].error);
        failures.push_back({paths[recorded], slots[recorded].error});
      }
  };
  try {
    for (std::size_t first = 0; first < total; first += batch_size) {
      const std::size_t end = std::min(total, first + batch_size);
      for (std::size_t i = first; i < end; ++i) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          const auto begin = std::chrono::steady_clock::now();
          slot_ready.wait(lock, [&] { return slots[i].ready; });
          waiting_s += since(begin);
        }
        if (!slots[i].error.empty()) {
          if (options.strict) throw InvalidInput(slots[i].error);
          ++failed;
        }
        report(i + 1);
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        window_end = std::min(total, end + 2 * batch_size);
      }
      window_moved.notify_all();
      recordUpTo(consume(first, end, slots));
    }
    if (recorded < total) recordUpTo(consume(total, total, slots));
    if (recorded < total) throw Error("image pipeline: the consumer left images unsettled");
  } catch (...) {
    shutdown();
    throw;
  }
  shutdown();
  if (options.profile != nullptr) {
    PipelineProfile& p = *options.profile;
    p.wall_s += since(start);
    p.workers = static_cast<int>(std::min<std::size_t>(worker_count, std::max<std::size_t>(total, 1)));
    p.decode_s += decode_s;
    p.work_s += work_s;
    p.waiting_s += waiting_s;
  }
  return failures;
}

}  // namespace bovw::detail
