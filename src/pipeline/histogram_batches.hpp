// histogramImages batch by batch: each pipeline batch's results handed on as soon as they are
// final, so that a caller can send or store them while the next batches are computed (a rank of a
// distributed index streams them to rank 0, src/pipeline/result_stream.hpp).
#pragma once

#include <bovw/image_pipeline.hpp>

#include <functional>
#include <string>
#include <vector>

namespace bovw::detail {

// The results of consecutive images that succeeded (names, histograms, descriptor counts and, with
// keep_words, words); its failures are empty (they come back at the end, all together).
using FinishedBatch = std::function<void(ImageHistograms&& batch)>;

// What histogramImages computes, handed to `finished` on the calling thread batch by batch in input
// order (together, the batches are histogramImages' images); returns the failures in input order.
std::vector<ImageFailure> histogramImagesInBatches(const std::vector<std::string>& paths,
                                                   const FeatureExtractor& extractor, const Vocabulary& vocabulary,
                                                   Histogrammer& histogrammer, const PipelineOptions& options,
                                                   const FinishedBatch& finished);

}  // namespace bovw::detail
