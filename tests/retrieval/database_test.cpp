// ImageDatabase: save/load round trips (vocabulary bits, feature specs, query results), every
// truncation, every flipped byte and forged fields of a small file (clear InvalidInput, never a
// crash), files of format versions 1 and 2 written by earlier bovw, feature/vocabulary mismatches,
// and extractors that make descriptors the vocabulary accepts.
#include "support/resealing.hpp"
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/kmeans.hpp>
#include <bovw/vocabulary_io.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace bovw::test {
namespace {

// Versions 3 and 4 (docs/FORMATS.md): the feature spec's length and text, then the vocabulary block.
constexpr std::size_t kSpecLengthOffset = 16, kSpecOffset = 20;
// Version 2's fixed fields.
constexpr std::size_t kKindOffset = 16, kHessianOffset = 20, kOctavesOffset = 28, kLayersOffset = 32,
                      kExtendedOffset = 36, kVersion2VocabularyLengthOffset = 44;

const std::string kFormats = std::string(BOVW_TEST_DATA) + "/formats/";

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

// The SURF settings the round-trip test saves (and the version-1 and -2 fixtures hold).
FeatureSpec testSettings() {
  return FeatureSpec::parse("surf hessian_threshold=321.5 octaves=3 octave_layers=2 upright=true");
}

void expectTestSettings(const FeatureSpec& loaded) {
  EXPECT_EQ(loaded.toString(), "surf extended=false hessian_threshold=321.5 octave_layers=2 octaves=3 upright=true");
  const SurfParams surf = surfParams(loaded);
  EXPECT_EQ(surf.hessian_threshold, 321.5);
  EXPECT_EQ(surf.octaves, 3);
  EXPECT_EQ(surf.octave_layers, 2);
  EXPECT_FALSE(surf.extended);
  EXPECT_TRUE(surf.upright);
}

std::uint32_t versionOf(const std::vector<char>& bytes) {
  std::uint32_t version;
  std::memcpy(&version, bytes.data() + 8, sizeof(version));
  return version;
}

std::uint32_t specLength(const std::vector<char>& bytes) {
  std::uint32_t length;
  std::memcpy(&length, bytes.data() + kSpecLengthOffset, sizeof(length));
  return length;
}

// A version-3/4/5 file with its spec text replaced by `text` (length field fixed, checksum resealed),
// so that the forged spec reaches the checks behind the checksum.
std::vector<char> withSpecText(const std::vector<char>& bytes, const std::string& text) {
  std::vector<char> forged(bytes.begin(), bytes.begin() + kSpecLengthOffset);
  const auto length = static_cast<std::uint32_t>(text.size());
  forged.insert(forged.end(), reinterpret_cast<const char*>(&length), reinterpret_cast<const char*>(&length) + 4);
  forged.insert(forged.end(), text.begin(), text.end());
  forged.insert(forged.end(), bytes.begin() + kSpecOffset + specLength(bytes), bytes.end());
  return resealed(forged);
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
  ImageDatabase database(Vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64")), testSettings());
  std::vector<std::vector<std::int32_t>> histograms;
  for (int i = 0; i < 12; ++i) {
    histograms.push_back(randomHistogram(rng, k, 30 + i * 7));
    database.add("image_" + std::to_string(i) + ".png", view(histograms.back()));
  }
  database.remove("image_4.png");  // ids stay as assigned
  const std::string path = dir.file("db.bovwdb");
  database.save(path);

  const ImageDatabase loaded = ImageDatabase::load(path);
  const Vocabulary& a = database.vocabulary();
  const Vocabulary& b = loaded.vocabulary();
  ASSERT_EQ(b.size(), k);
  ASSERT_EQ(b.dimension(), 64);
  EXPECT_EQ(b.descriptorType(), DescriptorType("surf", 64));
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
  const ImageId id = reloaded.add("new.png", view(histograms[4]));
  EXPECT_EQ(reloaded.index().query(view(histograms[4]), 1).front().id, id);
  // Saving again writes the same bytes.
  database.save(dir.file("again.bovwdb"));
  EXPECT_EQ(readBytes(path), readBytes(dir.file("again.bovwdb")));
}

// The index and keypoint blocks are streamed into the file (ImageDatabase::write) after lengths
// computed beforehand: the file read by its documented layout (docs/FORMATS.md) must hold the
// index exactly as the index's own file writer writes it, each length must be its block's, and the
// keypoints must load back as they were given. Images of 0 to 700 keypoints, with and without
// sizes and angles, one removed, over words that repeat.
TEST(ImageDatabaseFile, StreamedBlocksHoldTheIndexFileAndTheKeypoints) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 37;
  ImageDatabase database(Vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64")), FeatureSpec("surf"),
                         DatabaseOptions{true});
  std::uniform_int_distribution<std::int32_t> word(0, k - 1);
  std::uniform_real_distribution<float> at(0.0f, 299.0f);
  std::vector<ImageWords> images;
  for (int i = 0; i < 9; ++i) {
    ImageWords image;
    image.image_size = {300, 300};
    const int n = i == 3 ? 0 : static_cast<int>(rng() % 700);
    for (int f = 0; f < n; ++f) {
      image.points.emplace_back(at(rng), at(rng));
      image.words.push_back(word(rng));
      image.signatures.push_back(rng());
      if (i % 2 == 0) {
        image.sizes.push_back(1.0f + at(rng));
        image.angles.push_back(at(rng));
      }
    }
    images.push_back(image);
    database.add("image " + std::to_string(i), image);
  }
  database.remove("image 5");
  const std::string path = dir.file("db.bovwdb");
  database.save(path);

  const std::vector<char> file = readBytes(path);
  std::size_t at_byte = kSpecLengthOffset;
  const auto u64At = [&](std::size_t offset) {
    std::uint64_t v;
    std::memcpy(&v, file.data() + offset, sizeof v);
    return v;
  };
  at_byte += 4 + specLength(file);
  at_byte += 8 + u64At(at_byte);  // the vocabulary
  const std::uint64_t index_length = u64At(at_byte);
  const std::string index_block(file.data() + at_byte + 8, index_length);
  at_byte += 8 + index_length;
  const std::uint64_t keypoints_length = u64At(at_byte);
  at_byte += 8 + keypoints_length;
  EXPECT_EQ(at_byte + 8, file.size());  // then only the checksum
  std::ostringstream index_file;
  database.index().write(index_file);
  EXPECT_EQ(index_block, index_file.str());

  const ImageDatabase loaded = ImageDatabase::load(path);
  for (int i = 0; i < 9; ++i) {
    const auto id = loaded.index().find("image " + std::to_string(i));
    ASSERT_EQ(id.has_value(), i != 5);
    if (!id) continue;
    const std::optional<ImageWords> kept = loaded.keypoints(*id);
    const std::optional<ImageWords> given = database.keypoints(*id);
    ASSERT_TRUE(kept && given);
    EXPECT_EQ(kept->words, given->words);
    EXPECT_EQ(kept->signatures, given->signatures);
    EXPECT_EQ(kept->sizes, given->sizes);
    EXPECT_EQ(kept->angles, given->angles);
    EXPECT_EQ(kept->points.size(), images[static_cast<std::size_t>(i)].points.size());
  }
  // Without keypoints the block is empty.
  ImageDatabase plain(database.vocabulary(), FeatureSpec("surf"));
  plain.add("one", view(randomHistogram(rng, k, 40)));
  plain.save(dir.file("plain.bovwdb"));
  const std::vector<char> plain_file = readBytes(dir.file("plain.bovwdb"));
  std::uint64_t last_length;
  std::memcpy(&last_length, plain_file.data() + plain_file.size() - 16, sizeof last_length);
  EXPECT_EQ(last_length, 0u);
}

// A database of the first images with the rest appended is the database of all of them added one
// by one: the same file, byte for byte, and the same answers. Split at every point of a random
// set (one side empty at the ends), with an image removed on each side, keypoints with and without
// scale and angle.
TEST(ImageDatabase, AppendingIsAddingOneByOne) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const int k = 29;
  const Vocabulary vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64"));
  std::uniform_int_distribution<std::int32_t> word(0, k - 1);
  std::uniform_real_distribution<float> at(0.0f, 199.0f);
  std::vector<ImageWords> images(8);
  for (std::size_t i = 0; i < images.size(); ++i) {
    images[i].image_size = {200, 200};
    for (int f = static_cast<int>(rng() % 90); f > 0; --f) {
      images[i].points.emplace_back(at(rng), at(rng));
      images[i].words.push_back(word(rng));
      images[i].signatures.push_back(rng());
      if (i % 3 != 0) {
        images[i].sizes.push_back(1.0f + at(rng));
        images[i].angles.push_back(at(rng));
      }
    }
  }
  const auto name = [](std::size_t i) { return "image " + std::to_string(i); };
  const auto fill = [&](ImageDatabase& d, std::size_t from, std::size_t to, std::size_t removed) {
    for (std::size_t i = from; i < to; ++i) d.add(name(i), images[i]);
    if (removed >= from && removed < to) d.remove(name(removed));
  };
  ImageDatabase whole(vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
  fill(whole, 0, images.size(), 1);
  whole.remove(name(6));
  whole.save(dir.file("whole.bovwdb"));
  const std::vector<char> expected = readBytes(dir.file("whole.bovwdb"));
  for (std::size_t split = 0; split <= images.size(); ++split) {
    ImageDatabase first(vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
    ImageDatabase second(vocabulary, FeatureSpec("surf"), DatabaseOptions{true});
    fill(first, 0, split, 1);
    fill(second, split, images.size(), 1);
    if (split <= 6) second.remove(name(6));
    else first.remove(name(6));
    first.append(std::move(second));
    EXPECT_EQ(second.index().size(), 0u);
    first.save(dir.file("appended.bovwdb"));
    EXPECT_EQ(readBytes(dir.file("appended.bovwdb")), expected) << "split at " << split;
    const auto a = first.query(images[3], 5, ScoringOptions{});
    const auto b = whole.query(images[3], 5, ScoringOptions{});
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t r = 0; r < a.size(); ++r) {
      EXPECT_EQ(a[r].name, b[r].name);
      EXPECT_EQ(a[r].score, b[r].score);
    }
  }
}

TEST(ImageDatabase, AppendRefusesWhatWouldNotBeOneDatabase) {
  BOVW_SEEDED_RNG(rng);
  const int k = 16;
  const Vocabulary vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64"));
  ImageDatabase database(vocabulary, FeatureSpec("surf"));
  database.add("a", view(randomHistogram(rng, k, 30)));
  const auto refused = [&](ImageDatabase later, const std::string& says) {
    try {
      database.append(std::move(later));
      ADD_FAILURE() << "appended: " << says;
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), says)) << e.what();
    }
    EXPECT_EQ(database.index().size(), 1u);
    EXPECT_EQ(database.index().idCount(), 1u);
  };
  ImageDatabase same_name(vocabulary, FeatureSpec("surf"));
  same_name.add("b", view(randomHistogram(rng, k, 30)));
  same_name.add("a", view(randomHistogram(rng, k, 30)));
  refused(std::move(same_name), "'a' is in both");
  refused(ImageDatabase(Vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64")), FeatureSpec("surf")),
          "fingerprint");
  refused(ImageDatabase(vocabulary, FeatureSpec("surf"), DatabaseOptions{true}), "keypoints");
  refused(ImageDatabase(vocabulary, FeatureSpec::parse("surf hessian_threshold=500")), "features");
}

TEST(ImageDatabase, EveryKindsSpecRoundTrips) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  struct Case {
    FeatureSpec spec;
    DescriptorType type;
  };
  for (const Case& c : {Case{FeatureSpec("sift"), DescriptorType("sift", 128)},
                        Case{FeatureSpec::parse("surf extended=true"), DescriptorType("surf", 128)},
                        Case{FeatureSpec::parse("orb nfeatures=1234 scale_factor=1.25 fast_threshold=9"),
                             DescriptorType("orb", 256, DescriptorElement::BinaryUnpacked)}}) {
    SCOPED_TRACE(c.spec.toString());
    const ImageDatabase database(Vocabulary(randomMatrix(rng, 8, c.type.width()), c.type), c.spec);
    EXPECT_EQ(database.features(), normalizeFeatureSpec(c.spec));  // stored with every parameter
    database.save(dir.file("db"));
    const ImageDatabase loaded = ImageDatabase::load(dir.file("db"));
    EXPECT_EQ(loaded.features(), database.features());
    EXPECT_EQ(loaded.vocabulary().descriptorType(), c.type);
    EXPECT_EQ(loaded.makeExtractor()->descriptorType(), c.type);
    EXPECT_TRUE(loaded.index().empty());
  }
  // The ORB parameters given are the ones stored, as written.
  const ImageDatabase orb = ImageDatabase::load(dir.file("db"));
  EXPECT_EQ(orb.features().integer("nfeatures"), 1234);
  EXPECT_EQ(orb.features().real("scale_factor"), 1.25);
  EXPECT_EQ(orb.features().integer("fast_threshold"), 9);
}

TEST(ImageDatabase, AnEmptyDatabaseLoadsAndRefusesQueries) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  ImageDatabase(Vocabulary(randomMatrix(rng, 6, 64), DescriptorType::parse("surf64")), FeatureSpec()).save(dir.file("empty.db"));
  const ImageDatabase loaded = ImageDatabase::load(dir.file("empty.db"));
  EXPECT_TRUE(loaded.index().empty());
  const std::vector<std::int32_t> query(6, 1);
  EXPECT_THROW(loaded.index().query(view(query), 3), InvalidInput);
}

TEST(ImageDatabase, MakeExtractorProducesTheVocabularysDescriptors) {
  BOVW_SEEDED_RNG(rng);
  const cv::Mat box = loadImage(dataFile("box.png"));
  struct Case {
    FeatureSpec features;
    int width;
    std::string type;
  };
  for (const Case& c : {Case{FeatureSpec("surf"), 64, "surf64"},
                        Case{FeatureSpec::parse("surf extended=true"), 128, "surf128"},
                        Case{FeatureSpec("sift"), 128, "sift128"}, Case{FeatureSpec("orb"), 256, "orb256-binary"}}) {
    SCOPED_TRACE(c.type);
    const ImageDatabase database(Vocabulary(randomMatrix(rng, 5, c.width), DescriptorType::parse(c.type)), c.features);
    const auto extractor = database.makeExtractor();
    EXPECT_EQ(extractor->descriptorType(), database.vocabulary().descriptorType());
    EXPECT_EQ(extractor->descriptorSize(), database.vocabulary().dimension());
    const cv::Mat d = extractor->extract(box);
    EXPECT_GT(d.rows, 10);
    EXPECT_EQ(d.cols, c.width);
    EXPECT_EQ(d.type(), CV_32F);
    EXPECT_EQ(extractor->descriptorType().width(), d.cols);
  }
  // An untyped (.npy) vocabulary of the right width is accepted.
  const ImageDatabase untyped(Vocabulary(randomMatrix(rng, 5, 64), DescriptorType::unspecified()), FeatureSpec());
  EXPECT_EQ(untyped.makeExtractor()->descriptorSize(), 64);
}

// The README's complaint (issue 9): a vocabulary trained with default KMeansOptions, then a
// database with default features. The default records no type, so the widths decide; and a
// vocabulary an earlier bovw trained that way ("float", tests/data/formats/v2_float.bovw) is
// accepted for SURF too, as generic float descriptors.
TEST(ImageDatabase, AVocabularyTrainedWithDefaultOptionsTakesDefaultFeatures) {
  BOVW_SEEDED_RNG(rng);
  KMeansOptions options;
  options.words = 4;
  const Vocabulary words = trainVocabulary(randomMatrix(rng, 50, 64), options);
  EXPECT_TRUE(words.descriptorType().isUnspecified());
  EXPECT_NO_THROW(ImageDatabase(words, FeatureSpec()));
  const Vocabulary old = loadVocabulary(kFormats + "v2_float.bovw");
  EXPECT_EQ(old.descriptorType().toString(), "float");
  EXPECT_NO_THROW(ImageDatabase(old, FeatureSpec()));
  EXPECT_THROW(ImageDatabase(old, FeatureSpec("orb")), InvalidInput);  // 256 bits are not generic floats
}

TEST(ImageDatabase, FeaturesThatDoNotMatchTheVocabularyAreRefused) {
  BOVW_SEEDED_RNG(rng);
  SurfParams extended;
  extended.extended = true;
  const FeatureSpec sift("sift"), surf64("surf"), surf128 = surfFeatureSpec(extended), orb("orb");
  // A SIFT database with a SURF vocabulary, and the other way round (same width too).
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 64), DescriptorType::parse("surf64")), sift), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), DescriptorType::parse("surf128")), sift), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), DescriptorType::parse("sift128")), surf128), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), DescriptorType::parse("sift128")), surf64), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 128), DescriptorType::unspecified()), surf64), InvalidInput);
  // ORB's unpacked bits against a float vocabulary of the same width, and the other way round.
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 256), DescriptorType("surf", 256)), orb), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 64), DescriptorType::parse("orb256-binary")), surf64),
               InvalidInput);
  // An unknown kind or parameter.
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 64)), FeatureSpec("brief")), InvalidInput);
  EXPECT_THROW(ImageDatabase(Vocabulary(randomMatrix(rng, 5, 64)), FeatureSpec::parse("surf threshold=5")), InvalidInput);
}

// A small valid file: K = 4, D = 64, three images.
std::vector<char> smallDatabase(std::mt19937_64& rng, const std::string& path) {
  ImageDatabase database(Vocabulary(randomMatrix(rng, 4, 64), DescriptorType::parse("surf64")), FeatureSpec());
  for (int i = 0; i < 3; ++i) database.add("img" + std::to_string(i), view(randomHistogram(rng, 4, 10)));
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
  // One byte too many, at the end or (sealed again) before the checksum: the blocks' lengths say
  // where the file ends, checked before it is read whole.
  std::vector<char> longer = bytes;
  longer.push_back('\0');
  writeBytes(path, longer);
  EXPECT_TRUE(contains(loadFailure(path), "1 unexpected bytes after the last block"));
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
  poke<std::uint32_t>(bytes, 8, 6);
  expectRefused(bytes, "version 6");
  bytes = good;
  poke<std::uint32_t>(bytes, 8, 0);
  expectRefused(bytes, "version 0");
  bytes = good;
  poke<std::uint32_t>(bytes, 12, 0x04030201);
  expectRefused(bytes, "big-endian");
  expectRefused(withSpecText(good, "brief"), "kind");
  // A vocabulary file, an index file or an image is not a database.
  ImageDatabase::load(dir.file("good.db")).vocabulary();  // still fine
  const std::vector<char> png = readBytes(dataFile("box.png"));
  expectRefused(png, "magic");
  expectRefused(std::vector<char>(good.begin() + kSpecOffset + specLength(good) + 8, good.end()), "magic");
}

TEST(ImageDatabaseFile, ForgedFeatureSpecsAreRefused) {
  BOVW_SEEDED_RNG(rng);
  TempDir dir;
  const std::vector<char> good = smallDatabase(rng, dir.file("good.db"));  // SURF-64 words
  ASSERT_EQ(versionOf(good), 5u);
  ASSERT_EQ(std::string(good.data() + kSpecOffset, specLength(good)), normalizeFeatureSpec(FeatureSpec()).toString());
  const std::string path = dir.file("bad.db");
  // Valid text that is not canonical still loads (normalised); each forged spec is refused.
  writeBytes(path, withSpecText(good, "surf   octaves=4"));
  EXPECT_EQ(ImageDatabase::load(path).features(), normalizeFeatureSpec(FeatureSpec()));
  for (const char* text : {"sift", "orb", "surf extended=true", "brief", "surf upright=2", "surf hessian_threshold=-1",
                           "surf hessian_threshold=nan", "surf hessian_threshold=inf", "surf octaves=0",
                           "surf octaves=1073741824", "surf octave_layers=0", "surf bogus=1", "", " ", "SURF",
                           "surf octaves=4 octaves=4", "surf extended", "surf\x01"}) {
    SCOPED_TRACE(std::string("spec '") + text + "'");
    writeBytes(path, withSpecText(good, text));
    loadFailure(path);
  }
  // Spec and block lengths beyond the file, or huge (no allocation may follow from them).
  for (std::uint32_t length : {std::uint32_t{4097}, std::uint32_t{1} << 31, ~std::uint32_t{0}}) {
    std::vector<char> bytes = good;
    poke<std::uint32_t>(bytes, kSpecLengthOffset, length);
    SCOPED_TRACE("spec length " + std::to_string(length));
    writeBytes(path, resealed(bytes));
    loadFailure(path);
  }
  for (std::uint64_t length : {std::uint64_t{0}, std::uint64_t{1} << 62, ~std::uint64_t{0}}) {
    std::vector<char> bytes = good;
    poke<std::uint64_t>(bytes, kSpecOffset + specLength(good), length);
    SCOPED_TRACE("vocabulary length " + std::to_string(length));
    writeBytes(path, resealed(bytes));
    loadFailure(path);
  }
}

// Version 2's fixed fields, forged in a file the earlier bovw wrote (tests/data/formats/v2.bovwdb).
TEST(ImageDatabaseFile, ForgedVersion2SettingsAreRefused) {
  TempDir dir;
  const std::vector<char> good = readBytes(kFormats + "v2.bovwdb");  // SURF-64 words
  ASSERT_EQ(versionOf(good), 2u);
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
    poke<std::uint64_t>(bytes, kVersion2VocabularyLengthOffset, length);
    refused(bytes, "vocabulary length");
  }
}

TEST(ImageDatabaseFile, EveryFlippedByteIsRefused) {
  // Versions 2 to 4 checksum every byte: the feature settings (which version 1 left unchecked, so
  // that a flipped bit changed the ranking silently) as much as the vocabulary and the index.
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
  const std::size_t vocabulary_length_offset = kSpecOffset + specLength(good);
  const std::size_t vocabulary_offset = vocabulary_length_offset + 8;
  std::uint64_t length;
  std::memcpy(&length, good.data() + vocabulary_length_offset, sizeof(length));
  const std::size_t vocabulary_end = vocabulary_offset + static_cast<std::size_t>(length);
  const std::size_t centroids_end = vocabulary_end - 8;
  const std::size_t centroids_begin = centroids_end - 4 * 64 * sizeof(float);
  const std::string path = dir.file("bad.db");
  for (std::size_t offset = centroids_begin; offset < centroids_end; offset += 37) {
    SCOPED_TRACE("byte " + std::to_string(offset));
    std::vector<char> bytes = good;
    bytes[offset] ^= 0x10;
    reseal(bytes, vocabulary_offset, vocabulary_end);
    writeBytes(path, resealed(bytes));
    EXPECT_TRUE(contains(loadFailure(path), "fingerprint"));
    if (HasFailure()) break;
  }
}

// Databases written by earlier bovw (tests/data/formats/README.md): version 1 (before the format
// toolkit) and version 2 (fixed SURF/SIFT fields): their settings, vocabulary and index load as they
// were saved, and saving again writes the current version (5) with the same settings.
void expectFixtureContent(const ImageDatabase& loaded) {
  expectTestSettings(loaded.features());
  ASSERT_EQ(loaded.vocabulary().size(), 5);
  EXPECT_EQ(loaded.vocabulary().descriptorType().toString(), "surf64");
  EXPECT_EQ(loaded.vocabulary().centroids()(4, 63), 4 * 0.5f - 63 * 0.125f);
  EXPECT_EQ(loaded.index().size(), 3u);
  EXPECT_FALSE(loaded.index().find("image_2.png").has_value());
  EXPECT_EQ(*loaded.index().find("image_3.png"), 3u);
  const std::vector<std::int32_t> query = {0, 1, 2, 0, 1};  // image_0's counts
  EXPECT_EQ(loaded.index().query(view(query), 1).front().name, "image_0.png");

  TempDir dir;
  loaded.save(dir.file("v5.bovwdb"));
  EXPECT_EQ(versionOf(readBytes(dir.file("v5.bovwdb"))), 5u);
  const ImageDatabase again = ImageDatabase::load(dir.file("v5.bovwdb"));
  EXPECT_EQ(again.index().ids(), loaded.index().ids());
  EXPECT_EQ(again.features(), loaded.features());
  EXPECT_EQ(again.vocabulary().fingerprint(), loaded.vocabulary().fingerprint());
}

TEST(ImageDatabaseFile, AVersion1FileStillLoads) {
  const ImageDatabase loaded = ImageDatabase::load(kFormats + "v1.bovwdb");
  expectFixtureContent(loaded);
}

TEST(ImageDatabaseFile, Version2FilesStillLoad) {
  const ImageDatabase surf = ImageDatabase::load(kFormats + "v2.bovwdb");
  expectFixtureContent(surf);
  // SIFT ran with OpenCV's defaults then, which its spec's defaults are.
  const ImageDatabase sift = ImageDatabase::load(kFormats + "v2_sift.bovwdb");
  EXPECT_EQ(sift.features(), normalizeFeatureSpec(FeatureSpec("sift")));
  EXPECT_EQ(sift.vocabulary().descriptorType().toString(), "sift128");
  EXPECT_EQ(sift.vocabulary().dimension(), 128);
  EXPECT_EQ(sift.index().size(), 3u);
  EXPECT_EQ(sift.makeExtractor()->descriptorType(), sift.vocabulary().descriptorType());
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
