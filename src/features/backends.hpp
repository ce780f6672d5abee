// The SurfExtractor implementations behind SurfExtractor::create.
#pragma once

#include <bovw/surf.hpp>

#include <memory>
#include <string>

namespace bovw::surf {

std::unique_ptr<SurfExtractor> makeBuiltinSurf(const SurfParams& params);

// Only in builds with BOVW_HAVE_OPENCV_SURF.
std::unique_ptr<SurfExtractor> makeOpenCvSurf(const SurfParams& params);

// All stages on the OpenCL device `device` resolves to (opencl/opencl_surf.cpp).
std::unique_ptr<SurfExtractor> makeOpenClSurf(const SurfParams& params, const std::string& device);

}  // namespace bovw::surf
