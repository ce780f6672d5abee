// IncrementalNorms: per-image integer moments of the L1 norm, moved by the words whose frequency changed.
#include "index/incremental_norms.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace bovw::index_detail {

namespace {

constexpr int kFraction = 52;  // bits after the point of l_w: ln(1 + 2^32) < 23 fits 63 bits

std::int64_t fixedLog(std::size_t frequency) {
  return std::llround(std::ldexp(std::log1p(static_cast<double>(frequency)), kFraction));
}

}  // namespace

IncrementalNorms::IncrementalNorms(const IndexData& data, const ScoringOptions& options, const TfIdfModel* model)
    : options_(options) {
  log_frequency_.resize(data.postings.size());
  a0_.assign(data.names.size(), 0);
  a1_.assign(data.names.size(), 0);
  for (std::size_t w = 0; w < data.postings.size(); ++w)
    log_frequency_[w] = fixedLog(model ? model->documentFrequency(w) : data.postings[w].size());
  forEachPostingByImageBlock(data.postings, data.names.size(), [&](std::size_t w, ImageId image, std::int32_t count) {
    a0_[image] += count;
    a1_[image] += static_cast<__int128>(count) * log_frequency_[w];
  });
}

IncrementalNorms IncrementalNorms::after(const IndexData& data, const IndexChange& change) const {
  IncrementalNorms next(*this);
  next.a0_.resize(change.next_id, 0);
  next.a1_.resize(change.next_id, 0);
  std::vector<char> removed;  // by id, only when there are removals
  if (!change.removed.empty()) removed.assign(data.names.size(), 0);
  for (const ImageId id : change.removed) {
    removed[id] = 1;
    next.a0_[id] = 0;
    next.a1_[id] = 0;
  }
  // The net change of each word's document frequency.
  std::vector<std::pair<std::uint32_t, std::int64_t>> delta;
  for (const auto& words : change.removed_words)
    for (const std::uint32_t w : words) delta.emplace_back(w, -1);
  for (const SparseImage& image : change.added)
    for (const WordCount& w : image.words) delta.emplace_back(w.word, 1);
  std::sort(delta.begin(), delta.end());
  for (std::size_t i = 0; i < delta.size();) {
    const std::uint32_t w = delta[i].first;
    std::int64_t net = 0;
    for (; i < delta.size() && delta[i].first == w; ++i) net += delta[i].second;
    const PostingList& list = data.postings[w];
    const std::int64_t old_l = log_frequency_[w];
    const std::int64_t l = fixedLog(static_cast<std::size_t>(static_cast<std::int64_t>(list.size()) + net));
    next.log_frequency_[w] = l;
    if (l == old_l) continue;
    list.forEach([&](ImageId image, std::int32_t count) {
      if (removed.empty() || !removed[image]) next.a1_[image] += static_cast<__int128>(count) * (l - old_l);
    });
  }
  for (const SparseImage& image : change.added)
    for (const WordCount& w : image.words) {
      next.a0_[image.id] += w.count;
      next.a1_[image.id] += static_cast<__int128>(w.count) * next.log_frequency_[w.word];
    }
  return next;
}

double IncrementalNorms::offset(std::uint64_t images) { return 1.0 + std::log1p(static_cast<double>(images)); }

double IncrementalNorms::idf(std::size_t word, double offset) const {
  return offset - std::ldexp(static_cast<double>(log_frequency_[word]), -kFraction);
}

double IncrementalNorms::norm(ImageId d, double offset) const {
  return offset * static_cast<double>(a0_[d]) - std::ldexp(static_cast<double>(a1_[d]), -kFraction);
}

}  // namespace bovw::index_detail
