// Hierarchical k-means, trainVocabulary's mode for KMeansOptions::branching >= 2 (bovw/kmeans.hpp
// describes the tree it builds).
#pragma once

#include <bovw/kmeans.hpp>

namespace bovw::detail {

// Called by trainVocabulary after it has validated K and the sample; validates the branching.
Vocabulary trainVocabularyTree(DescriptorsRef sample, const KMeansOptions& options);

}  // namespace bovw::detail
