// ShardedDatabase: random images split into 1, 2 and 5 shards (some empty) rank every query as the
// unsharded database of the same images does, scores to the bit, for every scoring option set; shards of another
// vocabulary or other features, a manifest that disagrees with its shards, missing and damaged
// shards and damaged manifests, one file listed twice under any name, a NUL in a text and a key
// given twice are refused naming the file and the problem; a byte order mark is skipped.
#include "support/retrieval_test_support.hpp"

#include <bovw/atomic_file.hpp>
#include <bovw/error.hpp>
#include <bovw/sharded_database.hpp>

#include <algorithm>
#include <filesystem>

namespace bovw::test {
namespace {

using Counts = std::vector<std::int32_t>;

Counts randomCounts(std::mt19937_64& rng, int k, int descriptors) {
  std::uniform_int_distribution<int> word(0, k - 1);
  Counts h(static_cast<std::size_t>(k), 0);
  for (int i = 0; i < descriptors; ++i) ++h[static_cast<std::size_t>(word(rng))];
  return h;
}

HistogramRef view(const Counts& h) {
  return Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>>(h.data(), static_cast<Eigen::Index>(h.size()));
}

FeatureSpec surf() { return FeatureSpec::parse("surf hessian_threshold=400"); }

// `images` split into `parts` contiguous runs at random cuts (runs may be empty), each saved as
// shard-<i>.bovwdb in `dir`, with their manifest; returns the manifest's path.
std::string writeShards(const TempDir& dir, const Vocabulary& vocabulary, const std::vector<Counts>& images,
                        std::size_t parts, std::mt19937_64& rng) {
  std::vector<std::size_t> cuts{0, images.size()};
  for (std::size_t p = 1; p < parts; ++p) cuts.push_back(rng() % (images.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::string> files;
  std::vector<ImageDatabase> shards;
  for (std::size_t p = 0; p < parts; ++p) {
    shards.emplace_back(vocabulary, surf());
    for (std::size_t i = cuts[p]; i < cuts[p + 1]; ++i) shards.back().add("img" + std::to_string(i), view(images[i]));
    files.push_back("shard-" + std::to_string(p) + ".bovwdb");
    shards.back().save(dir.file(files.back()));
  }
  const std::string manifest = dir.file("db.bovwshards");
  writeFileAtomically(manifest, [&](std::ostream& out) { ShardedDatabase::manifestFor(shards.front(), files).write(out); });
  return manifest;
}

template <typename E, typename F>
void expectThrowsMentioning(F f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const E& e) {
    for (const auto& part : parts) EXPECT_TRUE(contains(e.what(), part)) << e.what() << "\n  lacks: " << part;
  }
}

TEST(ShardedDatabase, RanksAsTheUnshardedDatabase) {
  std::mt19937_64 rng(seedForCurrentTest());
  const std::vector<std::string> forms = {"intersection", "cosine", "cosine+sqrt", "intersection+log",
                                          "cosine+power0.5", "intersection+sqrt+power0.7"};
  for (std::size_t parts : {1u, 2u, 5u}) {
    SCOPED_TRACE(std::to_string(parts) + " shards");
    const int k = 17 + static_cast<int>(rng() % 60);
    const Vocabulary vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64"));
    std::vector<Counts> images;
    for (std::size_t i = 0, n = 9 + rng() % 40; i < n; ++i)
      images.push_back(randomCounts(rng, k, static_cast<int>(rng() % (3 * k))));  // some without words
    ImageDatabase whole(vocabulary, surf());
    for (std::size_t i = 0; i < images.size(); ++i) whole.add("img" + std::to_string(i), view(images[i]));

    TempDir dir;
    const ShardedDatabase sharded = ShardedDatabase::load(writeShards(dir, vocabulary, images, parts, rng));
    ASSERT_EQ(sharded.shardCount(), parts);
    EXPECT_EQ(sharded.size(), images.size());
    EXPECT_EQ(sharded.model(), whole.index().model());
    for (int q = 0; q < 5; ++q) {
      const Counts query = randomCounts(rng, k, 1 + static_cast<int>(rng() % (2 * k)));
      for (const std::string& form : forms) {
        SCOPED_TRACE(form);
        const ScoringOptions options = parseScoringOptions(form);
        for (std::size_t top : {std::size_t{3}, images.size()}) {
          const auto expected = whole.index().query(view(query), top, options);
          const auto got = sharded.query(view(query), top, options);
          ASSERT_EQ(got.size(), expected.size());
          for (std::size_t r = 0; r < got.size(); ++r) {
            EXPECT_EQ(got[r].name, expected[r].name) << "rank " << r + 1;
            EXPECT_EQ(got[r].score, expected[r].score) << "rank " << r + 1;
            EXPECT_EQ(sharded.shard(got[r].shard).index().name(got[r].id), got[r].name);
          }
        }
      }
    }
  }
}

TEST(ShardedDatabase, ASingleDatabaseFileIsOneShard) {
  std::mt19937_64 rng(seedForCurrentTest());
  const Vocabulary vocabulary(randomMatrix(rng, 11, 64), DescriptorType::parse("surf64"));
  ImageDatabase whole(vocabulary, surf());
  for (int i = 0; i < 7; ++i) whole.add("img" + std::to_string(i), view(randomCounts(rng, 11, 30)));
  TempDir dir;
  whole.save(dir.file("one.bovwdb"));
  const ShardedDatabase loaded = ShardedDatabase::load(dir.file("one.bovwdb"));
  ASSERT_EQ(loaded.shardCount(), 1u);
  const Counts query = randomCounts(rng, 11, 20);
  const auto expected = whole.index().query(view(query), 7, ScoringOptions{});
  const auto got = loaded.query(view(query), 7, ScoringOptions{});
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t r = 0; r < got.size(); ++r) {
    EXPECT_EQ(got[r].id, expected[r].id);
    EXPECT_EQ(got[r].score, expected[r].score);
  }
}

TEST(ShardedDatabase, EmptyShardsAreEmpty) {
  std::mt19937_64 rng(seedForCurrentTest());
  const Vocabulary vocabulary(randomMatrix(rng, 5, 64), DescriptorType::parse("surf64"));
  TempDir dir;
  const ShardedDatabase empty = ShardedDatabase::load(writeShards(dir, vocabulary, {}, 3, rng));
  EXPECT_EQ(empty.size(), 0u);
  expectThrowsMentioning<InvalidInput>([&] { empty.query(view(Counts(5, 1)), 3, ScoringOptions{}); }, {"empty"});
}

TEST(ShardedDatabase, ShardsOfAnotherVocabularyOrOtherFeaturesAreNamed) {
  std::mt19937_64 rng(seedForCurrentTest());
  const Vocabulary vocabulary(randomMatrix(rng, 6, 64), DescriptorType::parse("surf64"));
  const Vocabulary other(randomMatrix(rng, 6, 64), DescriptorType::parse("surf64"));  // same K, other words
  TempDir dir;
  const std::string manifest = writeShards(dir, vocabulary, {Counts(6, 1), Counts(6, 2)}, 2, rng);

  ImageDatabase(other, surf()).save(dir.file("shard-1.bovwdb"));
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); },
                                       {"db.bovwshards", "shard-1.bovwdb", "vocabulary fingerprint",
                                        fingerprintText(other.fingerprint()), fingerprintText(vocabulary.fingerprint())});
  ImageDatabase(vocabulary, FeatureSpec::parse("surf hessian_threshold=500")).save(dir.file("shard-1.bovwdb"));
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); },
                                       {"shard-1.bovwdb", "features", "hessian_threshold=500", "hessian_threshold=400"});

  // Without a manifest: the constructor compares every shard with the first.
  std::vector<ImageDatabase> shards;
  shards.emplace_back(vocabulary, surf());
  shards.emplace_back(other, surf());
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase(std::move(shards), {"a.bovwdb", "b.bovwdb"}); },
                                       {"'b.bovwdb'", "vocabulary fingerprint", "'a.bovwdb'"});
  std::vector<ImageDatabase> sizes;  // another K: named, not a failed merge of the models
  sizes.emplace_back(vocabulary, surf());
  sizes.emplace_back(Vocabulary(randomMatrix(rng, 7, 64), DescriptorType::parse("surf64")), surf());
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase(std::move(sizes), {"a.bovwdb", "c.bovwdb"}); },
                                       {"'c.bovwdb'", "K = 7", "6"});
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase({}, {}); }, {"at least one shard"});
}

TEST(ShardedDatabase, MissingOrDamagedShardsAndManifestsAreNamed) {
  std::mt19937_64 rng(seedForCurrentTest());
  const Vocabulary vocabulary(randomMatrix(rng, 6, 64), DescriptorType::parse("surf64"));
  TempDir dir;
  const std::string manifest = writeShards(dir, vocabulary, {Counts(6, 1), Counts(6, 2), Counts(6, 3)}, 3, rng);
  const std::string text = [&] {
    const auto bytes = readBytes(manifest);
    return std::string(bytes.begin(), bytes.end());
  }();

  // A shard truncated: the database reader names it.
  const auto shard = readBytes(dir.file("shard-2.bovwdb"));
  writeBytes(dir.file("shard-2.bovwdb"), shard.data(), shard.size() - 9);
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); }, {"shard-2.bovwdb"});
  std::filesystem::remove(dir.file("shard-2.bovwdb"));
  expectThrowsMentioning<IoError>([&] { ShardedDatabase::load(manifest); }, {"shard-2.bovwdb"});
  writeBytes(dir.file("shard-2.bovwdb"), shard);
  const ShardedDatabase loaded = ShardedDatabase::load(manifest);
  EXPECT_EQ(loaded.shardCount(), 3u);
  EXPECT_FALSE(loaded.storesKeypoints());
  expectThrowsMentioning<InvalidInput>([&] { loaded.verify(ImageWords{}, {}, VerificationOptions{}); },
                                       {"shard-0.bovwdb", "no keypoints"});

  // The manifest damaged: each problem named with the manifest.
  auto refused = [&](const std::string& from, const std::string& to, const std::string& problem) {
    std::string damaged = text;
    const auto at = damaged.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    damaged.replace(at, from.size(), to);
    writeText(manifest, damaged);
    SCOPED_TRACE(damaged);
    expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); }, {"db.bovwshards", problem});
  };
  refused("\"shards\"", "\"shard\"", "\"shards\"");
  refused("shard-1.bovwdb", "shard-0.bovwdb", "listed twice");
  refused("bovw shards", "bovw shard", "format 'bovw shard'");
  refused("\"version\": 1", "\"version\": 2", "version 2");
  refused("\"words\": 6", "\"words\": 7", "K = 6");
  refused("\"words\": 6", "\"words\": 4294967302", "\"words\" is 4294967302");
  refused("surf64", "sift128", "descriptor type");
  refused("\"vocabulary_fingerprint\": \"", "\"vocabulary_fingerprint\": \"x", "hex digits");
  refused("{", "[", "not a valid bovw database");  // not an object, so not taken for a manifest at all
  writeText(manifest, "{ \"format\": ");
  expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); }, {"db.bovwshards", "not a shard manifest"});
}

// The manifest compared by what it names, not by its text: a shard listed twice under two names is
// counted twice (every score shifts), so every way of naming one file twice is refused.
TEST(ShardedDatabase, OneFileListedTwiceUnderAnyNameIsRefused) {
  std::mt19937_64 rng(seedForCurrentTest());
  const Vocabulary vocabulary(randomMatrix(rng, 6, 64), DescriptorType::parse("surf64"));
  TempDir dir;
  const std::string manifest = writeShards(dir, vocabulary, {Counts(6, 1), Counts(6, 2)}, 2, rng);
  const ImageDatabase any(vocabulary, surf());
  std::filesystem::create_directory(dir.file("sub"));
  std::filesystem::create_symlink(dir.file("shard-0.bovwdb"), dir.file("link.bovwdb"));
  std::filesystem::create_hard_link(dir.file("shard-0.bovwdb"), dir.file("hard.bovwdb"));
  for (const std::string& twice : std::vector<std::string>{"./shard-0.bovwdb", "sub/../shard-0.bovwdb", "link.bovwdb", "hard.bovwdb",
                                   dir.file("shard-0.bovwdb")}) {
    SCOPED_TRACE(twice);
    writeFileAtomically(manifest, [&](std::ostream& out) {
      ShardedDatabase::manifestFor(any, {"shard-0.bovwdb", "shard-1.bovwdb", twice}).write(out);
    });
    expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); },
                                         {"db.bovwshards", "shard-0.bovwdb", twice, "are the same file"});
  }
  // Distinct files under such names are distinct shards.
  std::filesystem::rename(dir.file("shard-1.bovwdb"), dir.file("sub/shard-1.bovwdb"));
  writeFileAtomically(manifest, [&](std::ostream& out) {
    ShardedDatabase::manifestFor(any, {"./shard-0.bovwdb", "sub/../sub/shard-1.bovwdb"}).write(out);
  });
  EXPECT_EQ(ShardedDatabase::load(manifest).size(), 2u);
}

// What JSON readers take silently but a manifest must not hold, and the byte order mark an editor
// may put before it.
TEST(ShardedDatabase, ManifestsWithNulDuplicateKeysOrAByteOrderMark) {
  std::mt19937_64 rng(seedForCurrentTest());
  const Vocabulary vocabulary(randomMatrix(rng, 6, 64), DescriptorType::parse("surf64"));
  TempDir dir;
  const std::string manifest = writeShards(dir, vocabulary, {Counts(6, 1), Counts(6, 2)}, 2, rng);
  const std::string text = [&] {
    const auto bytes = readBytes(manifest);
    return std::string(bytes.begin(), bytes.end());
  }();
  auto with = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    const auto at = changed.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return changed.replace(at, from.size(), to);
  };
  auto refused = [&](const std::string& damaged, const std::vector<std::string>& problem) {
    SCOPED_TRACE(damaged);
    writeText(manifest, damaged);
    std::vector<std::string> parts{"db.bovwshards"};
    parts.insert(parts.end(), problem.begin(), problem.end());
    expectThrowsMentioning<InvalidInput>([&] { ShardedDatabase::load(manifest); }, parts);
  };
  // A NUL would end the path where the file is opened: "shard-1.bovwdb\u0000x" would open
  // shard-1.bovwdb. Refused in any text, keys too; the message shows it escaped.
  refused(with("shard-1.bovwdb", "shard-1.bovwdb\\u0000x"), {"shard-1.bovwdb\\u0000x", "NUL"});
  refused(with("surf64", "surf64\\u0000"), {"NUL"});
  refused(with("\"words\"", "\"wo\\u0000rds\": 1, \"words\""), {"wo\\u0000rds", "NUL"});
  // A key twice, whichever value would be kept: refused, even where both agree, and in nested objects.
  refused(with("\"words\": 6", "\"words\": 6, \"words\": 7"), {"\"words\"", "twice"});
  refused(with("\"words\": 6", "\"words\": 6, \"words\": 6"), {"\"words\"", "twice"});
  refused(with("\"shards\"", "\"shards\": [\"shard-1.bovwdb\"], \"shards\""), {"\"shards\"", "twice"});
  refused(with("{", "{\"extra\": {\"a\": 1, \"a\": 2}, "), {"\"a\"", "twice"});
  // The same key in two objects is no duplicate.
  writeText(manifest, with("{", "{\"extra\": [{\"words\": 1}, {\"words\": 2}], "));
  EXPECT_EQ(ShardedDatabase::load(manifest).shardCount(), 2u);

  // A UTF-8 byte order mark before the text: skipped (RFC 8259 lets readers do so), so the file is
  // taken for a manifest, not for a database with the wrong magic, and read as without it.
  writeText(manifest, "\xEF\xBB\xBF" + text);
  EXPECT_TRUE(looksLikeShardManifest(manifest));
  const ShardedDatabase marked = ShardedDatabase::load(manifest);
  EXPECT_EQ(marked.shardCount(), 2u);
  EXPECT_EQ(marked.size(), 2u);
  writeText(manifest, "\xEF\xBB\xBF \n" + text);
  EXPECT_EQ(ShardedDatabase::load(manifest).shardCount(), 2u);
  // Only a whole mark, only at the start, only once.
  writeText(manifest, "\xEF\xBB" + text);
  EXPECT_FALSE(looksLikeShardManifest(manifest));
  writeText(manifest, " \xEF\xBB\xBF" + text);
  EXPECT_FALSE(looksLikeShardManifest(manifest));
  writeText(manifest, "\xEF\xBB\xBF\xEF\xBB\xBF" + text);
  EXPECT_FALSE(looksLikeShardManifest(manifest));
  const std::string marked_twice = "\xEF\xBB\xBF\xEF\xBB\xBF" + text;
  const std::vector<char> bytes(marked_twice.begin(), marked_twice.end());
  expectThrowsMentioning<InvalidInput>([&] { ShardManifest::parse(bytes, "m.bovwshards"); },
                                       {"m.bovwshards", "not a shard manifest"});
}

}  // namespace
}  // namespace bovw::test
