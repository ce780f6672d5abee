// Vocabulary files: round trips in every format, the descriptor-type check, and corrupt or
// truncated files (every one an InvalidInput naming the file, never a crash).
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/vocabulary_io.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>

namespace bovw::test {
namespace {

namespace fs = std::filesystem;

class VocabularyFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bovw_vocab_" + std::to_string(::getpid()) + "_" +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::vector<char> bytesOf(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void writeBytes(const std::string& file, const std::vector<char>& bytes) {
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  void expectInvalid(const std::string& file, const std::string& what) {
    try {
      loadVocabulary(file);
      ADD_FAILURE() << what << ": accepted";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << what << ": " << e.what();
    }
  }

  fs::path dir_;
};

TEST_F(VocabularyFiles, RoundTripInEveryFormat) {
  BOVW_SEEDED_RNG(rng);
  const Vocabulary original(randomMatrix(rng, 37, 64, -1.0f, 1.0f), DescriptorType::parse("surf64"));
  std::vector<std::string> names = {"v.bovw", "v.npy"};
#ifdef BOVW_TEST_FILESTORAGE
  for (const char* n : {"v.yml", "v.yml.gz", "v.xml", "v.xml.gz", "v.json"}) names.emplace_back(n);
#endif
  for (const auto& name : names) {
    saveVocabulary(path(name), original);
    const Vocabulary loaded = loadVocabulary(path(name));
    EXPECT_TRUE(loaded.centroids() == original.centroids()) << name;  // bit-exact
    EXPECT_EQ(loaded.descriptorType(), name == "v.npy" ? DescriptorType::unspecified() : DescriptorType::parse("surf64")) << name;
  }
  // Nothing but the outputs in the directory: no temporaries left.
  EXPECT_EQ(static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())),
            names.size());
}

TEST_F(VocabularyFiles, FingerprintFollowsContent) {
  BOVW_SEEDED_RNG(rng);
  const Vocabulary a(randomMatrix(rng, 10, 8), DescriptorType("surf", 8));
  saveVocabulary(path("a.bovw"), a);
  EXPECT_EQ(loadVocabulary(path("a.bovw")).fingerprint(), a.fingerprint());
  Descriptors changed = a.centroids();
  changed(9, 7) = std::nextafter(changed(9, 7), 2.0f);
  EXPECT_NE(Vocabulary(changed, DescriptorType("surf", 8)).fingerprint(), a.fingerprint());
  EXPECT_NE(Vocabulary(a.centroids(), DescriptorType("kaze", 8)).fingerprint(), a.fingerprint());
}

TEST_F(VocabularyFiles, EveryTruncationOfABinaryFileIsRejected) {
  BOVW_SEEDED_RNG(rng);
  saveVocabulary(path("v.bovw"), Vocabulary(randomMatrix(rng, 5, 8), DescriptorType("surf", 8)));
  const auto bytes = bytesOf(path("v.bovw"));
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    writeBytes(path("cut.bovw"), std::vector<char>(bytes.begin(), bytes.begin() + size));
    expectInvalid(path("cut.bovw"), "truncated to " + std::to_string(size) + " bytes");
  }
  auto longer = bytes;
  longer.push_back(0);
  writeBytes(path("long.bovw"), longer);
  expectInvalid(path("long.bovw"), "trailing byte");
}

// Version 2 checksums every byte: no flipped bit anywhere (the header, the type, a word) loads.
TEST_F(VocabularyFiles, EveryFlippedByteOfABinaryFileIsRejected) {
  BOVW_SEEDED_RNG(rng);
  saveVocabulary(path("v.bovw"), Vocabulary(randomMatrix(rng, 5, 8), DescriptorType("surf", 8)));
  const auto bytes = bytesOf(path("v.bovw"));
  std::uniform_int_distribution<int> bit(0, 7);
  for (std::size_t offset = 0; offset < bytes.size(); ++offset) {
    auto damaged = bytes;
    damaged[offset] = static_cast<char>(damaged[offset] ^ (1 << bit(rng)));
    writeBytes(path("flipped.bovw"), damaged);
    expectInvalid(path("flipped.bovw"), "bit flipped in byte " + std::to_string(offset));
  }
}

// A vocabulary written before the format toolkit (tests/data/formats/README.md) still loads.
TEST_F(VocabularyFiles, AVersion1FileStillLoads) {
  const Vocabulary loaded = loadVocabulary(std::string(BOVW_TEST_DATA) + "/formats/v1.bovw");
  ASSERT_EQ(loaded.size(), 5);
  ASSERT_EQ(loaded.dimension(), 64);
  EXPECT_EQ(loaded.descriptorType().toString(), "surf64");
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 64; ++j)
      ASSERT_EQ(loaded.centroids()(i, j), static_cast<float>(i) * 0.5f - static_cast<float>(j) * 0.125f);
  EXPECT_EQ(loaded.fingerprint(), 10107324123145791692ull);
  // Saved again, it is a version 2 file: the same bytes and a checksum after them.
  saveVocabulary(path("v2.bovw"), loaded);
  const auto v1 = bytesOf(std::string(BOVW_TEST_DATA) + "/formats/v1.bovw");
  const auto v2 = bytesOf(path("v2.bovw"));
  ASSERT_EQ(v2.size(), v1.size() + 8);
  EXPECT_EQ(v2[8], 2);
  EXPECT_TRUE(std::equal(v1.begin() + 12, v1.end(), v2.begin() + 12));
}

// Version 2 files of the bovw before descriptor types were values: the type names they hold parse
// to the types they meant, and saving writes the very same bytes (the names are canonical).
TEST_F(VocabularyFiles, Version2FilesOfEarlierTypeNamesStillLoad) {
  for (const auto& [name, type] : {std::pair<std::string, std::string>{"v2.bovw", "surf64"}, {"v2_float.bovw", "float"}}) {
    SCOPED_TRACE(name);
    const std::string original = std::string(BOVW_TEST_DATA) + "/formats/" + name;
    const Vocabulary loaded = loadVocabulary(original);
    EXPECT_EQ(loaded.descriptorType().toString(), type);
    EXPECT_EQ(loaded.centroids()(4, 63), 4 * 0.5f - 63 * 0.125f);
    saveVocabulary(path(name), loaded);
    EXPECT_EQ(bytesOf(path(name)), bytesOf(original));
  }
  EXPECT_EQ(loadVocabulary(std::string(BOVW_TEST_DATA) + "/formats/v2.bovw").fingerprint(), 10107324123145791692ull);
}

TEST_F(VocabularyFiles, CorruptBinaryHeadersAreRejected) {
  BOVW_SEEDED_RNG(rng);
  saveVocabulary(path("v.bovw"), Vocabulary(randomMatrix(rng, 5, 8), DescriptorType("surf", 8)));
  const auto bytes = bytesOf(path("v.bovw"));
  auto patched = [&](std::size_t offset, std::uint32_t value) {
    auto copy = bytes;
    std::memcpy(copy.data() + offset, &value, 4);
    return copy;
  };
  const std::vector<std::pair<std::string, std::vector<char>>> cases = {
      {"bad magic", patched(0, 0x12345678)},
      {"future version", patched(8, 3)},
      {"version 1 (no checksum) over a version 2 file", patched(8, 1)},
      {"other byte order", patched(12, 0x04030201)},
      {"float64 dtype code", patched(16, 2)},
      {"K larger than the data", patched(20, 6)},
      {"huge K", patched(20, 0xFFFFFFFF)},
      {"D of 0", patched(24, 0)},
      {"type length past the end", patched(28, 200)},
  };
  for (const auto& [what, content] : cases) {
    writeBytes(path("bad.bovw"), content);
    expectInvalid(path("bad.bovw"), what);
  }
  auto nan = bytes;
  const float value = std::nanf("");
  std::memcpy(nan.data() + nan.size() - 4, &value, 4);
  writeBytes(path("nan.bovw"), nan);
  expectInvalid(path("nan.bovw"), "NaN word");
}

TEST_F(VocabularyFiles, OtherBadFiles) {
  EXPECT_THROW(loadVocabulary(path("missing.bovw")), IoError);
  EXPECT_THROW(loadVocabulary(path("v.txt")), InvalidInput);
  EXPECT_THROW(saveVocabulary(path("v.txt"), Vocabulary(Descriptors::Zero(1, 1))), InvalidInput);
  writeBytes(path("empty.npy"), {});
  expectInvalid(path("empty.npy"), "empty .npy");
#ifdef BOVW_TEST_FILESTORAGE
  writeBytes(path("bad.yml"), {'%', 'Y', 'A', 'M', 'L', ':', '1', '.', '0', '\n', 'x', ':', ' ', '[', '\n'});
  EXPECT_THROW(loadVocabulary(path("bad.yml")), InvalidInput);
  std::ofstream(path("novocab.yml")) << "%YAML:1.0\n---\nother: 3\n";
  expectInvalid(path("novocab.yml"), "no vocabulary node");
  // OpenCV's YAML parser threw std::length_error on this one (found by fuzzing; the input is in
  // tests/fuzz/corpus/vocabulary_filestorage/regression-length-error.yml): an InvalidInput.
  std::ofstream(path("length_error.yml")) << "%YAML:1.0.\n   rt: M\n   :";
  expectInvalid(path("length_error.yml"), "OpenCV parser's std::length_error");
#endif
}

}  // namespace
}  // namespace bovw::test
