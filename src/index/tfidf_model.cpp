// TfIdfModel: counts, their checks, the smoothed idf, and merging.
#include <bovw/tfidf_model.hpp>

#include <bovw/error.hpp>

#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace bovw {

namespace {

// Versions are process-wide so that two models never share one unless one is a copy of the other.
std::uint64_t nextVersion() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

std::uint64_t checkedSum(std::uint64_t a, std::uint64_t b, const char* what) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b)
    throw CapacityError(std::string("TF-IDF model: merging overflows ") + what);
  return a + b;
}

}  // namespace

TfIdfModel::TfIdfModel(int words) : version_(nextVersion()) {
  if (words < 1) throw InvalidInput("TF-IDF model: K = " + std::to_string(words) + " words; need at least one");
  document_frequencies_.assign(static_cast<std::size_t>(words), 0);
}

TfIdfModel::TfIdfModel(std::uint64_t images, std::vector<std::uint64_t> document_frequencies)
    : images_(images), document_frequencies_(std::move(document_frequencies)), version_(nextVersion()) {
  if (document_frequencies_.empty()) throw InvalidInput("TF-IDF model: no words; need at least one");
  if (document_frequencies_.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw CapacityError("TF-IDF model: " + std::to_string(document_frequencies_.size()) + " words is too many");
  for (std::size_t w = 0; w < document_frequencies_.size(); ++w)
    if (document_frequencies_[w] > images_)
      throw InvalidInput("TF-IDF model: word " + std::to_string(w) + " is in " +
                         std::to_string(document_frequencies_[w]) + " images, more than the model's N = " +
                         std::to_string(images_));
}

double TfIdfModel::idf(std::size_t word) const {
  return std::log((1.0 + static_cast<double>(images_)) / (1.0 + static_cast<double>(document_frequencies_[word]))) +
         1.0;
}

TfIdfModel& TfIdfModel::operator+=(const TfIdfModel& other) {
  if (other.words() != words())
    throw InvalidInput("TF-IDF model: cannot merge a model of K = " + std::to_string(other.words()) +
                       " words into one of K = " + std::to_string(words()));
  // Checked before anything changes, so a failed merge leaves this model as it was.
  const std::uint64_t images = checkedSum(images_, other.images_, "N");
  for (std::size_t w = 0; w < document_frequencies_.size(); ++w)
    checkedSum(document_frequencies_[w], other.document_frequencies_[w], "a document frequency");
  images_ = images;
  for (std::size_t w = 0; w < document_frequencies_.size(); ++w)
    document_frequencies_[w] += other.document_frequencies_[w];
  version_ = nextVersion();
  return *this;
}

TfIdfModel operator+(TfIdfModel a, const TfIdfModel& b) {
  a += b;
  return a;
}

std::vector<std::uint64_t> TfIdfModel::counts() const {
  std::vector<std::uint64_t> all;
  all.reserve(document_frequencies_.size() + 1);
  all.push_back(images_);
  all.insert(all.end(), document_frequencies_.begin(), document_frequencies_.end());
  return all;
}

TfIdfModel TfIdfModel::fromCounts(const std::vector<std::uint64_t>& counts) {
  if (counts.size() < 2)
    throw InvalidInput("TF-IDF model: " + std::to_string(counts.size()) +
                       " counts; need N and at least one word's document frequency");
  return TfIdfModel(counts.front(), std::vector<std::uint64_t>(counts.begin() + 1, counts.end()));
}

bool operator==(const TfIdfModel& a, const TfIdfModel& b) {
  return a.images_ == b.images_ && a.document_frequencies_ == b.document_frequencies_;
}

}  // namespace bovw
