// The segments of an index's posting lists (index_data.hpp).
#include "index/index_data.hpp"

#include <algorithm>

namespace bovw::index_detail {

std::uint64_t IndexData::postingCount() const {
  std::uint64_t n = 0;
  forEachList([&](std::size_t, const PostingList& list) { n += list.size(); });
  return n;
}

const Segment& IndexData::segmentOf(ImageId id) const {
  // The last segment whose first id is at most `id` (the first's is 0).
  const auto after = std::upper_bound(segments.begin() + 1, segments.end(), id,
                                      [](ImageId image, const Segment& s) { return image < s.first; });
  return *(after - 1);
}

std::vector<PostingList>& IndexData::growing(ImageId first) {
  if (segments.back().sealed) {
    Segment added;
    added.first = first;
    added.lists.resize(words());
    segments.push_back(std::move(added));
  }
  return segments.back().lists;
}

PostingList IndexData::merged(std::size_t w) const {
  PostingList list;
  list.reserve(frequency(w));
  for (const Segment& s : segments) s.lists[w].forEach([&](ImageId image, std::int32_t count) { list.push_back(image, count); });
  list.adapt(names.size());
  return list;
}

}  // namespace bovw::index_detail
