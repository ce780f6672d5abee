// Images to histograms with SURF and the histogram search on one OpenCL device: the workers only
// decode (on all cores, a batch ahead), each device batch of many images runs SURF's stages and then
// the histogram kernel on the histogrammer's own queue, and the descriptors never leave the device;
// only the histograms, the descriptor counts and, for PipelineOptions::keep_words, the keypoints,
// words and descriptors (for their signatures) come back.
#pragma once

#include <bovw/histogrammer.hpp>
#include <bovw/image_pipeline.hpp>

#include <string>
#include <vector>

namespace bovw::detail {

// When options.fused_device is set and both sides of the device seam meet (`extractor` computes its
// features on an OpenCL device, SURF's OpenCL backend, and `histogrammer` searches on the same one):
// hands each pipeline batch's results to `finished` as histogramImagesInBatches does (the same
// histograms, counts and words), sets `failures` and returns true. Otherwise returns false and does
// nothing.
bool histogramImagesOnDevice(const std::vector<std::string>& paths, const FeatureExtractor& extractor,
                             const Vocabulary& vocabulary, Histogrammer& histogrammer,
                             const PipelineOptions& options, const HistogramConsumer& finished,
                             std::vector<ImageFailure>& failures);

}  // namespace bovw::detail
