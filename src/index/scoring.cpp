// Scoring options: their check and their canonical text form.
#include <bovw/scoring.hpp>

#include <bovw/error.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <system_error>
#include <utility>
#include <vector>

namespace bovw {

namespace {

constexpr std::array<std::pair<Scoring, std::string_view>, 3> kScoringNames{
    {{Scoring::Cosine, "cosine"}, {Scoring::Intersection, "intersection"}, {Scoring::Hamming, "hamming"}}};
constexpr std::array<std::pair<TermWeighting, std::string_view>, 3> kTermNames{
    {{TermWeighting::Count, "count"}, {TermWeighting::Sqrt, "sqrt"}, {TermWeighting::Log, "log"}}};
constexpr std::string_view kPowerPrefix = "power";
constexpr std::string_view kWeakGeometry = "wgc";

const std::string kValidForms =
    "SIMILARITY[+TERM][+wgc][+powerALPHA] with SIMILARITY cosine, intersection or hamming[BITS] (Hamming embedding, "
    "BITS 0 to 64, no power), TERM sqrt or log (count, the default, is left out), wgc (weak geometric consistency, "
    "hamming only), ALPHA in (0, 1] (1, the default, is left out); e.g. intersection, cosine+sqrt, "
    "intersection+power0.5, cosine+log+power0.3, hamming24+sqrt, hamming20+log+wgc";

// The shortest decimal that reads back as the same double, so that toString/parse round-trip.
std::string shortest(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::vector<std::string_view> splitAtPlus(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t plus = text.find('+', start);
    parts.push_back(text.substr(start, plus == std::string_view::npos ? std::string_view::npos : plus - start));
    if (plus == std::string_view::npos) return parts;
    start = plus + 1;
  }
}

}  // namespace

bool operator==(const ScoringOptions& a, const ScoringOptions& b) {
  return a.similarity == b.similarity && a.term == b.term && a.power == b.power &&
         (a.similarity != Scoring::Hamming ||
          (a.hamming_threshold == b.hamming_threshold && a.weak_geometry == b.weak_geometry));
}

bool operator!=(const ScoringOptions& a, const ScoringOptions& b) { return !(a == b); }

void checkScoringOptions(const ScoringOptions& options) {
  if (!(options.power > 0.0 && options.power <= 1.0))  // also refuses NaN
    throw InvalidInput("power-law exponent alpha = " + shortest(options.power) +
                       " is not in (0, 1] (1: no power-law normalisation)");
  if (options.similarity != Scoring::Hamming) {
    if (options.weak_geometry)
      throw InvalidInput("weak geometric consistency weighs matched features, which only Hamming-embedding scoring "
                         "has: use hamming[BITS][+TERM]+wgc, not " + std::string(toString(options.similarity)));
    return;
  }
  if (options.hamming_threshold < 0 || options.hamming_threshold > 64)
    throw InvalidInput("Hamming-embedding threshold " + std::to_string(options.hamming_threshold) +
                       " is not in [0, 64] (bits of a signature)");
  if (options.power != 1.0)
    throw InvalidInput("Hamming embedding scores features, not a vector of words: power-law exponent " +
                       shortest(options.power) + " has nothing to apply to (leave it at 1)");
}

std::string_view toString(Scoring scoring) {
  for (const auto& [value, name] : kScoringNames)
    if (value == scoring) return name;
  return "unknown";
}

Scoring parseScoring(std::string_view name) {
  std::string valid;
  for (const auto& [value, n] : kScoringNames) {
    if (n == name) return value;
    valid += (valid.empty() ? "" : ", ") + std::string(n);
  }
  throw InvalidInput("unknown scoring '" + std::string(name) + "'; valid: " + valid);
}

std::string_view toString(TermWeighting term) {
  for (const auto& [value, name] : kTermNames)
    if (value == term) return name;
  return "unknown";
}

std::string toString(const ScoringOptions& options) {
  std::string text(toString(options.similarity));
  if (options.similarity == Scoring::Hamming) text += std::to_string(options.hamming_threshold);
  if (options.term != TermWeighting::Count) text += "+" + std::string(toString(options.term));
  if (options.similarity == Scoring::Hamming && options.weak_geometry) text += "+" + std::string(kWeakGeometry);
  if (options.power != 1.0) text += "+" + std::string(kPowerPrefix) + shortest(options.power);
  return text;
}

ScoringOptions parseScoringOptions(std::string_view text) {
  const auto unknown = [&] {
    return InvalidInput("unknown scoring '" + std::string(text) + "'; valid: " + kValidForms);
  };
  const auto checked = [&](const ScoringOptions& options) {
    try {
      checkScoringOptions(options);
    } catch (const InvalidInput& e) {
      throw InvalidInput("scoring '" + std::string(text) + "': " + e.problem());
    }
  };
  const std::vector<std::string_view> parts = splitAtPlus(text);
  ScoringOptions options;
  std::size_t next = 0;
  // Hamming embedding carries its threshold in its name: "hamming24" ("hamming": the default).
  std::string_view name = parts[next];
  const std::string_view hamming = toString(Scoring::Hamming);
  if (name.substr(0, hamming.size()) == hamming && name.size() > hamming.size()) {
    const std::string_view bits = name.substr(hamming.size());
    const auto [end, error] = std::from_chars(bits.data(), bits.data() + bits.size(), options.hamming_threshold);
    if (error != std::errc() || end != bits.data() + bits.size()) throw unknown();
    name = hamming;
  }
  const auto similarity = std::find_if(kScoringNames.begin(), kScoringNames.end(),
                                       [&](const auto& entry) { return entry.second == name; });
  if (similarity == kScoringNames.end()) throw unknown();
  options.similarity = similarity->first;
  ++next;
  // count is the default and has no spelling of its own: one text per option set.
  if (next < parts.size() && (parts[next] == "sqrt" || parts[next] == "log")) {
    options.term = parts[next] == "sqrt" ? TermWeighting::Sqrt : TermWeighting::Log;
    ++next;
  }
  if (next < parts.size() && parts[next] == kWeakGeometry) {
    options.weak_geometry = true;
    ++next;
  }
  if (next < parts.size() && parts[next].substr(0, kPowerPrefix.size()) == kPowerPrefix) {
    const std::string_view number = parts[next].substr(kPowerPrefix.size());
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), options.power);
    if (number.empty() || error != std::errc() || end != number.data() + number.size()) throw unknown();
    ++next;
  }
  if (next != parts.size()) throw unknown();
  checked(options);
  return options;
}

}  // namespace bovw
