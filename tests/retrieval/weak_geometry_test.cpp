// Weak geometric consistency (ScoringOptions::weak_geometry): a database's scores against a float64
// recomputation of the definition over every pair of features, the bounds WGC <= Hamming <= cosine,
// pairs of one rotation and scale beating as many pairs of random geometry, the keypoints' scale and
// angle through save/load and a live database's records, a version-4 file (no scale or angle) that
// loads and is refused for WGC naming the file, and the text form.
#include "support/retrieval_test_support.hpp"

#include "live/image_record.hpp"
#include "retrieval/database_editor.hpp"
#include "retrieval/hamming_scorer.hpp"
#include "support/resealing.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_search.hpp>
#include <bovw/scoring.hpp>

#include <bitset>
#include <cmath>
#include <cstring>
#include <map>
#include <random>

namespace bovw::test {
namespace {

using retrieval_detail::HammingScorer;

constexpr int kSide = 500;
const std::string kFormats = std::string(BOVW_TEST_DATA) + "/formats/";

struct Collection {
  Vocabulary vocabulary;
  std::vector<ImageWords> images;
  ImageWords query;
};

// Random images over few words (bursts within an image and words shared across images). Each image
// takes some of the query's features with a few signature bits flipped; half of those are seen
// through one rotation and scale of the image (with a little noise), the rest and the image's own
// features have random sizes and angles.
Collection randomCollection(std::mt19937_64& rng, int words, int images) {
  Collection c{Vocabulary(randomMatrix(rng, words, 64), DescriptorType::parse("surf64")), {}, {}};
  std::uniform_int_distribution<std::int32_t> word(0, words - 1);
  std::uniform_real_distribution<float> anywhere(0.0f, kSide - 1.0f), angle(0.0f, 359.9f), octaves(0.5f, 7.5f),
      noise(-3.0f, 3.0f);
  const auto feature = [&](ImageWords& image, std::int32_t w, std::uint64_t signature, float size, float degrees) {
    image.points.emplace_back(anywhere(rng), anywhere(rng));
    image.words.push_back(w);
    image.signatures.push_back(signature);
    image.sizes.push_back(size);
    image.angles.push_back(degrees);
  };
  c.query.image_size = {kSide, kSide};
  for (int i = 0; i < 60; ++i) feature(c.query, word(rng), rng(), std::exp2(octaves(rng)), angle(rng));
  for (int n = 0; n < images; ++n) {
    ImageWords image;
    image.image_size = {kSide, kSide};
    const float rotation = angle(rng), scale = std::exp2(octaves(rng) - 4.0f);
    const int shared = static_cast<int>(rng() % 40), own = 5 + static_cast<int>(rng() % 50);
    for (int i = 0; i < shared; ++i) {
      const std::size_t from = rng() % c.query.words.size();
      std::uint64_t signature = c.query.signatures[from];
      for (int flips = static_cast<int>(rng() % 30); flips > 0; --flips) signature ^= std::uint64_t{1} << (rng() % 64);
      if (i % 2 == 0)
        feature(image, c.query.words[from], signature, c.query.sizes[from] * scale * std::exp2(noise(rng) / 16),
                std::fmod(c.query.angles[from] + rotation + noise(rng) + 360.0f, 360.0f));
      else
        feature(image, c.query.words[from], signature, std::exp2(octaves(rng)), angle(rng));
    }
    for (int i = 0; i < own; ++i) feature(image, word(rng), rng(), std::exp2(octaves(rng)), angle(rng));
    c.images.push_back(image);
  }
  return c;
}

ImageDatabase databaseOf(const Collection& c) {
  ImageDatabase database(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  for (std::size_t n = 0; n < c.images.size(); ++n) database.add("image" + std::to_string(n), c.images[n]);
  return database;
}

double termWeight(TermWeighting term, double count) {
  return term == TermWeighting::Sqrt ? std::sqrt(count) : term == TermWeighting::Log ? 1 + std::log(count) : count;
}

// The quantisation of keypoint_store.hpp, written again: 1/16 octave, 256 steps of the circle.
int logScaleStep(float size) {
  return size <= 1.0f ? 0 : std::min(255, static_cast<int>(std::lround(16 * std::log2(size))));
}
int angleStep(float degrees) { return degrees < 0 ? 0 : static_cast<int>(std::lround(degrees * 256.0 / 360.0)) % 256; }

// The definition (scoring.hpp, hamming_scorer.hpp) straight from the features: every pair's term
// with its matches counted again for every pair; the Hamming score is their sum, the WGC score the
// smaller of the best three-bin windows of their angle-difference and log-scale-difference
// histograms.
struct Reference {
  double hamming = 0, wgc = 0;
};

Reference referenceScore(const ImageWords& query, const ImageWords& image, const std::vector<ImageWords>& all,
                         const ScoringOptions& options) {
  const auto counts = [](const ImageWords& x) {
    std::map<int, double> c;
    for (int w : x.words) ++c[w];
    return c;
  };
  std::map<int, double> idfs;  // computed once per word
  const auto idf = [&](int w) {
    if (!idfs.count(w)) {
      double n = 0;
      for (const ImageWords& x : all) n += counts(x).count(w) ? 1 : 0;
      idfs[w] = std::log((1.0 + static_cast<double>(all.size())) / (1.0 + n)) + 1.0;
    }
    return idfs[w];
  };
  const auto norm = [&](const ImageWords& x) {
    double sum = 0;
    for (const auto& [w, c] : counts(x)) sum += std::pow(termWeight(options.term, c) * idf(w), 2);
    return std::sqrt(sum);
  };
  const auto cq = counts(query), cd = counts(image);
  const double norms = norm(query) * norm(image);
  const auto distance = [&](std::size_t a, std::size_t b) {
    return static_cast<int>(std::bitset<64>(query.signatures[a] ^ image.signatures[b]).count());
  };
  const auto matches = [&](std::size_t a, std::size_t b) {
    return query.words[a] == image.words[b] && distance(a, b) <= options.hamming_threshold;
  };
  std::vector<double> angles(HammingScorer::kAngleBins), scales(HammingScorer::kLogScaleBins);
  Reference r;
  for (std::size_t a = 0; a < query.words.size(); ++a)
    for (std::size_t b = 0; b < image.words.size(); ++b) {
      if (!matches(a, b)) continue;
      double of_a = 0, of_b = 0;
      for (std::size_t y = 0; y < image.words.size(); ++y) of_a += matches(a, y) ? 1 : 0;
      for (std::size_t x = 0; x < query.words.size(); ++x) of_b += matches(x, b) ? 1 : 0;
      const int w = query.words[a], h = distance(a, b);
      const double term = idf(w) * idf(w) * termWeight(options.term, cq.at(w)) / std::sqrt(cq.at(w)) *
                          termWeight(options.term, cd.at(w)) / std::sqrt(cd.at(w)) * std::exp(-h * h / 64.0) /
                          std::sqrt(of_a * of_b) / norms;
      r.hamming += term;
      const int da = ((angleStep(image.angles[b]) - angleStep(query.angles[a])) % 256 + 256) % 256;
      const int ds = logScaleStep(image.sizes[b]) - logScaleStep(query.sizes[a]);  // -255 to 255
      angles[static_cast<std::size_t>(da * HammingScorer::kAngleBins / 256)] += term;
      scales[static_cast<std::size_t>((ds + 256) / HammingScorer::kLogScaleBinWidth)] += term;
    }
  const auto best = [](const std::vector<double>& bins, bool circular) {
    const int n = static_cast<int>(bins.size());
    double top = 0;
    for (int i = 0; i < n; ++i) {
      double window = 0;
      for (int j = i - 1; j <= i + 1; ++j)
        if (circular || (j >= 0 && j < n)) window += bins[static_cast<std::size_t>((j + n) % n)];
      top = std::max(top, window);
    }
    return top;
  };
  r.wgc = std::min(best(angles, true), best(scales, false));
  return r;
}

std::map<std::string, double> scoresByName(const std::vector<SearchResult>& ranking) {
  std::map<std::string, double> scores;
  for (const SearchResult& r : ranking) scores[r.name] = r.score;
  return scores;
}

TEST(WeakGeometry, ScoresAsTheDefinitionComputedOverEveryPairAndStaysBelowHammingAndCosine) {
  BOVW_SEEDED_RNG(rng);
  for (int round = 0; round < 3; ++round) {
    const Collection c = randomCollection(rng, 4 + static_cast<int>(rng() % 20), 12);
    const ImageDatabase database = databaseOf(c);
    for (const int threshold : {0, 16, 24, 64})
      for (const TermWeighting term : {TermWeighting::Count, TermWeighting::Sqrt, TermWeighting::Log}) {
        ScoringOptions options{Scoring::Hamming, term, 1.0, threshold};
        options.weak_geometry = true;
        SCOPED_TRACE(toString(options));
        ScoringOptions plain = options;
        plain.weak_geometry = false;
        const auto wgc = scoresByName(database.query(c.query, 100, options));
        const auto hamming = scoresByName(database.query(c.query, 100, plain));
        const auto cosine = scoresByName(database.query(c.query, 100, ScoringOptions{Scoring::Cosine, term}));
        std::size_t positive = 0;
        for (std::size_t n = 0; n < c.images.size(); ++n) {
          const std::string name = "image" + std::to_string(n);
          const Reference expected = referenceScore(c.query, c.images[n], c.images, options);
          const double got = wgc.count(name) ? wgc.at(name) : 0.0;
          EXPECT_NEAR(got, expected.wgc, 1e-12 * expected.hamming) << name;
          const double hamming_score = hamming.count(name) ? hamming.at(name) : 0.0;
          EXPECT_NEAR(hamming_score, expected.hamming, 1e-12 * expected.hamming) << name;
          EXPECT_LE(got, hamming_score * (1 + 1e-12)) << name;
          if (hamming_score > 0) {
            EXPECT_LE(hamming_score, cosine.at(name) * (1 + 1e-12)) << name;
          }
          positive += expected.wgc > 0 ? 1 : 0;
        }
        EXPECT_EQ(wgc.size(), positive);
        // Fewer results: ImageDatabase::query stops scoring WGC once the k-th best beats every Hamming
        // score left, and must give exactly the first k of the whole ranking, ties by id included.
        const std::vector<SearchResult> all = database.query(c.query, 100, options);
        for (const std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{5}, c.images.size()}) {
          const std::vector<SearchResult> top = database.query(c.query, k, options);
          ASSERT_EQ(top.size(), std::min(k, all.size())) << "top " << k;
          for (std::size_t i = 0; i < top.size(); ++i) {
            EXPECT_EQ(top[i].name, all[i].name) << "top " << k << ", result " << i;
            EXPECT_EQ(top[i].score, all[i].score) << "top " << k << ", result " << i;
          }
        }
        if (threshold >= 16) {
          EXPECT_GT(positive, 3u);  // the data exercises the histograms
        }
      }
  }
}

TEST(WeakGeometry, PairsOfOneRotationAndScaleBeatAsManyOfRandomGeometry) {
  // The query's 40 features, one word each; `consistent` holds all of them rotated by 73 degrees and
  // scaled by 1.7, `random` the same features with random sizes and angles. Their Hamming scores
  // are equal; WGC keeps all of the first (one bin or two neighbours) and a fraction of the second.
  BOVW_SEEDED_RNG(rng);
  Collection c = randomCollection(rng, 40, 0);
  c.query = ImageWords();
  c.query.image_size = {kSide, kSide};
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int i = 0; i < 40; ++i) {
    c.query.points.emplace_back(unit(rng) * 400, unit(rng) * 400);
    c.query.words.push_back(i);
    c.query.signatures.push_back(rng());
    c.query.sizes.push_back(std::exp2(1 + 5 * unit(rng)));
    c.query.angles.push_back(360 * unit(rng) * 0.999f);
  }
  ImageWords consistent = c.query, random = c.query;
  for (std::size_t i = 0; i < 40; ++i) {
    consistent.sizes[i] *= 1.7f;
    consistent.angles[i] = std::fmod(consistent.angles[i] + 73.0f, 360.0f);
    random.sizes[i] = std::exp2(1 + 6 * unit(rng));
    random.angles[i] = 360 * unit(rng) * 0.999f;
  }
  c.images = {random, consistent};
  const ImageDatabase database = databaseOf(c);
  ScoringOptions options{Scoring::Hamming, TermWeighting::Log, 1.0, 20};
  const auto hamming = scoresByName(database.query(c.query, 10, options));
  options.weak_geometry = true;
  const auto wgc = scoresByName(database.query(c.query, 10, options));
  ASSERT_EQ(hamming.size(), 2u);
  EXPECT_NEAR(hamming.at("image0"), hamming.at("image1"), 1e-12);
  EXPECT_NEAR(wgc.at("image1"), hamming.at("image1"), 1e-12);
  EXPECT_LT(wgc.at("image0"), 0.5 * hamming.at("image0"));
  EXPECT_EQ(database.query(c.query, 1, options).front().name, "image1");
}

TEST(WeakGeometry, ScaleAndAngleSurviveSaveLoadAndLiveRecordsWithinTheirQuantisation) {
  BOVW_SEEDED_RNG(rng);
  Collection c = randomCollection(rng, 12, 4);
  // The ends: below 1 px, huge, no orientation (-1), a full turn.
  c.images[0].sizes[0] = 0.5f;
  c.images[0].sizes[1] = 1e6f;
  c.images[0].angles[2] = -1.0f;
  c.images[0].angles[3] = 360.0f;
  const ImageDatabase database = databaseOf(c);
  TempDir dir;
  database.save(dir.file("db.bovwdb"));
  const ImageDatabase loaded = ImageDatabase::load(dir.file("db.bovwdb"));
  EXPECT_TRUE(loaded.storesScaleAndAngle());
  for (std::size_t n = 0; n < c.images.size(); ++n) {
    const ImageId id = *loaded.index().find("image" + std::to_string(n));
    const std::optional<ImageWords> got = loaded.keypoints(id);
    ASSERT_TRUE(got.has_value());
    ASSERT_EQ(got->sizes.size(), c.images[n].words.size());
    ASSERT_EQ(got->angles.size(), c.images[n].words.size());
    // Stored in word order: match each stored keypoint with its original by word and signature.
    for (std::size_t k = 0; k < got->words.size(); ++k) {
      std::size_t i = 0;
      while (i < c.images[n].words.size() &&
             !(c.images[n].words[i] == got->words[k] && c.images[n].signatures[i] == got->signatures[k]))
        ++i;
      ASSERT_LT(i, c.images[n].words.size());
      const float size = std::clamp(c.images[n].sizes[i], 1.0f, std::exp2(255.0f / 16));
      EXPECT_NEAR(std::log2(got->sizes[k]), std::log2(size), 1.0 / 32 + 1e-6) << n << " " << i;
      const float angle = std::max(c.images[n].angles[i], 0.0f);
      const double off = std::fmod(std::abs(got->angles[k] - angle), 360.0);
      EXPECT_LE(std::min(off, 360 - off), 360.0 / 512 + 1e-4) << n << " " << i;
    }
    // The same scale and angle bytes through a live database's record.
    const auto stored = retrieval_detail::DatabaseEditor::keypoints(loaded)->stored(id);
    ASSERT_TRUE(stored.has_value());
    live_detail::ImageRecord record{"image", {}, stored};
    const live_detail::ImageRecord back =
        live_detail::decodeRecord(live_detail::encodeRecord(record), c.vocabulary.size(), "record");
    ASSERT_TRUE(back.keypoints.has_value());
    ASSERT_EQ(back.keypoints->scale_angles.size(), stored->scale_angles.size());
    for (std::size_t k = 0; k < stored->scale_angles.size(); ++k) {
      EXPECT_EQ(back.keypoints->scale_angles[k].log_scale, stored->scale_angles[k].log_scale);
      EXPECT_EQ(back.keypoints->scale_angles[k].angle, stored->scale_angles[k].angle);
    }
  }
  // The database's scores survive the round trip.
  ScoringOptions options{Scoring::Hamming, TermWeighting::Log, 1.0, 20};
  options.weak_geometry = true;
  const auto before = database.query(c.query, 10, options), after = loaded.query(c.query, 10, options);
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t r = 0; r < before.size(); ++r) {
    EXPECT_EQ(before[r].name, after[r].name);
    EXPECT_EQ(before[r].score, after[r].score);
  }
}

TEST(WeakGeometry, AVersion4FileLoadsAndIsRefusedForWeakGeometryNamingIt) {
  const std::string path = kFormats + "v4_keypoints.bovwdb";  // tests/data/formats/README.md
  const ImageDatabase loaded = ImageDatabase::load(path);
  ASSERT_TRUE(loaded.storesKeypoints());
  EXPECT_FALSE(loaded.storesScaleAndAngle());
  ASSERT_EQ(loaded.index().size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const std::string name = "image_" + std::to_string(i) + ".png";
    const std::optional<ImageWords> words = loaded.keypoints(*loaded.index().find(name));
    ASSERT_TRUE(words.has_value());
    ASSERT_EQ(words->words.size(), 6u);
    EXPECT_TRUE(words->sizes.empty() && words->angles.empty());
    EXPECT_EQ(words->image_size, cv::Size(200, 100));
    for (int k = 0; k < 6; ++k) {  // the program's formula, found in word order
      const auto at = static_cast<std::size_t>(
          std::find(words->words.begin(), words->words.end(), (i + k) % 5) - words->words.begin());
      ASSERT_LT(at, 6u);
      const unsigned r = static_cast<unsigned>(i + k);
      const std::uint64_t s = 0x0123456789abcdefull;
      // Word (i + k) mod 5 is taken by k and, for one word, by k + 5: find the one with this signature.
      std::size_t j = at;
      while (j < 6 && words->signatures[j] != (r == 0 ? s : (s << r) | (s >> (64 - r)))) ++j;
      ASSERT_LT(j, 6u) << i << " " << k;
      EXPECT_NEAR(words->points[j].x, 10.0f + 20 * k + i, 0.01f);
      EXPECT_NEAR(words->points[j].y, 15.0f + 10 * k, 0.01f);
    }
  }
  ImageWords query = *loaded.keypoints(0);
  query.sizes.assign(query.words.size(), 8.0f);
  query.angles.assign(query.words.size(), 0.0f);
  ScoringOptions options{Scoring::Hamming, TermWeighting::Log, 1.0, 20};
  EXPECT_EQ(loaded.query(query, 1, options).front().name, "image_0.png");
  options.weak_geometry = true;
  try {
    loaded.query(query, 1, options);
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "without scale and angle") && contains(e.what(), "again")) << e.what();
  }
  SearchOptions search;
  search.scoring = options;
  try {
    ImageSearch::open(path).search(query, search);
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    const std::string message = e.what();
    EXPECT_TRUE(contains(message, path) && contains(message, "version 5") &&
                contains(message, "index the images again"))
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // Saved again it is version 5 and still without scale and angle: refused alike.
  TempDir dir;
  loaded.save(dir.file("again.bovwdb"));
  EXPECT_FALSE(ImageDatabase::load(dir.file("again.bovwdb")).storesScaleAndAngle());
  // A file with scale and angle (bit 31 of its counts) that says it is version 4 is damaged.
  BOVW_SEEDED_RNG(rng);
  const Collection c = randomCollection(rng, 6, 2);
  databaseOf(c).save(dir.file("v5.bovwdb"));
  std::vector<char> bytes = readBytes(dir.file("v5.bovwdb"));
  const std::uint32_t four = 4;
  std::memcpy(bytes.data() + 8, &four, sizeof four);
  writeBytes(dir.file("forged.bovwdb"), resealed(bytes));
  try {
    ImageDatabase::load(dir.file("forged.bovwdb"));
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "forged.bovwdb") && contains(e.what(), "bit 31")) << e.what();
  }
}

TEST(WeakGeometry, IsRefusedWithoutSizesAndAnglesAndOutsideHammingEmbedding) {
  BOVW_SEEDED_RNG(rng);
  Collection c = randomCollection(rng, 8, 5);
  ScoringOptions options{Scoring::Hamming};
  options.weak_geometry = true;
  const ImageDatabase database = databaseOf(c);
  ImageWords bare = c.query;
  bare.sizes.clear();
  bare.angles.clear();
  EXPECT_THROW(database.query(bare, 5, options), InvalidInput);
  // Images given without sizes and angles: stored without, Hamming embedding only.
  Collection without = c;
  for (ImageWords& image : without.images) {
    image.sizes.clear();
    image.angles.clear();
  }
  const ImageDatabase plain = databaseOf(without);
  EXPECT_FALSE(plain.storesScaleAndAngle());
  EXPECT_THROW(plain.query(c.query, 5, options), InvalidInput);
  options.weak_geometry = false;
  EXPECT_FALSE(plain.query(c.query, 5, options).empty());
  // Sizes without angles, or of another count, are refused when the image is added.
  ImageDatabase other(c.vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  ImageWords half = c.images[0];
  half.angles.clear();
  EXPECT_THROW(other.add("half", half), InvalidInput);
  half = c.images[0];
  half.sizes.pop_back();
  EXPECT_THROW(other.add("short", half), InvalidInput);
  EXPECT_EQ(other.index().size(), 0u);
  ScoringOptions cosine{Scoring::Cosine};
  cosine.weak_geometry = true;
  EXPECT_THROW(checkScoringOptions(cosine), InvalidInput);
}

TEST(WeakGeometry, TextFormsRoundTripAndBadOnesAreRefused) {
  ScoringOptions expected{Scoring::Hamming, TermWeighting::Log, 1.0, 20};
  expected.weak_geometry = true;
  EXPECT_EQ(parseScoringOptions("hamming20+log+wgc"), expected);
  EXPECT_NE(parseScoringOptions("hamming20+log"), expected);
  for (const char* text : {"hamming20+log+wgc", "hamming0+wgc", "hamming64+sqrt+wgc", "hamming20+log"})
    EXPECT_EQ(toString(parseScoringOptions(text)), text);
  EXPECT_EQ(toString(parseScoringOptions("hamming+wgc")),
            "hamming" + std::to_string(ScoringOptions::kDefaultHammingThreshold) + "+wgc");
  // Equal where the similarity ignores it.
  ScoringOptions cosine{Scoring::Cosine};
  ScoringOptions cosine_wgc = cosine;
  cosine_wgc.weak_geometry = true;
  EXPECT_EQ(cosine, cosine_wgc);
  for (const char* text : {"cosine+wgc", "intersection+sqrt+wgc", "hamming20+wgc+log", "hamming20+wgc+wgc",
                           "hamming20+log+wgc+power0.5", "hamming20+WGC", "wgc", "hamming20+log+wg"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(parseScoringOptions(text), InvalidInput);
  }
  try {
    parseScoringOptions("hamming20+wgc+log");
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "hamming20+wgc+log") && contains(e.what(), "hamming20+log+wgc")) << e.what();
  }
  try {
    parseScoringOptions("cosine+wgc");
    FAIL() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "cosine+wgc") && contains(e.what(), "Hamming")) << e.what();
  }
}

}  // namespace
}  // namespace bovw::test
