// ImageDatabase: the container file around a feature specification, a vocabulary and an inverted
// index (format in docs/FORMATS.md; fields below).
#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/image_database.hpp>

#include "index/index_editor.hpp"
#include "index/top_k.hpp"
#include "io/file_bytes.hpp"
#include "io/file_header.hpp"
#include "io/vocabulary_formats.hpp"
#include "opencl/opencl_resident_signatures.hpp"
#include "retrieval/hamming_scorer.hpp"
#include "retrieval/keypoint_store.hpp"

#include <algorithm>
#include <optional>
#include <sstream>

namespace bovw {

namespace {

// Version 1 had no checksum (its feature settings were checked by nothing) and was written in the
// host's byte order: little-endian on every machine that wrote one, so this reader reads it.
// Version 2 stored SURF or SIFT settings in fixed fields; version 3 the feature spec's text, so that
// any registered kind (ORB, ...) with all its parameters is stored. Version 4 adds the keypoints;
// version 5 their scale and angle (keypoint_store.hpp), for weak geometric consistency.
constexpr detail::BinaryFormat kFormat{"bovw database", {'B', 'O', 'V', 'W', 'D', 'B', '\0', '\0'}, 5, 1, 2};
constexpr std::uint32_t kFirstWithSpecText = 3;
constexpr std::uint32_t kFirstWithKeypoints = 4;
constexpr std::uint32_t kFirstWithScaleAngle = 5;
constexpr std::uint32_t kMaxSpecLength = 4096;

// Version 3, from offset 16:
//   4  u32 S, length of the feature spec
//   S  the spec's canonical text, ASCII (FeatureSpec::toString of the normalised spec)
void writeFeatures(detail::ByteWriter& out, const FeatureSpec& features) {
  const std::string text = features.toString();
  out.u32(static_cast<std::uint32_t>(text.size()));
  out.text(text);
}

FeatureSpec readFeatures(detail::ByteReader& in) {
  const std::uint32_t length = in.u32("the feature spec's length");
  if (length > kMaxSpecLength) in.fail("feature spec of " + std::to_string(length) + " bytes (at most 4096)");
  const std::string text = in.text(length, "the feature spec");
  try {
    return normalizeFeatureSpec(FeatureSpec::parse(text));
  } catch (const InvalidInput& e) {
    in.fail(e.problem());
  }
}

// Versions 1 and 2, from offset 16:
//   4  feature kind (0 SURF, 1 SIFT)
//   8  f64 SURF Hessian threshold
//   4  i32 SURF octaves
//   4  i32 SURF layers per octave
//   4  u32 SURF extended (0 or 1)
//   4  u32 SURF upright (0 or 1)
// SIFT ran with OpenCV's defaults, which its spec's defaults are.
FeatureSpec readFixedFeatures(detail::ByteReader& in) {
  const auto kind = in.u32("the feature kind");
  if (kind > 1) in.fail("unknown feature kind " + std::to_string(kind));
  SurfParams surf;
  surf.hessian_threshold = in.f64("the SURF parameters");
  surf.octaves = in.i32("the SURF parameters");
  surf.octave_layers = in.i32("the SURF parameters");
  auto flag = [&](const char* name) {
    const auto value = in.u32("the SURF parameters");
    if (value > 1) in.fail(std::string("SURF flag '") + name + "' is " + std::to_string(value) + ", not 0 or 1");
    return value == 1;
  };
  surf.extended = flag("extended");
  surf.upright = flag("upright");
  try {
    return kind == 1 ? normalizeFeatureSpec(FeatureSpec("sift")) : surfFeatureSpec(surf);
  } catch (const InvalidInput& e) {
    in.fail(e.problem());
  }
}

// The file's frame, from a few small reads before it is read whole (its checksum covers every
// byte): the header, so that a file that is not a database is refused after 16 bytes, then the
// lengths of the feature spec and of the blocks, which must add up to the file's size exactly.
void checkFrame(detail::InputFile& file) {
  char head[detail::kFileHeaderSize + 4] = {};  // the header and, from version 3, the spec's length
  const auto head_size = static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), sizeof head));
  file.read(head, head_size);
  detail::ByteReader in(head, head_size, file.path(), kFormat.name);
  const std::uint32_t version = detail::readFileHeader(in, kFormat);
  std::uint64_t at = detail::kFileHeaderSize + 28;  // versions 1 and 2: fixed feature settings
  if (version >= kFirstWithSpecText) {
    const std::uint32_t length = in.u32("the feature spec's length");
    if (length > kMaxSpecLength) in.fail("feature spec of " + std::to_string(length) + " bytes (at most 4096)");
    at = detail::kFileHeaderSize + 4 + length;
  }
  const char* names[] = {"the vocabulary", "the index", "the keypoints"};
  for (int block = 0; block < (version >= kFirstWithKeypoints ? 3 : 2); ++block) {
    char field[8];
    if (file.size() < at + sizeof field)
      in.fail(std::string("the file ends before ") + names[block] + "'s length, at byte " + std::to_string(at) +
              " (truncated?)");
    file.seek(at);
    file.read(field, sizeof field);
    const auto length = detail::decodeLittleEndian<std::uint64_t>(reinterpret_cast<const unsigned char*>(field));
    at += sizeof field;
    if (length > file.size() - at)
      in.fail(std::string(names[block]) + " declares " + std::to_string(length) + " bytes, more than the " +
              std::to_string(file.size() - at) + " left in the file");
    at += length;
  }
  const std::uint64_t end = at + (version >= kFormat.first_summed ? detail::kChecksumSize : 0);
  if (end > file.size()) in.fail("the file ends inside its checksum (truncated?)");
  if (end < file.size())
    in.fail(std::to_string(file.size() - end) + " unexpected bytes after the last block (it ends at byte " +
            std::to_string(end) + ")");
}

}  // namespace

ImageDatabase::ImageDatabase(Vocabulary vocabulary, FeatureSpec features, DatabaseOptions options)
    : ImageDatabase(vocabulary, std::move(features), InvertedIndex(vocabulary),
                    options.store_keypoints ? std::make_unique<retrieval_detail::KeypointStore>(vocabulary.size())
                                            : nullptr) {}

ImageDatabase::ImageDatabase(Vocabulary vocabulary, FeatureSpec features, InvertedIndex index,
                             std::unique_ptr<retrieval_detail::KeypointStore> keypoints)
    : vocabulary_(std::move(vocabulary)),
      features_(normalizeFeatureSpec(features)),
      index_(std::move(index)),
      keypoints_(std::move(keypoints)) {
  ExtractorOptions builtin;
  builtin.surf_backend = SurfBackend::Builtin;  // always there; every backend makes the same type
  checkCompatible(vocabulary_, makeExtractor(builtin)->descriptorType());
  index_.checkVocabulary(vocabulary_);
}

ImageDatabase::~ImageDatabase() = default;
ImageDatabase::ImageDatabase(ImageDatabase&&) noexcept = default;
ImageDatabase& ImageDatabase::operator=(ImageDatabase&&) noexcept = default;

ImageId ImageDatabase::add(std::string name, HistogramRef histogram) {
  if (keypoints_)
    throw InvalidInput("image '" + name + "': this database stores keypoints, so it needs the image's words, not only "
                       "its histogram");
  return index_.add(std::move(name), histogram);
}

ImageId ImageDatabase::add(std::string name, const ImageWords& words) {
  const auto histogram = histogramOf(words, vocabulary_.size(), "'" + name + "'");
  if (!keypoints_) return index_.add(std::move(name), histogram);
  retrieval_detail::KeypointStore::StoredImage prepared = keypoints_->prepare(words, name);
  const ImageId id = index_.add(std::move(name), histogram);
  keypoints_->put(id, std::move(prepared));
  return id;
}

void ImageDatabase::remove(const std::string& name) {
  const std::optional<ImageId> id = index_.find(name);
  index_.remove(name);
  if (keypoints_ && id) keypoints_->erase(*id);
}

void ImageDatabase::append(ImageDatabase&& later) {
  if (features_.toString() != later.features_.toString())
    throw InvalidInput("database: cannot append images of features '" + later.features_.toString() + "' to one of '" +
                       features_.toString() + "'");
  if (storesKeypoints() != later.storesKeypoints())
    throw InvalidInput(std::string("database: cannot append a database ") +
                       (later.storesKeypoints() ? "with" : "without") + " keypoints to one " +
                       (storesKeypoints() ? "with" : "without"));
  const ImageId offset = index_.append(std::move(later.index_));
  if (keypoints_) keypoints_->append(std::move(*later.keypoints_), offset);
}

bool ImageDatabase::storesScaleAndAngle() const { return keypoints_ && keypoints_->storesScaleAngles(); }

std::optional<ImageWords> ImageDatabase::keypoints(ImageId id) const {
  if (!keypoints_) return std::nullopt;
  return keypoints_->get(id);
}

std::vector<VerifiedResult> ImageDatabase::verify(const ImageWords& query, const std::vector<SearchResult>& ranking,
                                                  const VerificationOptions& options, VerificationReport* report) const {
  if (!keypoints_)
    throw InvalidInput("this database stores no keypoints, so its results cannot be verified geometrically (index "
                       "the images again with keypoints: bovw index --keypoints)");
  return verifyRanking(query, ranking, [this](ImageId id) { return keypoints_->get(id); }, options, report);
}

void ImageDatabase::scanSignaturesOn(const std::string& device) const {
  if (!keypoints_)
    throw InvalidInput("this database stores no keypoints, so it has no signatures to scan on a device (index the "
                       "images again with keypoints: bovw index --keypoints)");
  keypoints_->keepResident([&](const retrieval_detail::SignaturePostings& postings) {
    return detail::makeResidentSignatures(device, postings);
  });
}

ImageDatabase::SignatureScan ImageDatabase::signatureScan() const {
  if (!keypoints_) return {};
  const auto resident = keypoints_->resident();
  return {resident ? resident->deviceName() : "", keypoints_->residentFailure()};
}

std::vector<SearchResult> ImageDatabase::query(const ImageWords& query, std::size_t top_k,
                                               const ScoringOptions& options) const {
  return queryWith(query, top_k, options, nullptr);
}

std::vector<SearchResult> ImageDatabase::query(const ImageWords& query, std::size_t top_k, const ScoringOptions& options,
                                               const TfIdfModel& global) const {
  return queryWith(query, top_k, options, &global);
}

std::vector<SearchResult> ImageDatabase::queryWith(const ImageWords& query, std::size_t top_k,
                                                   const ScoringOptions& options, const TfIdfModel* global) const {
  const auto histogram = histogramOf(query, vocabulary_.size(), "the query");
  if (options.similarity != Scoring::Hamming)
    return global ? index_.query(histogram, top_k, options, *global) : index_.query(histogram, top_k, options);
  if (!keypoints_)
    throw InvalidInput("this database stores no keypoints, so it cannot score by Hamming embedding (index the "
                       "images again with keypoints: bovw index --keypoints)");
  if (top_k == 0) throw InvalidInput("top_k must be at least 1");
  if (global && global->words() != vocabulary_.size())
    throw InvalidInput("the TF-IDF model has " + std::to_string(global->words()) + " words but the database's "
                       "vocabulary has " + std::to_string(vocabulary_.size()));
  if (options.weak_geometry && !keypoints_->storesScaleAngles())
    throw InvalidInput("this database keeps its keypoints without scale and angle (written before database format "
                       "version 5), so it cannot score by weak geometric consistency (index the images again: bovw "
                       "index --keypoints)");
  const retrieval_detail::HammingScorer scorer(query, global ? *global : index_.model(), options);
  const std::vector<std::pair<ImageId, double>> found = scorer.matchSums(
      keypoints_->signatureLists(scorer.words()), index_.idCount(), keypoints_->resident().get());
  // |d|: the norm of the image's vector under the same weighting and idf, as the index keeps it.
  std::vector<ImageId> ids;
  ids.reserve(found.size());
  for (const auto& f : found) ids.push_back(f.first);
  const ScoringOptions cosine{Scoring::Cosine, options.term, 1.0};
  const std::vector<double> norms = global ? index_.norms(ids, cosine, *global) : index_.norms(ids, cosine);
  std::vector<std::pair<double, ImageId>> scored;
  std::vector<double> scored_norms;  // |d| of scored[i]
  for (std::size_t i = 0; i < found.size(); ++i)
    if (norms[i] > 0) {
      scored.emplace_back(found[i].second / (scorer.queryNorm() * norms[i]), found[i].first);
      scored_norms.push_back(norms[i]);
    }
  using index_detail::better;
  if (options.weak_geometry) {
    std::vector<std::size_t> order(scored.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return better(scored[a], scored[b]); });
    // Phase 2: the WGC score of the candidates in decreasing Hamming score, each at most its Hamming
    // score (hamming_scorer.hpp), until the k-th best WGC score so far beats every candidate left
    // (strictly: equal scores rank by id; 1e-9 covers the sums' rounding): the top k of scoring them all.
    index_detail::TopK best(top_k);
    for (const std::size_t i : order) {
      if (best.full() && best.worst().first > scored[i].first * (1 + 1e-9)) break;
      const ImageId id = scored[i].second;
      double sum = 0;
      // An image removed since phase 1 drops out, as it would a moment later.
      if (!keypoints_->visit(id, [&](const auto& image) { sum = scorer.weakGeometrySum(image); })) continue;
      const double score = sum / (scorer.queryNorm() * scored_norms[i]);
      if (score > 0) best.offer(score, id);
    }
    scored = best.ranked();
  }
  // The best top_k in order, sorted a top_k at a time (a search scores tens of thousands of images;
  // sorting them all was a tenth of a Hamming search): [0, sorted) holds the best, in order.
  std::size_t sorted = 0;
  std::vector<SearchResult> ranking;
  for (std::size_t i = 0; i < scored.size() && ranking.size() < top_k; ++i) {
    if (i == sorted) {
      sorted = std::min(scored.size(), sorted + top_k);
      std::partial_sort(scored.begin() + static_cast<std::ptrdiff_t>(i),
                        scored.begin() + static_cast<std::ptrdiff_t>(sorted), scored.end(), better);
    }
    const auto& [score, id] = scored[i];
    try {
      ranking.push_back({id, index_.name(id), score});
    } catch (const InvalidInput&) {
      // Removed by another thread since its norm was read: it drops out, as it would a moment later.
    }
  }
  return ranking;
}

std::unique_ptr<FeatureExtractor> ImageDatabase::makeExtractor(const ExtractorOptions& options) const {
  return makeFeatureExtractor(features_, options);
}

void ImageDatabase::save(const std::string& path) const {
  writeFileAtomically(path, [this](std::ostream& out) { write(out); });
}

// The index and keypoint blocks are streamed into the file as they are made, never held whole in
// memory: each went to a string stream first, then was copied into the file (38,400 images of 700
// words at K = 1,000: 1.35-1.48 s to save, 0.32-0.34 s now, on the 2-core VM).
void ImageDatabase::write(std::ostream& out) const {
  std::ostringstream vocabulary;
  detail::writeVocabularyBinary(vocabulary, vocabulary_);
  detail::ByteWriter w(out);
  detail::writeFileHeader(w, kFormat);
  writeFeatures(w, features_);
  const std::string vocabulary_block = vocabulary.str();
  w.u64(vocabulary_block.size());
  w.text(vocabulary_block);
  index_detail::IndexEditor::writeBlock(index_, w);
  if (keypoints_) keypoints_->writeBlock(w);
  else w.u64(0);
  w.checksum();
}

ImageDatabase ImageDatabase::load(const std::string& path) {
  detail::InputFile file(path);
  checkFrame(file);
  file.seek(0);
  const std::vector<char> bytes = file.readRest();
  detail::ByteReader r(bytes.data(), bytes.size(), path, kFormat.name);
  const std::uint32_t version = detail::readFileHeader(r, kFormat);
  if (version >= kFormat.first_summed) detail::readTrailingChecksum(r);
  const FeatureSpec features = version >= kFirstWithSpecText ? readFeatures(r) : readFixedFeatures(r);
  const std::uint64_t vocabulary_length = r.u64("the vocabulary's length");
  const char* vocabulary_bytes = r.take(vocabulary_length, "the vocabulary");
  const std::uint64_t index_length = r.u64("the index's length");
  const char* index_bytes = r.take(index_length, "the index");
  std::uint64_t keypoints_length = 0;
  const char* keypoint_bytes = nullptr;
  if (version >= kFirstWithKeypoints) {
    keypoints_length = r.u64("the keypoints' length");
    keypoint_bytes = r.take(keypoints_length, "the keypoints");
  }
  if (r.remaining() != 0) r.fail("unexpected bytes after the last block");
  Vocabulary vocabulary =
      detail::decodeVocabularyBinary(vocabulary_bytes, vocabulary_length, path + " (vocabulary)");
  // The index is checked against the vocabulary beside it as soon as its header is read: an index
  // declaring 2^24 words beside a vocabulary of 4 is refused before 2^24 posting lists are made.
  std::optional<InvertedIndex> index;
  try {
    index.emplace(InvertedIndex::read(std::vector<char>(index_bytes, index_bytes + index_length),
                                      path + " (index)", VocabularySignature::of(vocabulary)));
  } catch (const InvalidInput& e) {
    if (!e.files().empty()) throw;
    r.fail(e.problem());
  }
  std::unique_ptr<retrieval_detail::KeypointStore> keypoints;
  if (keypoints_length > 0) {
    detail::ByteReader block(keypoint_bytes, keypoints_length, path + " (keypoints)", kFormat.name);
    keypoints = std::make_unique<retrieval_detail::KeypointStore>(
        retrieval_detail::KeypointStore::read(block, *index, version >= kFirstWithScaleAngle));
    if (block.remaining() != 0) block.fail("unexpected bytes after the keypoints");
  }
  try {
    return ImageDatabase(std::move(vocabulary), features, std::move(*index), std::move(keypoints));
  } catch (const InvalidInput& e) {
    r.fail(e.problem());
  }
}

}  // namespace bovw
