// sampleFolder: the training sample of a folder over the ranks of a job. The folder is listed once
// (by rank 0, inside an agreement, so that a folder that cannot be listed fails every rank alike)
// and split into contiguous parts of about equal bytes, in rank order: the sample's global order,
// so that the ranks' rows make up the one-process sample exactly.
#include <bovw/error.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/rank_agreement.hpp>

#include "distributed/work_split.hpp"

#include <algorithm>

namespace bovw {

FolderSample sampleFolder(Communicator& ranks, const std::string& folder, const FeatureExtractor& extractor,
                          std::int64_t max_descriptors, unsigned long long seed, const PipelineOptions& options) {
  FileList list;
  everyRankOrNone(ranks, [&] {
    if (ranks.rank() == 0) list = withFileSizes(listImages(folder));
  });
  list = broadcastFileList(ranks, list);
  if (list.paths.empty()) throw InvalidInput("'" + folder + "' holds no image files");  // on every rank alike
  const std::vector<std::size_t> part_of = splitBySize(list.sizes, static_cast<std::size_t>(ranks.size()));
  // This rank's first image: the number of images in the parts of the ranks before it.
  const auto first = static_cast<std::int64_t>(
      std::lower_bound(part_of.begin(), part_of.end(), static_cast<std::size_t>(ranks.rank())) - part_of.begin());
  FolderSample result;
  result.images = static_cast<std::int64_t>(list.paths.size());
  result.sample = sampleDescriptors(filesOfRank(list, part_of, ranks.size(), ranks.rank()), first, extractor,
                                    max_descriptors, seed, options, ranks);
  result.failed = sumOverRanks(ranks, static_cast<std::int64_t>(result.sample.failures.size()));
  return result;
}

}  // namespace bovw
