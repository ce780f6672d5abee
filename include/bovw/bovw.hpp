// Everything an application of bovw uses, in one include: the version, the errors every call
// throws, descriptors and vocabularies, the histogrammers, k-means, the inverted index and, in a
// build with OpenCV (BOVW_WITH_OPENCV), features, images and retrieval with its front door,
// ImageSearch. bovw/mpi_communicator.hpp (link bovw::bovw_mpi) and the helpers of the bovw program
// (work splits, rank agreement, histogram exchange) are included by name where they are wanted.
#pragma once

#include <bovw/version.hpp>

#include <bovw/descriptor_type.hpp>
#include <bovw/descriptors.hpp>
#include <bovw/device.hpp>
#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>
#include <bovw/image_names.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/npy.hpp>
#include <bovw/pinned_descriptors.hpp>
#include <bovw/retrieval_metrics.hpp>
#include <bovw/scoring.hpp>
#include <bovw/tfidf_model.hpp>
#include <bovw/vocabulary.hpp>
#include <bovw/vocabulary_io.hpp>

#if BOVW_WITH_OPENCV
#include <bovw/feature_extractor.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/feature_spec.hpp>
#include <bovw/geometric_verification.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/image_search.hpp>
#include <bovw/image_words.hpp>
#include <bovw/live_database.hpp>
#include <bovw/query_expansion.hpp>
#include <bovw/sharded_database.hpp>
#include <bovw/surf.hpp>
#endif
