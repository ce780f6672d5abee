// Contiguous parts of an image list by bytes, cut on rank 0 and shared.
#include "rank_part.hpp"

#include "shard_split.hpp"

#include <algorithm>
#include <filesystem>

namespace bovw::cli {

ImageRange rankPart(const std::vector<std::string>& images, Communicator& ranks) {
  const auto parts = static_cast<std::size_t>(ranks.size());
  // cuts[r] = the first image of rank r; every rank but 0 contributes zeros to the sum.
  std::vector<std::int64_t> cuts(parts + 1, 0);
  if (ranks.rank() == 0) {
    std::vector<std::uintmax_t> sizes;
    for (const std::string& image : images) {
      std::error_code error;  // an unreadable file counts as empty here and fails when it is read
      const std::uintmax_t size = std::filesystem::file_size(image, error);
      sizes.push_back(error ? 0 : size);
    }
    const std::vector<std::size_t> part_of = splitBySize(sizes, parts);
    for (std::size_t r = 0; r <= parts; ++r)
      cuts[r] = static_cast<std::int64_t>(std::lower_bound(part_of.begin(), part_of.end(), r) - part_of.begin());
  }
  ranks.sum(cuts.data(), cuts.size());
  const auto rank = static_cast<std::size_t>(ranks.rank());
  return {static_cast<std::size_t>(cuts[rank]), static_cast<std::size_t>(cuts[rank + 1])};
}

}  // namespace bovw::cli
