// Images to histograms: the extraction pipeline feeding one Histogrammer pass per batch, or, with
// SURF and the histograms on one OpenCL device, the fused device route (device_histograms.hpp).
#include "device_histograms.hpp"

#include <bovw/error.hpp>
#include <bovw/image_names.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/surf.hpp>
#include <bovw/vocabulary.hpp>

#include <algorithm>
#include <functional>
#include <iterator>

namespace bovw {

namespace {

// Image i of the batch: its keypoints, the words their descriptors were assigned to, and where in
// the word's cell each descriptor lies.
ImageWords imageWords(const ExtractedBatch& batch, const std::vector<std::int32_t>& assignments,
                      const Vocabulary& vocabulary, std::size_t i) {
  const auto begin = static_cast<std::size_t>(batch.offsets[i]), end = static_cast<std::size_t>(batch.offsets[i + 1]);
  ImageWords words;
  words.image_size = batch.image_sizes[i];
  words.points.assign(batch.points.begin() + begin, batch.points.begin() + end);
  words.sizes.assign(batch.sizes.begin() + begin, batch.sizes.begin() + end);
  words.angles.assign(batch.angles.begin() + begin, batch.angles.begin() + end);
  for (std::size_t row = begin; row < end; ++row) {
    words.words.push_back(assignments[row]);
    words.signatures.push_back(
        wordSignature(batch.descriptors.row(static_cast<Eigen::Index>(row)).data(), vocabulary, assignments[row]));
  }
  return words;
}

// The images' paths become their names (image_names.hpp): a path no output can hold is refused
// before any image is read. The others go on to `histogram`; the failures of both, in path order.
std::vector<ImageFailure> withUsableNames(
    const std::vector<std::string>& paths, const PipelineOptions& options,
    const std::function<std::vector<ImageFailure>(const std::vector<std::string>&)>& histogram) {
  std::vector<std::string> usable;
  std::vector<ImageFailure> refused;
  for (const std::string& path : paths) {
    if (const auto problem = imageNameProblem(path)) {
      const std::string message = "'" + printableName(path) + "': the file name " + *problem +
                                  ", which databases and outputs cannot hold; rename the file";
      if (options.strict) throw InvalidInput(message);
      refused.push_back({path, message});
    } else {
      usable.push_back(path);
    }
  }
  if (refused.empty()) return histogram(paths);
  const std::vector<ImageFailure> later_failures = histogram(usable);
  std::vector<ImageFailure> failures;
  auto later = later_failures.begin();
  auto name = refused.begin();
  for (const std::string& path : paths) {  // both lists are in path order
    if (name != refused.end() && name->path == path) failures.push_back(std::move(*name++));
    else if (later != later_failures.end() && later->path == path) failures.push_back(*later++);
  }
  return failures;
}

std::vector<ImageFailure> histogramUsableImages(const std::vector<std::string>& paths,
                                                const FeatureExtractor& extractor, const Vocabulary& vocabulary,
                                                Histogrammer& histogrammer, const PipelineOptions& options,
                                                const HistogramConsumer& finished) {
  std::vector<ImageFailure> failures;
  if (detail::histogramImagesOnDevice(paths, extractor, vocabulary, histogrammer, options, finished, failures))
    return failures;
  std::vector<std::int32_t> assignments;
  return extractInBatches(paths, extractor, options, [&](const ExtractedBatch& batch) {
    const Histograms h = histogrammer.compute(DescriptorBatch(batch.descriptors, batch.offsets), vocabulary,
                                              options.keep_words ? &assignments : nullptr);
    ImageHistograms kept;
    kept.histograms.resize(static_cast<Eigen::Index>(std::count(batch.failed.begin(), batch.failed.end(), false)),
                           vocabulary.size());
    Eigen::Index row = 0;
    for (std::size_t i = 0; i < batch.failed.size(); ++i) {
      if (batch.failed[i]) continue;
      kept.histograms.row(row++) = h.row(static_cast<Eigen::Index>(i));
      kept.names.push_back(paths[batch.first + i]);
      kept.descriptor_counts.push_back(batch.offsets[i + 1] - batch.offsets[i]);
      if (options.keep_words) kept.words.push_back(imageWords(batch, assignments, vocabulary, i));
    }
    finished(std::move(kept));
  });
}

}  // namespace

std::vector<ImageFailure> histogramImagesInBatches(const std::vector<std::string>& paths,
                                                   const FeatureExtractor& extractor, const Vocabulary& vocabulary,
                                                   Histogrammer& histogrammer, const PipelineOptions& options,
                                                   const HistogramConsumer& consume) {
  checkCompatible(vocabulary, extractor.descriptorType());
  return withUsableNames(paths, options, [&](const std::vector<std::string>& usable) {
    return histogramUsableImages(usable, extractor, vocabulary, histogrammer, options, consume);
  });
}

ImageHistograms histogramImages(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                                const Vocabulary& vocabulary, Histogrammer& histogrammer,
                                const PipelineOptions& options) {
  std::vector<ImageHistograms> batches;
  Eigen::Index rows = 0;
  ImageHistograms result;
  result.failures = histogramImagesInBatches(paths, extractor, vocabulary, histogrammer, options,
                                                     [&](ImageHistograms&& batch) {
                                                       rows += batch.histograms.rows();
                                                       batches.push_back(std::move(batch));
                                                     });
  result.histograms.resize(rows, vocabulary.size());
  Eigen::Index row = 0;
  for (ImageHistograms& batch : batches) {
    result.histograms.middleRows(row, batch.histograms.rows()) = batch.histograms;
    row += batch.histograms.rows();
    batch.histograms = Histograms();
    std::move(batch.names.begin(), batch.names.end(), std::back_inserter(result.names));
    result.descriptor_counts.insert(result.descriptor_counts.end(), batch.descriptor_counts.begin(),
                                    batch.descriptor_counts.end());
    std::move(batch.words.begin(), batch.words.end(), std::back_inserter(result.words));
  }
  return result;
}

ExtractorOptions extractorBeside(ExtractorOptions extractor, const HistogrammerConfig& histograms) {
  if (extractor.surf_backend == SurfBackend::Auto && histograms.backend != Backend::Auto &&
      histograms.backend != Backend::OpenCL)
    extractor.surf_backend = cpuSurfBackend();
  return extractor;
}

}  // namespace bovw
