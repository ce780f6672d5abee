// SignaturePostings: keeping each word's features in image id order as images come and go.
#include "retrieval/signature_postings.hpp"

#include <algorithm>

namespace bovw::retrieval_detail {

void SignaturePostings::insert(ImageId id, std::uint32_t word, const std::uint64_t* signatures, std::size_t count) {
  std::vector<ImageId>& ids = ids_[word];
  std::vector<std::uint64_t>& list = signatures_[word];
  const auto at = std::upper_bound(ids.begin(), ids.end(), id) - ids.begin();
  ids.insert(ids.begin() + at, count, id);
  list.insert(list.begin() + at, signatures, signatures + count);
}

void SignaturePostings::erase(ImageId id, std::uint32_t word) {
  std::vector<ImageId>& ids = ids_[word];
  std::vector<std::uint64_t>& list = signatures_[word];
  const auto [first, last] = std::equal_range(ids.begin(), ids.end(), id);
  const auto begin = first - ids.begin(), end = last - ids.begin();
  ids.erase(first, last);
  list.erase(list.begin() + begin, list.begin() + end);
}

}  // namespace bovw::retrieval_detail
