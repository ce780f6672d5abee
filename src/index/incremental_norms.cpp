// IncrementalNorms: per-image integer moments of the L1 norm, moved by the words whose frequency changed.
#include "index/incremental_norms.hpp"

#include <cmath>

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
  for (std::size_t w = 0; w < data.postings.size(); ++w) {
    const std::int64_t l = fixedLog(model ? model->documentFrequency(w) : data.postings[w].size());
    log_frequency_[w] = l;
    const PostingList& list = data.postings[w];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::int32_t count = list.count(i);
      a0_[list.image(i)] += count;
      a1_[list.image(i)] += static_cast<__int128>(count) * l;
    }
  }
}

void IncrementalNorms::update(const IndexData& data, const std::vector<std::uint32_t>& changed, ImageId first_new) {
  // Removed images keep stale moments: they are in no list, so no query reads them.
  a0_.resize(data.names.size(), 0);
  a1_.resize(data.names.size(), 0);
  for (const std::uint32_t w : changed) {
    const std::int64_t old_l = log_frequency_[w];
    const std::int64_t l = fixedLog(data.postings[w].size());
    log_frequency_[w] = l;
    const PostingList& list = data.postings[w];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const ImageId image = list.image(i);
      if (image >= first_new) {  // a new image: its whole contribution
        a0_[image] += list.count(i);
        a1_[image] += static_cast<__int128>(list.count(i)) * l;
      } else if (l != old_l) {
        a1_[image] += static_cast<__int128>(list.count(i)) * (l - old_l);
      }
    }
  }
}

double IncrementalNorms::offset(std::uint64_t images) { return 1.0 + std::log1p(static_cast<double>(images)); }

double IncrementalNorms::idf(std::size_t word, double offset) const {
  return offset - std::ldexp(static_cast<double>(log_frequency_[word]), -kFraction);
}

double IncrementalNorms::norm(ImageId d, double offset) const {
  return offset * static_cast<double>(a0_[d]) - std::ldexp(static_cast<double>(a1_[d]), -kFraction);
}

}  // namespace bovw::index_detail
