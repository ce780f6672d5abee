#include "device_histograms.hpp"

#include "features/backends.hpp"
#include "features/opencl/surf_batch.hpp"
#include "image_workers.hpp"
#include "opencl/cl_errors.hpp"
#include "opencl/opencl_histogrammer.hpp"

#include <bovw/error.hpp>
#include <bovw/vocabulary.hpp>

#include <opencv2/core/utility.hpp>

#include <cstring>

namespace bovw::detail {
namespace {

// What one image of a device batch gives.
struct ImageResult {
  std::vector<std::int32_t> histogram;
  std::int64_t descriptors = 0;
  ImageWords words;
};

class DeviceRoute {
 public:
  DeviceRoute(DeviceContext& device, const SurfParams& params, const Vocabulary& vocabulary,
              Histogrammer& histogrammer, bool keep_words, PipelineProfile* profile)
      : device_(device), params_(params), vocabulary_(vocabulary), histogrammer_(histogrammer),
        keep_words_(keep_words), profile_(profile) {
    device_.scratch().retainUpTo(std::size_t{1} << 30);  // a batch's scale space, every batch
  }

  // Images `members` of `slots` (grays in slot.kept) as one device batch; an image that fails (alone)
  // gets its error in its slot. A failed batch of several is retried image by image, so that the
  // error names the image it belongs to and the others still finish.
  void run(const std::vector<std::size_t>& members, std::vector<ImageSlot>& slots,
           const std::vector<std::string>& paths, std::vector<ImageResult>& results, std::size_t first) {
    try {
      std::vector<cv::Mat> grays;
      for (std::size_t i : members) grays.push_back(slots[i].kept);
      std::vector<ImageResult> batch = withOpenCLErrors([&] { return runBatch(grays, members, slots); });
      for (std::size_t k = 0; k < members.size(); ++k) results[members[k] - first] = std::move(batch[k]);
    } catch (const std::exception& e) {
      try {
        device_.queue().finish();  // nothing of the failed batch may still run
      } catch (const cl::Error&) {
      }
      if (members.size() > 1) {
        for (std::size_t i : members) run({i}, slots, paths, results, first);
        return;
      }
      const std::string& path = paths[members[0]];
      std::string message = e.what();
      if (message.find(path) == std::string::npos) message = "'" + path + "': " + message;
      slots[members[0]].error = message;
    }
  }

 private:
  std::vector<ImageResult> runBatch(const std::vector<cv::Mat>& grays, const std::vector<std::size_t>& members,
                                    const std::vector<ImageSlot>& slots) {
    surf::SurfBatchInput input;
    input.grays = grays;
    const surf::SurfOnDevice surf = surf::enqueueSurf(device_, input, params_);
    const int images = surf.image_count, words = vocabulary_.size(), n = surf.count;
    // One more histogram than images: the keypoints the orientation stage dropped, counted and ignored.
    const cl::Buffer best_word = device_.scratch().get("pipeline.best_word", sizeof(cl_int) * std::max(n, 1));
    const cl::Buffer histograms =
        device_.scratch().get("pipeline.histograms", sizeof(cl_int) * static_cast<std::size_t>(images + 1) * words);
    const std::vector<cl::Event> search = enqueueResidentHistograms(
        histogrammer_, surf.descriptors, n, surf.width, surf.offsets, images + 1, vocabulary_, best_word, histograms);

    auto& queue = device_.queue();
    Histograms counts(images + 1, words);
    std::vector<cl_int> offsets(static_cast<std::size_t>(images) + 2);
    queue.enqueueReadBuffer(histograms, CL_FALSE, 0, sizeof(cl_int) * counts.size(), counts.data());
    queue.enqueueReadBuffer(surf.offsets, CL_FALSE, 0, sizeof(cl_int) * offsets.size(), offsets.data());
    std::vector<surf::DeviceKeypoint> records;
    std::vector<cl_int> assigned;
    cv::Mat rows;
    if (keep_words_ && n > 0) {  // what the words need: keypoints, words and (for signatures) descriptors
      records.resize(static_cast<std::size_t>(n));
      assigned.resize(static_cast<std::size_t>(n));
      rows.create(n, surf.width, CV_32F);
      queue.enqueueReadBuffer(surf.records, CL_FALSE, 0, sizeof(surf::DeviceKeypoint) * n, records.data());
      queue.enqueueReadBuffer(best_word, CL_FALSE, 0, sizeof(cl_int) * n, assigned.data());
      queue.enqueueReadBuffer(surf.descriptors, CL_FALSE, 0, sizeof(float) * rows.total(), rows.data);
    }
    queue.finish();
    if (profile_ != nullptr) {
      ++profile_->device_batches;
      surf::addStageTimes(surf, profile_->surf);
      for (const cl::Event& e : search) profile_->histogram_ms += surf::elapsedBetween(e, e);
    }

    std::vector<ImageResult> results(static_cast<std::size_t>(images));
    // The images in parallel: with words, sorting each image's keypoints is the host's largest share.
    cv::parallel_for_(cv::Range(0, images), [&](const cv::Range& range) {
      for (int i = range.start; i < range.end; ++i) {
        ImageResult& r = results[i];
        r.histogram.assign(counts.row(i).data(), counts.row(i).data() + words);
        r.descriptors = offsets[i + 1] - offsets[i];
        if (!keep_words_) continue;
        // In OpenCV's keypoint order, as the image-by-image path stores them.
        r.words.image_size = slots[members[i]].image_size;
        const int first = offsets[i];
        for (int k : surf::outputOrder(records.data() + first, offsets[i + 1] - first, true, cv::Mat())) {
          const int row = first + k;
          r.words.points.emplace_back(records[row].x, records[row].y);
          r.words.words.push_back(assigned[row]);
          r.words.signatures.push_back(wordSignature(rows.ptr<float>(row), vocabulary_, assigned[row]));
        }
      }
    });
    return results;
  }

  DeviceContext& device_;
  const SurfParams& params_;
  const Vocabulary& vocabulary_;
  Histogrammer& histogrammer_;
  bool keep_words_;
  PipelineProfile* profile_;
};

}  // namespace

bool histogramImagesOnDevice(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                             const Vocabulary& vocabulary, Histogrammer& histogrammer,
                             const PipelineOptions& options, ImageHistograms& result) {
  const SurfExtractor* surf = surf::surfExtractorOf(extractor);
  DeviceContext* device = deviceOf(histogrammer);
  if (!options.fused_device || surf == nullptr || device == nullptr || !surf::runsOnDevice(*surf, *device))
    return false;
  DeviceRoute route(*device, surf->params(), vocabulary, histogrammer, options.keep_words, options.profile);
  std::vector<std::vector<std::int32_t>> histograms;  // of the images that succeeded, in order
  result.failures = runImageWorkers(
      paths, options, [](const cv::Mat& image, ImageSlot& slot) { slot.kept = toSurfGray(image); },
      [&](std::size_t first, std::size_t end, std::vector<ImageSlot>& slots) {
        std::vector<ImageResult> results(end - first);
        std::vector<std::size_t> members;
        std::int64_t pixels = 0;
        auto flush = [&] {
          if (!members.empty()) route.run(members, slots, paths, results, first);
          members.clear();
          pixels = 0;
        };
        for (std::size_t i = first; i < end; ++i) {
          if (!slots[i].error.empty()) continue;
          const std::int64_t area = static_cast<std::int64_t>(slots[i].kept.total());
          if (!members.empty() && (pixels + area > options.device_batch_pixels ||
                                   members.size() == static_cast<std::size_t>(surf::kMaxBatchImages)))
            flush();
          members.push_back(i);
          pixels += area;
        }
        flush();
        for (std::size_t i = first; i < end; ++i) {
          slots[i].kept.release();
          if (!slots[i].error.empty()) continue;
          ImageResult& r = results[i - first];
          result.names.push_back(paths[i]);
          result.descriptor_counts.push_back(r.descriptors);
          histograms.push_back(std::move(r.histogram));
          if (options.keep_words) result.words.push_back(std::move(r.words));
        }
      });
  result.histograms.resize(static_cast<Eigen::Index>(histograms.size()), vocabulary.size());
  for (std::size_t i = 0; i < histograms.size(); ++i)
    std::memcpy(result.histograms.row(static_cast<Eigen::Index>(i)).data(), histograms[i].data(),
                sizeof(std::int32_t) * histograms[i].size());
  return true;
}

}  // namespace bovw::detail
