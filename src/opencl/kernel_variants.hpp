// What distinguishes the chapter's five kernel variants on the host side: which program, which
// layout, which memory they need. Everything else (transpose, chunked launch) is chapter_search.cpp's.
#pragma once

#include <bovw/histogrammer.hpp>

namespace bovw::detail {

struct VariantTraits {
  const char* file;         // kernels/<file>.cl
  const char* kernel;       // kernel function name
  const char* defines;      // variant-selecting -D options
  bool transposed;          // reads D x N descriptors produced by transpose.cl
  bool local_descriptors;   // stages WG x D floats in local memory
  bool constant_centroids;  // centroids in __constant memory, in chunks that fit
};

inline VariantTraits traitsOf(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::Baseline:
      return {"scalar", "histogram_scalar", "-DBOVW_TRANSPOSED=0", false, false, false};
    case KernelVariant::Coalesced:
      return {"scalar", "histogram_scalar", "-DBOVW_TRANSPOSED=1 -DBOVW_PRIVATE_COPY=1", true, false, false};
    case KernelVariant::Float4:
      return {"float4", "histogram_float4", "", true, false, false};
    case KernelVariant::LocalDescriptors:
      return {"local_descriptors", "histogram_local", "-DBOVW_CONSTANT_CENTROIDS=0", true, true, false};
    case KernelVariant::ConstantCentroids:
      return {"local_descriptors", "histogram_local", "-DBOVW_CONSTANT_CENTROIDS=1", true, true, true};
    case KernelVariant::Tiled:  // not chapter variants: tiled_search.cpp, tensor_core_search.cpp
    case KernelVariant::TiledTF32:
    case KernelVariant::TiledFP16:
    case KernelVariant::Auto:   // resolved before a search is made
      break;
  }
  return {"scalar", "histogram_scalar", "", false, false, false};
}

}  // namespace bovw::detail
