// ImageDatabase: save/load round trips (vocabulary bits, feature settings, query results), every
// truncation, every flipped byte and forged header fields of a small file (clear InvalidInput,
// never a crash), a file of the first format version, feature/vocabulary mismatches, and
// extractors that make descriptors the vocabulary accepts.
#include "core/resealing.hpp"
#include "retrieval/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/vocabulary_io.hpp>

#include <cmath>
#include <cstring>
#include <limits>

namespace bovw::test {
namespace {

// Offsets of the fixed header fields (image_database.hpp documents the layout).
constexpr std::size_t kKindOffset = 16, kHessianOffset = 20, kOctavesOffset = 28, kLayersOffset = 32,
                      kExtendedOffset = 36, kVocabularyLengthOffset = 44, kVocabularyOffset = 52;

template <typename T>
void poke(std::vector<char>& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

std::vector<std::int32_t> randomHistogram(std::mt19937_64& rng, int k, int descriptors) {
  std::uniform_int_distribution<int> word(0, k - 1);
  std::vector<std::int32_t> h(static_cast<std::size_t>(k), 0);
  for (int i = 0; i < descriptors; ++i) ++h[static_cast<std::size_t>(word(rng))];
  return h;
}

HistogramRef view(const std::vector<std::int32_t>& h) {
  return Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>>(h.data(), static_cast<Eigen::Index>(h.size()));
}

// The feature settings the round-trip test saves (and the version-1 fixture holds).
FeatureSettings testSettings() {
  FeatureSettings settings;
  settings.surf.hessian_threshold = 321.5;
  settings.surf.octaves = 3;
  settings.surf.octave_layers = 2;
  settings.surf.upright = true;
  return settings;
}

void expectTestSettings(const FeatureSettings& loaded) {
  const FeatureSettings expected = testSettings();
  EXPECT_EQ(loaded.kind, expected.kind);
  EXPECT_EQ(loaded.surf.hessian_threshold, expected.surf.hessian_threshold);
  EXPECT_EQ(loaded.surf.octaves, expected.surf.octaves);
  EXPECT_EQ(loaded.surf.octave_layers, expected.surf.octave_layers);
  EXPECT_EQ(loaded.surf.extended, expected.surf.extended);
  EXPECT_EQ(loaded.surf.upright, expected.surf.upright);
}

// Loading must fail with InvalidInput naming the file; returns the message.
std::string loadFailure(const std::string& path) {
  try {
    ImageDatabase::load(path);
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected InvalidInput, got another exception: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "a damaged database loaded";
  return "";
}

TEST(ImageDatabase, SaveLoadKeepsVocabularySettingsAndAnswers) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 40;
  ImageDatabase database(Vocabulary(randomMatrix(rng, k, 64), "surf64"), testSettings());
  std::vector<std::vector<std::int32_t>> histograms;
  for (int i = 0; i < 12; ++i) {
    histograms.push_back(randomHistogram(rng, k, 30 + i * 7));
    database.index().add("image_" + std::to_string(i) + ".png", view(histograms.back()));
  }
  database.index().remove("image_4.png");  // ids stay as assigned
  const std::string path = dir.file("db.bovwdb");
  database.save(path);

  const ImageDatabase loaded = ImageDatabase::load(path);
  const Vocabulary& a = database.vocabulary();
  const Vocabulary& b = loaded.vocabulary();
  ASSERT_EQ(b.size(), k);
  ASSERT_EQ(b.dimension(), 64);
  EXPECT_EQ(b.descriptorType(), "surf64");
  EXPECT_EQ(std::memcmp(a.centroids().data(), b.centroids().data(), sizeof(float) * a.centroids().size()), 0);
  EXPECT_EQ(a.fingerprint(), b.fingerprint());
  expectTestSettings(loaded.features());
  EXPECT_EQ(loaded.index().size(), 11u);
  EXPECT_EQ(loaded.index().ids(), database.index().ids());
  EXPECT_FALSE(loaded.index().find("image_4.png").has_value());
  for (const auto& query : {histograms[0], histograms[4], randomHistogram(rng, k, 50)}) {
    for (Scoring scoring : {Scoring::Cosine, Scoring::Intersection}) {
      const auto expected = database.index().query(view(query), 5, scoring);
      const auto actual = loaded.index().query(view(query), 5, scoring);
      ASSERT_EQ(actual.size(), expected.size());
      for (std::size_t r = 0; r < expected.size(); ++r) {
        EXPECT_EQ(actual[r].id, expected[r].id);
        EXPECT_EQ(actual[r].name, expected[r].name);
        EXPECT_EQ(actual[r].score, expected[r].score);
      }
    }
  }
  // The loaded database still takes new images, with the fixed vocabulary.
  ImageDatabase reloaded = ImageDatabase::load(path);
  const ImageId id = reloaded.index().add("new.png", view(histograms[4]));
  EXPECT_EQ(reloaded.index().query(view(histograms[4]), 1).front().id, id);
  // Saving again writes the same bytes.
  database.save(dir.file("again.bovwdb"));
  EXPECT_EQ(readBytes(path), readBytes(dir.file("again.bovwdb")));
}

TEST(ImageDatabase, SiftAndExtendedSurfSettingsRoundTrip) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const ImageDatabase sift(Vocabulary(randomMatrix(rng, 8, 128), "sift128"), {FeatureKind::Sift, SurfParams()});
  sift.save(dir.file("sift.db"));
  const ImageDatabase sift_loaded = ImageDatabase::load(dir.file("sift.db"));
  EXPECT_EQ(sift_loaded.features().kind, FeatureKind::Sift);
  EXPECT_EQ(sift_loaded.vocabulary().descriptorType(), "sift128");
  EXPECT_TRUE(sift_loaded.index().empty());

  SurfParams extended;
  extended.extended = true;
  const ImageDatabase surf128(Vocabulary(randomMatrix(rng, 8, 128), "surf128"), {FeatureKind::Surf, extended});
  surf128.save(dir.file("surf128.db"));
  const ImageDatabase surf128_loaded = ImageDatabase::load(dir.file("surf128.db"));
  EXPECT_EQ(surf128_loaded.features().kind, FeatureKind::Surf);
  EXPECT_TRUE(surf128_loaded.features().surf.extended);
  EXPECT_EQ(surf128_loaded.makeExtractor()->descriptorType(), "surf128");
}

TEST(ImageDatabase, AnEmptyDatabaseLoadsAndRefusesQueries) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  ImageDatabase(Vocabulary(randomMatrix(rng, 6, 64), "surf64"), FeatureSettings()).save(dir.file("empty.db"));
  const ImageDatabase loaded = ImageDatabase::load(dir.file("empty.db"));
  EXPECT_TRUE(loaded.index().empty());
  const std::vector<std::int32_t> query(6, 1);
  EXPECT_THROW(loaded.index().query(view(query), 3), InvalidInput);
}

TEST(ImageDatabase, MakeExtractorProducesTheVocabularysDescriptors) {
  BOVW_SEEDED_RNG(rng);
  const cv::Mat box = loadImage(dataFile("box.png"));
  SurfParams extended;
  extended.extended = true;
  struct Case {
    FeatureSettings features;
    int width;
    std::string type;
  };
  for (const Case& c : {Case{{FeatureKind::Surf, SurfParams()}, 64, "surf64"},
                        Case{{FeatureKind::Surf, extended}, 128, "surf128"},
                        Case{{FeatureKind::Sift, SurfParams()}, 128, "sift128"}}) {
    SCOPED_TRACE(c.type);
    const ImageDatabase database(Vocabulary(randomMatrix(rng, 5, c.width), c.type), c.features);
    const auto extractor = database.makeExtractor();
    EXPECT_EQ(extractor->descriptorType(), database.vocabulary().descriptorType());
    EXPECT_EQ(extractor->descriptorSize(), database.vocabulary().dimension());
    const cv::Mat d = extractor->extract(box);
    EXPECT_GT(d.rows, 10);
    EXPECT_EQ(d.cols, c.width);
    EXPECT_EQ(d.type(), CV_32F);
    EXPECT_NO_THROW(checkCompatible(database.vocabulary(), extractor->descriptorType(), d.cols, "test"));
  }
  // An untyped (.npy) vocabulary of the right width is accepted.
  const ImageDatabase untyped(Vocabulary(randomMatrix(rng, 5, 64), kUnspecifiedDescriptorType), FeatureSettings());
  EXPECT_EQ(untyped.makeExtractor()->descriptorSize(), 64);
}

TEST(ImageDatabase, FeaturesThatDoNotMatchTheVocabularyAreRefused) {
  BOVW_SEEDED_RNG(rng);
  SurfParams extended;
  extended.extended = true;
  const FeatureSettings sift{FeatureKind::Sift, SurfParams()}, surf64{FeatureKind::Surf, SurfParams()},
      surf128{FeatureKind::Surf, extended};
  // A SIFT database with a SURF vocabulary, and the other way round (same width too).
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 64), "surf64"), sift), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), "surf128"), sift), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), "sift128"), surf128), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), "sift128"), surf64), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), kUnspecifiedDescriptorType), surf64), InvalidInput);
}

// A small valid file: K = 4, D = 64, three images.
std::vector<char> smallDatabase(std::mt19937_64& rng, const std::string& path) {
  ImageDatabase database(Vocabulary(randomMatrix(rng, 4, 64), "surf64"), FeatureSettings());
  for (int i = 0; i < 3; ++i) database.index().add("img" + std::to_string(i), view(randomHistogram(rng, 4, 10)));
  database.save(path);
  return readBytes(path);
}

TEST(ImageDatabaseFile, EveryTruncationIsInvalidInput) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> bytes = smallDatabase(rng, dir.file("good.db"));
  ASSERT_NO_THROW(ImageDatabase::load(dir.file("good.db")));
  const std::string path = dir.file("cut.db");
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " of " + std::to_string(bytes.size()) + " bytes");
    writeBytes(path, bytes.data(), size);
    loadFailure(path);
    if (HasFailure()) break;  // one report is enough
  }
  // One byte too many: the checksum is not where it was; sealed again, the byte is still extra.
  std::vector<char> longer = bytes;
  longer.push_back('\0');
  writeBytes(path, longer);
  EXPECT_TRUE(contains(loadFailure(path), "checksum"));
  longer.insert(longer.end() - 9, '\0');
  longer.pop_back();
  writeBytes(path, resealed(longer));
  EXPECT_TRUE(contains(loadFailure(path), "after"));
}

TEST(ImageDatabaseFile, BadMagicVersionByteOrderAndKind) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> good = smallDatabase(rng, dir.file("good.db"));
  const std::string path = dir.file("bad.db");
  auto expectRefused = [&](std::vector<char> bytes, const std::string& words) {
    writeBytes(path, bytes);
    const std::string message = loadFailure(path);
    EXPECT_TRUE(contains(message, words)) << message;
  };
  std::vector<char> bytes = good;
  bytes[0] = 'X';
  expectRefused(bytes, "magic");
  bytes = good;
  poke<std::uint32_t>(bytes, 8, 3);
  expectRefused(bytes, "version 3");
  bytes = good;
  poke<std::uint32_t>(bytes, 8, 0);
  expectRefused(bytes, "version 0");
  bytes = good;
  poke<std::uint32_t>(bytes, 12, 0x04030201);
  expectRefused(bytes, "big-endian");
  bytes = good;
  poke<std::uint32_t>(bytes, kKindOffset, 7);
  expectRefused(resealed(bytes), "kind");
  // A vocabulary file, an index file or an image is not a database.
  ImageDatabase::load(dir.file("good.db")).vocabulary();  // still fine
  const std::vector<char> png = readBytes(dataFile("box.png"));
  expectRefused(png, "magic");
  expectRefused(std::vector<char>(good.begin() + kVocabularyOffset, good.end()), "magic");
}

TEST(ImageDatabaseFile, ForgedFeatureSettingsAreRefused) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> good = smallDatabase(rng, dir.file("good.db"));  // SURF-64 words
  const std::string path = dir.file("bad.db");
  // Resealed, so that each forged field reaches the check behind the checksum.
  auto refused = [&](const std::vector<char>& bytes, const char* what) {
    SCOPED_TRACE(what);
    writeBytes(path, resealed(bytes));
    loadFailure(path);
  };
  std::vector<char> bytes = good;
  poke<std::uint32_t>(bytes, kKindOffset, 1);  // SIFT features with a SURF vocabulary
  refused(bytes, "sift kind");
  bytes = good;
  poke<std::uint32_t>(bytes, kExtendedOffset, 1);  // 128-D SURF with 64-D words
  refused(bytes, "extended");
  bytes = good;
  poke<std::uint32_t>(bytes, kExtendedOffset + 4, 2);  // a flag that is neither 0 nor 1
  refused(bytes, "upright = 2");
  for (double hessian : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    bytes = good;
    poke<double>(bytes, kHessianOffset, hessian);
    refused(bytes, "hessian");
  }
  for (std::int32_t octaves : {0, -3, 1 << 30}) {
    bytes = good;
    poke<std::int32_t>(bytes, kOctavesOffset, octaves);
    refused(bytes, "octaves");
  }
  for (std::int32_t layers : {0, 1 << 30}) {
    bytes = good;
    poke<std::int32_t>(bytes, kLayersOffset, layers);
    refused(bytes, "layers");
  }
  // Block lengths beyond the file, or huge (no allocation may follow from them).
  for (std::uint64_t length : {std::uint64_t{0}, std::uint64_t{1} << 62, ~std::uint64_t{0}}) {
    bytes = good;
    poke<std::uint64_t>(bytes, kVocabularyLengthOffset, length);
    refused(bytes, "vocabulary length");
  }
}

TEST(ImageDatabaseFile, EveryFlippedByteIsRefused) {
  // Version 2 checksums every byte: the feature settings (which version 1 left unchecked, so that
  // a flipped bit changed the ranking silently) as much as the vocabulary and the index.
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> good = smallDatabase(rng, dir.file("good.db"));
  const std::string path = dir.file("bad.db");
  std::uniform_int_distribution<int> bit(0, 7);
  for (std::size_t offset = 0; offset < good.size(); ++offset) {
    SCOPED_TRACE("bit flipped in byte " + std::to_string(offset) + " of " + std::to_string(good.size()));
    std::vector<char> bytes = good;
    bytes[offset] = static_cast<char>(bytes[offset] ^ (1 << bit(rng)));
    writeBytes(path, bytes);
    loadFailure(path);
    if (HasFailure()) break;
  }
}

TEST(ImageDatabaseFile, AChangedVocabularyWordDoesNotMatchTheIndex) {
  // The index records the vocabulary's fingerprint: a word changed in the file is caught even
  // with both checksums (the vocabulary's own and the database's) made to match the change.
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> good = smallDatabase(rng, dir.file("good.db"));
  std::uint64_t length;
  std::memcpy(&length, good.data() + kVocabularyLengthOffset, sizeof(length));
  const std::size_t vocabulary_end = kVocabularyOffset + static_cast<std::size_t>(length);
  const std::size_t centroids_end = vocabulary_end - 8;
  const std::size_t centroids_begin = centroids_end - 4 * 64 * sizeof(float);
  const std::string path = dir.file("bad.db");
  for (std::size_t offset = centroids_begin; offset < centroids_end; offset += 37) {
    SCOPED_TRACE("byte " + std::to_string(offset));
    std::vector<char> bytes = good;
    bytes[offset] ^= 0x10;
    reseal(bytes, kVocabularyOffset, vocabulary_end);
    writeBytes(path, resealed(bytes));
    EXPECT_TRUE(contains(loadFailure(path), "fingerprint"));
    if (HasFailure()) break;
  }
}

// A database written before the format toolkit (tests/data/formats/README.md): its settings, its
// vocabulary and its index load as they were saved, and saving it again writes version 2.
TEST(ImageDatabaseFile, AVersion1FileStillLoads) {
  const std::string v1 = std::string(BOVW_TEST_DATA) + "/formats/v1.bovwdb";
  const ImageDatabase loaded = ImageDatabase::load(v1);
  expectTestSettings(loaded.features());
  ASSERT_EQ(loaded.vocabulary().size(), 5);
  EXPECT_EQ(loaded.vocabulary().descriptorType(), "surf64");
  EXPECT_EQ(loaded.vocabulary().centroids()(4, 63), 4 * 0.5f - 63 * 0.125f);
  EXPECT_EQ(loaded.index().size(), 3u);
  EXPECT_FALSE(loaded.index().find("image_2.png").has_value());
  EXPECT_EQ(*loaded.index().find("image_3.png"), 3u);
  const std::vector<std::int32_t> query = {0, 1, 2, 0, 1};  // image_0's counts
  EXPECT_EQ(loaded.index().query(view(query), 1).front().name, "image_0.png");

  TempDir dir;
  loaded.save(dir.file("v2.bovwdb"));
  const std::vector<char> bytes = readBytes(dir.file("v2.bovwdb"));
  std::uint32_t version;
  std::memcpy(&version, bytes.data() + 8, sizeof(version));
  EXPECT_EQ(version, 2u);
  EXPECT_EQ(ImageDatabase::load(dir.file("v2.bovwdb")).index().ids(), loaded.index().ids());
}

TEST(ImageDatabaseFile, UnreadablePathsAreIoErrors) {
  TempDir dir;
  EXPECT_THROW(ImageDatabase::load(dir.file("missing.db")), IoError);
  EXPECT_THROW(ImageDatabase::load(dir.path()), IoError);
}

TEST(ImageDatabaseFile, SavingOverAnExistingFileIsAtomic) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> before = smallDatabase(rng, dir.file("db"));
  // A save that cannot happen (the target is a directory) leaves no temporary file behind.
  std::filesystem::create_directory(dir.file("folder"));
  const ImageDatabase database = ImageDatabase::load(dir.file("db"));
  EXPECT_THROW(database.save(dir.file("folder")), Error);
  EXPECT_EQ(readBytes(dir.file("db")), before);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_FALSE(contains(entry.path().filename().string(), "tmp")) << entry.path();
}

}  // namespace
}  // namespace bovw::test
