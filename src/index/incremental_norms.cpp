// IncrementalNorms: per-image moments of the TF-IDF norm, moved by the words whose frequency changed.
#include "index/incremental_norms.hpp"

#include <algorithm>
#include <cmath>

namespace bovw::index_detail {

double IncrementalNorms::termPower(std::int32_t count) const {
  const double c = static_cast<double>(count);
  double f = c;
  if (options_.term == TermWeighting::Sqrt) f = std::sqrt(c);
  if (options_.term == TermWeighting::Log) f = 1.0 + std::log(c);
  return cosine_ ? f * f : f;
}

void IncrementalNorms::add(ImageId d, double f, double l, double sign) {
  a0_[d] += sign * f;
  a1_[d] += sign * f * l;
  if (cosine_) a2_[d] += sign * f * l * l;
}

IncrementalNorms::IncrementalNorms(const IndexData& data, const ScoringOptions& options)
    : options_(options), cosine_(options.similarity == Scoring::Cosine) {
  log_frequency_.resize(data.postings.size());
  a0_.assign(data.names.size(), 0.0);
  a1_.assign(data.names.size(), 0.0);
  if (cosine_) a2_.assign(data.names.size(), 0.0);
  for (std::size_t w = 0; w < data.postings.size(); ++w) {
    const double l = std::log1p(static_cast<double>(data.postings[w].size()));
    log_frequency_[w] = l;
    for (const Posting& p : data.postings[w]) add(p.image, termPower(p.count), l, 1.0);
  }
}

void IncrementalNorms::update(const IndexData& data, const std::vector<std::uint32_t>& changed, ImageId first_new) {
  const std::size_t ids = data.names.size();
  // Removed images keep stale moments: they are in no list, so no query reads them.
  a0_.resize(ids, 0.0);
  a1_.resize(ids, 0.0);
  if (cosine_) a2_.resize(ids, 0.0);
  for (const std::uint32_t w : changed) {
    const double old_l = log_frequency_[w];
    const double l = std::log1p(static_cast<double>(data.postings[w].size()));
    log_frequency_[w] = l;
    for (const Posting& p : data.postings[w]) {
      const double f = termPower(p.count);
      if (p.image >= first_new) {
        add(p.image, f, l, 1.0);  // a new image: its whole contribution
      } else if (l != old_l) {
        a1_[p.image] += f * (l - old_l);
        if (cosine_) a2_[p.image] += f * (l * l - old_l * old_l);
      }
    }
  }
}

double IncrementalNorms::norm(ImageId d, std::uint64_t images) const {
  const double c = 1.0 + std::log1p(static_cast<double>(images));
  if (!cosine_) return c * a0_[d] - a1_[d];
  return std::sqrt(std::max(0.0, c * c * a0_[d] - 2.0 * c * a1_[d] + a2_[d]));
}

}  // namespace bovw::index_detail
