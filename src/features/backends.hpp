// The SurfExtractor implementations behind SurfExtractor::create.
#pragma once

#include <bovw/surf.hpp>

#include <memory>

namespace bovw::surf {

std::unique_ptr<SurfExtractor> makeBuiltinSurf(const SurfParams& params);

// Only in builds with BOVW_HAVE_OPENCV_SURF.
std::unique_ptr<SurfExtractor> makeOpenCvSurf(const SurfParams& params);

}  // namespace bovw::surf
