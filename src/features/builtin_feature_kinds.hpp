// The feature kinds every registry starts with, one file each (surf_features.cpp, ...). Adding a
// built-in kind is one such function and one line in feature_registry.cpp.
#pragma once

#include <bovw/feature_registry.hpp>

namespace bovw::detail {

FeatureKind surfFeatureKind();
FeatureKind siftFeatureKind();
FeatureKind orbFeatureKind();

}  // namespace bovw::detail
