// The SurfExtractor implementations behind surf::makeSurfExtractor.
#pragma once

#include "surf_extractor.hpp"

#include <memory>
#include <string>

namespace bovw::surf {

std::unique_ptr<SurfExtractor> makeBuiltinSurf(const SurfParams& params);

// Only in builds with BOVW_HAVE_OPENCV_SURF.
std::unique_ptr<SurfExtractor> makeOpenCvSurf(const SurfParams& params);

// All stages on the OpenCL device `device` resolves to (opencl/opencl_surf.cpp); its device seam
// (opencl/device_features.hpp) lets the fused route run its batches on a histogrammer's queue.
std::unique_ptr<SurfExtractor> makeOpenClSurf(const SurfParams& params, const std::string& device);

}  // namespace bovw::surf
