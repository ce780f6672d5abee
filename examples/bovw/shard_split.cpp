// Contiguous parts of about equal bytes.
#include "shard_split.hpp"

#include <algorithm>
#include <numeric>

namespace bovw::cli {

std::vector<std::size_t> splitBySize(const std::vector<std::uintmax_t>& sizes, std::size_t parts) {
  long double total = std::accumulate(sizes.begin(), sizes.end(), 0.0L);
  const bool by_count = total == 0;
  if (by_count) total = static_cast<long double>(sizes.size());
  std::vector<std::size_t> shard(sizes.size());
  long double before = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const long double size = by_count ? 1.0L : static_cast<long double>(sizes[i]);
    const auto part = static_cast<std::size_t>((before + size / 2) / total * static_cast<long double>(parts));
    shard[i] = std::min(part, parts - 1);
    before += size;
  }
  return shard;
}

}  // namespace bovw::cli
