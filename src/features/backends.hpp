// The SurfExtractor implementations behind SurfExtractor::create.
#pragma once

#include <bovw/surf.hpp>

#include <memory>
#include <string>

namespace bovw {
class FeatureExtractor;
namespace detail {
class DeviceContext;
}
}  // namespace bovw

namespace bovw::surf {

std::unique_ptr<SurfExtractor> makeBuiltinSurf(const SurfParams& params);

// Only in builds with BOVW_HAVE_OPENCV_SURF.
std::unique_ptr<SurfExtractor> makeOpenCvSurf(const SurfParams& params);

// All stages on the OpenCL device `device` resolves to (opencl/opencl_surf.cpp).
std::unique_ptr<SurfExtractor> makeOpenClSurf(const SurfParams& params, const std::string& device);

// True when `surf` is the OpenCL backend on `device`'s device: its batches may then run on that
// context's queue (the fused images-to-histograms path).
bool runsOnDevice(const SurfExtractor& surf, const detail::DeviceContext& device);

// The SurfExtractor behind a FeatureExtractor the registry made for "surf"; null for other kinds.
const SurfExtractor* surfExtractorOf(const FeatureExtractor& extractor);

}  // namespace bovw::surf
