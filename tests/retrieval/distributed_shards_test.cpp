// DistributedShards on R = 1 to 4 thread ranks (thread_communicator.hpp) over 1, 3 and 5 shards
// (so some ranks hold no shard, and some shards no image): every query's ranking and every
// verification equal ShardedDatabase's over all the shards exactly (shards, ids, names, the bits
// of the scores, inliers) and the unsharded database's; the global model is the sum of all shards'
// on every rank. Failures are raised on every rank alike with ShardedDatabase's message: a shard of
// another vocabulary, a missing shard, one file listed twice, a bad query, verification without
// keypoints, an empty database, shards held twice.
#include <algorithm>
#include <bovw/atomic_file.hpp>
#include <bovw/distributed_shards.hpp>
#include <bovw/error.hpp>
#include <bovw/rank_agreement.hpp>
#include <bovw/sharded_database.hpp>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>

#include "support/retrieval_test_support.hpp"
#include "support/thread_communicator.hpp"

namespace bovw::test {
namespace {

using Counts = std::vector<std::int32_t>;

constexpr int kImageSide = 500;

FeatureSpec surf() { return FeatureSpec::parse("surf hessian_threshold=400"); }

Counts histogramOf(const ImageWords& image, int k) {
  Counts h(static_cast<std::size_t>(k), 0);
  for (std::int32_t w : image.words) ++h[static_cast<std::size_t>(w)];
  return h;
}

HistogramRef view(const Counts& h) {
  return Eigen::Map<const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>>(h.data(),
                                                                          static_cast<Eigen::Index>(h.size()));
}

// Random images with keypoints: views of a few scenes (the scene's keypoints moved by a translation,
// some dropped, plus clutter) and pure clutter, so that verification finds inliers for some results
// and not for others. Some images are copies (equal scores in different shards) or hold no word.
struct World {
  int words = 0;
  Vocabulary vocabulary;
  std::vector<std::string> names;
  std::vector<ImageWords> images;
  std::vector<ImageWords> queries;
};

World randomWorld(std::mt19937_64& rng) {
  const int k = 30 + static_cast<int>(rng() % 40);
  World world{k, Vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64")), {}, {}, {}};
  std::uniform_int_distribution<std::int32_t> word(0, world.words - 1);
  std::uniform_real_distribution<float> inside(10.0f, 400.0f), anywhere(0.0f, kImageSide - 1.0f), shift(0.0f, 80.0f);
  auto clutter = [&](ImageWords& image, int count) {
    for (int i = 0; i < count; ++i) {
      image.points.emplace_back(anywhere(rng), anywhere(rng));
      image.words.push_back(word(rng));
      image.signatures.push_back(rng());
    }
  };
  std::vector<ImageWords> scenes(3);
  for (ImageWords& scene : scenes) clutter(scene, 40);
  auto viewOf = [&](const ImageWords& scene) {
    ImageWords image{{kImageSide, kImageSide}, {}, {}, {}, {}, {}};
    const cv::Point2f offset(shift(rng), shift(rng));
    for (std::size_t i = 0; i < scene.points.size(); ++i) {
      if (rng() % 4 == 0) continue;
      image.points.push_back(cv::Point2f(std::min(scene.points[i].x, 400.0f), std::min(scene.points[i].y, 400.0f)) +
                             offset);
      image.words.push_back(scene.words[i]);
      image.signatures.push_back(scene.signatures[i]);
    }
    clutter(image, static_cast<int>(rng() % 30));
    return image;
  };
  const std::size_t count = 14 + rng() % 16;
  for (std::size_t i = 0; i < count; ++i) {
    ImageWords image{{kImageSide, kImageSide}, {}, {}, {}, {}, {}};
    switch (rng() % 4) {
      case 0:
        clutter(image, 5 + static_cast<int>(rng() % 60));
        break;
      case 1:
        if (!world.images.empty()) image = world.images.back();
        break;  // a copy, or no word at all
      default:
        image = viewOf(scenes[rng() % scenes.size()]);
    }
    world.images.push_back(std::move(image));
    // Names as a file system may have them, commas, quotes and UTF-8 included.
    world.names.push_back(i % 5 == 2 ? "dir/\"img\", " + std::to_string(i) + " \xc3\xbc.png"
                                     : "img" + std::to_string(i));
  }
  for (const ImageWords& scene : scenes) world.queries.push_back(viewOf(scene));
  ImageWords noise{{kImageSide, kImageSide}, {}, {}, {}, {}, {}};
  clutter(noise, 25);
  world.queries.push_back(std::move(noise));
  return world;
}

ImageDatabase databaseOf(const World& world, std::size_t begin, std::size_t end) {
  ImageDatabase database(world.vocabulary, surf(), DatabaseOptions{true});
  for (std::size_t i = begin; i < end; ++i) database.add(world.names[i], world.images[i]);
  return database;
}

// The world's images in `parts` contiguous shards cut at random (some may be empty), saved with
// their manifest in `dir`; returns the manifest's path.
std::string writeShards(const TempDir& dir, const World& world, std::size_t parts, std::mt19937_64& rng) {
  std::vector<std::size_t> cuts{0, world.images.size()};
  for (std::size_t p = 1; p < parts; ++p) cuts.push_back(rng() % (world.images.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::string> files;
  for (std::size_t p = 0; p < parts; ++p) {
    files.push_back("shard-" + std::to_string(p) + ".bovwdb");
    databaseOf(world, cuts[p], cuts[p + 1]).save(dir.file(files.back()));
  }
  const std::string manifest = dir.file("db.bovwshards");
  writeFileAtomically(
      manifest, [&](std::ostream& out) { ShardedDatabase::manifestFor(databaseOf(world, 0, 0), files).write(out); });
  return manifest;
}

// Every query of the world with every scoring and two list lengths, then verified: what rank 0
// returns (the others must return nothing), in order.
struct Answers {
  std::vector<std::vector<ShardedResult>> rankings;
  std::vector<std::vector<ShardedVerifiedResult>> verified;
  std::vector<VerificationReport> reports;
};

const std::vector<std::string> kScorings = {"intersection", "cosine+sqrt", "intersection+log+power0.5"};

VerificationOptions verification() {
  VerificationOptions options;
  options.shortlist = 8;
  options.min_inliers = 8;
  return options;
}

// `query(histogram, top, scoring)` and `verify(words, ranking, report)` of one database kind.
template <typename Query, typename Verify>
Answers answer(const World& world, std::size_t images, Query query, Verify verify) {
  Answers answers;
  for (const ImageWords& words : world.queries) {
    const Counts histogram = histogramOf(words, world.words);
    for (const std::string& scoring : kScorings)
      for (std::size_t top : {std::size_t{3}, images + 1}) {
        answers.rankings.push_back(query(histogram, top, parseScoringOptions(scoring)));
        VerificationReport report;
        answers.verified.push_back(verify(words, answers.rankings.back(), &report));
        answers.reports.push_back(report);
      }
  }
  return answers;
}

Answers shardedAnswers(const World& world, const ShardedDatabase& database) {
  return answer(
      world, database.size(),
      [&](const Counts& h, std::size_t top, const ScoringOptions& o) { return database.query(view(h), top, o); },
      [&](const ImageWords& words, const std::vector<ShardedResult>& ranking, VerificationReport* report) {
        return database.verify(words, ranking, verification(), report);
      });
}

// Rank 0 passes the queries; the others pass nothing (rank 0's are sent to them).
Answers distributedAnswers(const World& world, const DistributedShards& database) {
  const bool root = database.ranks().rank() == 0;
  const Counts nothing;
  return answer(
      world, database.size(),
      [&](const Counts& h, std::size_t top, const ScoringOptions& o) {
        return database.query(view(root ? h : nothing), top, o);
      },
      [&](const ImageWords& words, const std::vector<ShardedResult>& ranking, VerificationReport* report) {
        return database.verify(root ? words : ImageWords{}, ranking, verification(), report);
      });
}

void expectSameAnswers(const Answers& got, const Answers& expected) {
  ASSERT_EQ(got.rankings.size(), expected.rankings.size());
  for (std::size_t q = 0; q < expected.rankings.size(); ++q) {
    SCOPED_TRACE("query " + std::to_string(q));
    ASSERT_EQ(got.rankings[q].size(), expected.rankings[q].size());
    for (std::size_t r = 0; r < expected.rankings[q].size(); ++r) {
      const ShardedResult &a = got.rankings[q][r], &b = expected.rankings[q][r];
      EXPECT_EQ(a.shard, b.shard) << "rank " << r + 1;
      EXPECT_EQ(a.id, b.id) << "rank " << r + 1;
      EXPECT_EQ(a.name, b.name) << "rank " << r + 1;
      EXPECT_EQ(a.score, b.score) << "rank " << r + 1;  // the same bits: the same scoring, merged exactly
    }
    ASSERT_EQ(got.verified[q].size(), expected.verified[q].size());
    for (std::size_t r = 0; r < expected.verified[q].size(); ++r) {
      const ShardedVerifiedResult &a = got.verified[q][r], &b = expected.verified[q][r];
      EXPECT_EQ(a.shard, b.shard) << "verified rank " << r + 1;
      EXPECT_EQ(a.result.id, b.result.id) << "verified rank " << r + 1;
      EXPECT_EQ(a.result.name, b.result.name) << "verified rank " << r + 1;
      EXPECT_EQ(a.result.score, b.result.score) << "verified rank " << r + 1;
      EXPECT_EQ(a.result.bow_score, b.result.bow_score) << "verified rank " << r + 1;
      EXPECT_EQ(a.result.inliers, b.result.inliers) << "verified rank " << r + 1;
      EXPECT_EQ(a.result.verified, b.result.verified) << "verified rank " << r + 1;
    }
    EXPECT_EQ(got.reports[q].checked, expected.reports[q].checked);
    EXPECT_EQ(got.reports[q].verified, expected.reports[q].verified);
  }
}

// What each rank saw: its answers and the database as it knows it.
struct RankView {
  Answers answers;
  std::optional<TfIdfModel> model;
  std::size_t shards = 0;
  std::vector<std::size_t> local;
  bool keypoints = false;
};

std::vector<RankView> onRanks(int ranks, const std::string& path, const World& world) {
  std::vector<RankView> views(static_cast<std::size_t>(ranks));
  runOnRanks(ranks, [&](Communicator& group) {
    const DistributedShards database = DistributedShards::load(group, path);
    RankView& view = views[static_cast<std::size_t>(group.rank())];
    view.model = database.model();
    view.shards = database.shardCount();
    for (std::size_t i = 0; i < database.localShardCount(); ++i) view.local.push_back(database.localIndex(i));
    view.keypoints = database.storesKeypoints();
    view.answers = distributedAnswers(world, database);
  });
  return views;
}

TEST(DistributedShards, AnyNumberOfRanksRanksAndVerifiesAsOneProcessAndAsTheUnshardedDatabase) {
  BOVW_SEEDED_RNG(rng);
  for (std::size_t parts : {1u, 3u, 5u}) {
    SCOPED_TRACE(std::to_string(parts) + " shards");
    const World world = randomWorld(rng);
    TempDir dir;
    const std::string manifest = writeShards(dir, world, parts, rng);
    const ShardedDatabase sharded = ShardedDatabase::load(manifest);
    const Answers expected = shardedAnswers(world, sharded);

    // The unsharded database ranks and verifies the same images alike, with the same score bits: each
    // shard sums an image's words in the order the global model gives (copies of an image in two
    // shards tie exactly, and ties go by shard and id as in the whole database).
    const ImageDatabase whole = databaseOf(world, 0, world.images.size());
    std::size_t verified_somewhere = 0;
    for (std::size_t q = 0; q < expected.rankings.size(); ++q) {
      const std::size_t query = q / (2 * kScorings.size());
      const ScoringOptions options = parseScoringOptions(kScorings[q / 2 % kScorings.size()]);
      const std::size_t top = q % 2 == 0 ? 3 : world.images.size() + 1;
      const auto ranking = whole.index().query(view(histogramOf(world.queries[query], world.words)), top, options);
      const auto verified = whole.verify(world.queries[query], ranking, verification());
      ASSERT_EQ(ranking.size(), expected.rankings[q].size());
      ASSERT_EQ(verified.size(), expected.verified[q].size());
      for (std::size_t r = 0; r < ranking.size(); ++r) {
        EXPECT_EQ(ranking[r].name, expected.rankings[q][r].name);
        EXPECT_EQ(ranking[r].score, expected.rankings[q][r].score);
        EXPECT_EQ(verified[r].name, expected.verified[q][r].result.name);
        EXPECT_EQ(verified[r].inliers, expected.verified[q][r].result.inliers);
        EXPECT_EQ(verified[r].score, expected.verified[q][r].result.score);
      }
      verified_somewhere += expected.reports[q].verified;
    }
    EXPECT_GT(verified_somewhere, 0u) << "the test should verify some results";

    for (int ranks = 1; ranks <= 4; ++ranks) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks");
      const std::vector<RankView> views = onRanks(ranks, manifest, world);
      std::vector<std::size_t> held;
      for (int r = 0; r < ranks; ++r) {
        const RankView& view = views[static_cast<std::size_t>(r)];
        EXPECT_EQ(*view.model, sharded.model()) << "rank " << r;
        EXPECT_EQ(view.shards, parts);
        EXPECT_TRUE(view.keypoints);
        for (std::size_t s : view.local) EXPECT_EQ(s % static_cast<std::size_t>(ranks), static_cast<std::size_t>(r));
        held.insert(held.end(), view.local.begin(), view.local.end());
        if (r > 0) {
          for (const auto& list : view.answers.rankings) EXPECT_TRUE(list.empty()) << "rank " << r;
          for (const auto& list : view.answers.verified) EXPECT_TRUE(list.empty()) << "rank " << r;
        }
      }
      std::sort(held.begin(), held.end());
      EXPECT_EQ(held.size(), parts);
      EXPECT_TRUE(std::adjacent_find(held.begin(), held.end()) == held.end());
      expectSameAnswers(views[0].answers, expected);
    }
  }
}

TEST(DistributedShards, InOneProcessItIsTheShardedDatabase) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  TempDir dir;
  const std::string manifest = writeShards(dir, world, 4, rng);
  const DistributedShards database = DistributedShards::load(singleProcess(), manifest);
  EXPECT_EQ(database.localShardCount(), 4u);
  expectSameAnswers(distributedAnswers(world, database), shardedAnswers(world, ShardedDatabase::load(manifest)));
}

TEST(DistributedShards, ASingleDatabaseFileIsRankZerosOneShard) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  TempDir dir;
  databaseOf(world, 0, world.images.size()).save(dir.file("one.bovwdb"));
  const Answers expected = shardedAnswers(world, ShardedDatabase::load(dir.file("one.bovwdb")));
  for (int ranks = 1; ranks <= 3; ++ranks) {
    const std::vector<RankView> views = onRanks(ranks, dir.file("one.bovwdb"), world);
    EXPECT_EQ(views[0].local, std::vector<std::size_t>{0});
    for (std::size_t r = 1; r < views.size(); ++r) EXPECT_TRUE(views[r].local.empty());
    expectSameAnswers(views[0].answers, expected);
  }
}

// Shards given in memory, held by any rank in any order: the ranking is still by shard index.
TEST(DistributedShards, ShardsHeldByAnyRankInAnyOrderRankByTheirIndex) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  const std::size_t third = world.images.size() / 3;
  const std::vector<std::size_t> cuts{0, third, 2 * third, world.images.size()};
  std::vector<ImageDatabase> all;
  for (std::size_t s = 0; s < 3; ++s) all.push_back(databaseOf(world, cuts[s], cuts[s + 1]));
  const ShardedDatabase sharded(std::move(all), {"a", "b", "c"});
  const Answers expected = shardedAnswers(world, sharded);
  // Rank 0 holds shards 2 and 0 (in that order), rank 1 shard 1.
  const std::vector<std::vector<std::size_t>> holds{{2, 0}, {1}};
  std::vector<Answers> got(2);
  runOnRanks(2, [&](Communicator& group) {
    const auto r = static_cast<std::size_t>(group.rank());
    std::vector<ImageDatabase> shards;
    std::vector<std::string> sources;
    for (std::size_t s : holds[r]) {
      shards.push_back(databaseOf(world, cuts[s], cuts[s + 1]));
      sources.push_back(std::string(1, static_cast<char>('a' + s)));
    }
    const DistributedShards database(group, std::move(shards), holds[r], std::move(sources));
    got[r] = distributedAnswers(world, database);
  });
  expectSameAnswers(got[0], expected);
}

// ------------------------------------------------------------------------------------------------
// Failures: every rank throws, with the same message: over one rank the failure itself (as
// ShardedDatabase throws it), over several RanksFailed (bovw/rank_agreement.hpp).

struct Failures {
  std::vector<std::string> messages;  // by rank; empty: that rank did not fail
  std::vector<std::string> kinds;
};

// Runs `body` on R ranks and records what each rank threw.
Failures failuresOf(int ranks, const std::function<void(Communicator&)>& body) {
  Failures f{std::vector<std::string>(static_cast<std::size_t>(ranks)),
             std::vector<std::string>(static_cast<std::size_t>(ranks))};
  runOnRanks(ranks, [&](Communicator& group) {
    const auto r = static_cast<std::size_t>(group.rank());
    try {
      body(group);
    } catch (const RanksFailed& e) {
      f.messages[r] = e.what();
      f.kinds[r] = "RanksFailed";
    } catch (const InvalidInput& e) {
      f.messages[r] = e.what();
      f.kinds[r] = "InvalidInput";
    } catch (const IoError& e) {
      f.messages[r] = e.what();
      f.kinds[r] = "IoError";
    }
  });
  return f;
}

// Every rank failed with `kind` and `message` (the single-process message, so the same text).
void expectFailedAlike(const Failures& f, const std::string& kind, const std::string& message) {
  for (std::size_t r = 0; r < f.messages.size(); ++r) {
    EXPECT_EQ(f.kinds[r], kind) << "rank " << r << ": " << f.messages[r];
    EXPECT_EQ(f.messages[r], message) << "rank " << r;
  }
}

// The message of RanksFailed where not every rank failed alike: {rank, its failure's message}, in
// the order of the failures (the first failed shard first).
std::string ranksFailed(const std::vector<std::pair<int, std::string>>& failures) {
  std::string message;
  for (const auto& [rank, failure] : failures)
    message += (message.empty() ? "rank " : "; rank ") + std::to_string(rank) + ": " + failure;
  return message;
}

template <typename E, typename F>
std::string messageOf(F f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(DistributedShards, AShardOfAnotherVocabularyOrMissingFailsOnEveryRankNamingIt) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  TempDir dir;
  const std::string manifest = writeShards(dir, world, 3, rng);
  const auto good = readBytes(dir.file("shard-1.bovwdb"));

  ImageDatabase(Vocabulary(randomMatrix(rng, world.words, 64), DescriptorType::parse("surf64")), surf())
      .save(dir.file("shard-1.bovwdb"));
  const std::string other = messageOf<InvalidInput>([&] { ShardedDatabase::load(manifest); });
  EXPECT_TRUE(contains(other, "shard-1.bovwdb")) << other;
  EXPECT_TRUE(contains(other, "vocabulary fingerprint")) << other;
  const auto load = [&](Communicator& group) { DistributedShards::load(group, manifest); };
  expectFailedAlike(failuresOf(1, load), "InvalidInput", other);
  for (int ranks = 2; ranks <= 4; ++ranks) {  // rank 1 holds shard 1
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    expectFailedAlike(failuresOf(ranks, load), "RanksFailed", ranksFailed({{1, other}}));
  }

  // Missing shards: the first one in shard order is named first, whichever rank meets it.
  writeBytes(dir.file("shard-1.bovwdb"), good);
  std::filesystem::remove(dir.file("shard-2.bovwdb"));
  const std::string missing2 = messageOf<IoError>([&] { ShardedDatabase::load(manifest); });
  EXPECT_TRUE(contains(missing2, "shard-2.bovwdb")) << missing2;
  std::filesystem::remove(dir.file("shard-1.bovwdb"));
  const std::string missing = messageOf<IoError>([&] { ShardedDatabase::load(manifest); });
  EXPECT_TRUE(contains(missing, "shard-1.bovwdb")) << missing;
  expectFailedAlike(failuresOf(1, load), "IoError", missing);
  // Two ranks: rank 0 holds shards 0 and 2, rank 1 shard 1; more: rank s holds shard s.
  expectFailedAlike(failuresOf(2, load), "RanksFailed", ranksFailed({{1, missing}, {0, missing2}}));
  for (int ranks = 3; ranks <= 4; ++ranks) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    expectFailedAlike(failuresOf(ranks, load), "RanksFailed", ranksFailed({{1, missing}, {2, missing2}}));
  }
  writeBytes(dir.file("shard-1.bovwdb"), good);
  const std::string truncated = [&] {
    writeBytes(dir.file("shard-2.bovwdb"), good.data(), good.size() / 2);
    return messageOf<InvalidInput>([&] { ShardedDatabase::load(manifest); });
  }();
  EXPECT_TRUE(contains(truncated, "shard-2.bovwdb")) << truncated;
  expectFailedAlike(failuresOf(1, load), "InvalidInput", truncated);
  expectFailedAlike(failuresOf(3, load), "RanksFailed", ranksFailed({{2, truncated}}));
  // No manifest: rank 0 finds no manifest there and fails to load the path as a database.
  std::filesystem::remove(manifest);
  const std::string no_manifest = messageOf<IoError>([&] { ShardedDatabase::load(manifest); });
  expectFailedAlike(failuresOf(1, load), "IoError", no_manifest);
  expectFailedAlike(failuresOf(2, load), "RanksFailed", ranksFailed({{0, no_manifest}}));
}

// The manifest as rank 0 reads it, checked alike on every rank: one file listed twice under
// another name is refused with ShardedDatabase's message; a byte order mark is skipped.
TEST(DistributedShards, AManifestIsCheckedAsShardedDatabaseChecksIt) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  TempDir dir;
  const std::string manifest = writeShards(dir, world, 3, rng);
  const auto text = readBytes(manifest);
  const auto load = [&](Communicator& group) { DistributedShards::load(group, manifest); };

  writeFileAtomically(manifest, [&](std::ostream& out) {
    ShardedDatabase::manifestFor(databaseOf(world, 0, 0), {"shard-0.bovwdb", "shard-1.bovwdb", "./shard-1.bovwdb"})
        .write(out);
  });
  const std::string twice = messageOf<InvalidInput>([&] { ShardedDatabase::load(manifest); });
  EXPECT_TRUE(contains(twice, "are the same file")) << twice;
  expectFailedAlike(failuresOf(1, load), "InvalidInput", twice);
  for (int ranks = 2; ranks <= 4; ++ranks) expectFailedAlike(failuresOf(ranks, load), "RanksFailed", twice);

  std::vector<char> marked{'\xEF', '\xBB', '\xBF'};
  marked.insert(marked.end(), text.begin(), text.end());
  writeBytes(manifest, marked);
  const Answers expected = shardedAnswers(world, ShardedDatabase::load(manifest));
  for (int ranks = 1; ranks <= 3; ++ranks) {
    const std::vector<RankView> views = onRanks(ranks, manifest, world);
    EXPECT_EQ(views[0].shards, 3u);
    expectSameAnswers(views[0].answers, expected);
  }
}

TEST(DistributedShards, ShardsInMemoryThatDisagreeFailOnEveryRank) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  const Vocabulary other(randomMatrix(rng, world.words, 64), DescriptorType::parse("surf64"));
  std::vector<ImageDatabase> pair;
  pair.push_back(databaseOf(world, 0, 2));
  pair.emplace_back(other, surf());
  const std::string expected = messageOf<InvalidInput>([&] {
    ShardedDatabase(std::move(pair), {"a.bovwdb", "b.bovwdb"});
  });
  EXPECT_TRUE(contains(expected, "'b.bovwdb'")) << expected;
  // Rank 1 holds the odd shard; rank 2 none. Every rank checks every shard: they fail alike.
  expectFailedAlike(failuresOf(3,
                               [&](Communicator& group) {
                                 std::vector<ImageDatabase> shards;
                                 std::vector<std::size_t> indices;
                                 std::vector<std::string> sources;
                                 if (group.rank() == 0) shards.push_back(databaseOf(world, 0, 2));
                                 if (group.rank() == 1) shards.emplace_back(other, surf());
                                 if (group.rank() < 2) {
                                   indices.push_back(static_cast<std::size_t>(group.rank()));
                                   sources.push_back(group.rank() == 0 ? "a.bovwdb" : "b.bovwdb");
                                 }
                                 DistributedShards(group, std::move(shards), std::move(indices), std::move(sources));
                               }),
                    "RanksFailed", expected);

  // A shard index held twice, or lists of different lengths on one rank.
  const Failures twice = failuresOf(2, [&](Communicator& group) {
    std::vector<ImageDatabase> shards;
    shards.push_back(databaseOf(world, 0, 1));
    DistributedShards(group, std::move(shards), {0}, {"x" + std::to_string(group.rank())});
  });
  for (const std::string& message : twice.messages)
    EXPECT_TRUE(contains(message, "held by rank 0 and by rank 1")) << message;
  expectFailedAlike(twice, "RanksFailed", twice.messages[0]);
  const Failures uneven = failuresOf(2, [&](Communicator& group) {
    std::vector<ImageDatabase> shards;
    shards.push_back(databaseOf(world, 0, 1));
    DistributedShards(group, std::move(shards), {static_cast<std::size_t>(group.rank())},
                      group.rank() == 1 ? std::vector<std::string>{} : std::vector<std::string>{"x"});
  });
  for (const std::string& message : uneven.messages)
    EXPECT_TRUE(contains(message, "rank 1: rank 1 was given 1 shards")) << message;  // rank 1 alone
  expectFailedAlike(uneven, "RanksFailed", uneven.messages[0]);
  const auto none = [&](Communicator& group) { DistributedShards(group, {}, {}, {}); };
  expectFailedAlike(failuresOf(1, none), "InvalidInput", "a sharded database needs at least one shard");
  expectFailedAlike(failuresOf(2, none), "RanksFailed", "a sharded database needs at least one shard");
}

TEST(DistributedShards, BadQueriesEmptyDatabasesAndShardsWithoutKeypointsFailOnEveryRank) {
  BOVW_SEEDED_RNG(rng);
  const World world = randomWorld(rng);
  TempDir dir;
  const std::string manifest = writeShards(dir, world, 2, rng);
  const ShardedDatabase sharded = ShardedDatabase::load(manifest);
  const Counts wrong(static_cast<std::size_t>(world.words + 1), 1);
  const std::string length = messageOf<InvalidInput>([&] { sharded.query(view(wrong), 3, ScoringOptions{}); });
  const auto query = [&](Communicator& group) {
    const DistributedShards database = DistributedShards::load(group, manifest);
    database.query(view(group.rank() == 0 ? wrong : Counts{}), 3, ScoringOptions{});
  };
  expectFailedAlike(failuresOf(1, query), "InvalidInput", length);
  // Every rank checks rank 0's histogram, rank 2 too (it holds no shard), whatever the shards hold.
  expectFailedAlike(failuresOf(3, query), "RanksFailed", length);

  // A query's words that do not fit together: refused by every rank, none left waiting.
  ImageWords bad = world.queries[0];
  bad.words.pop_back();
  const std::string words = messageOf<InvalidInput>([&] {
    sharded.verify(bad, sharded.query(view(histogramOf(world.queries[0], world.words)), 5, {}), verification());
  });
  const auto verifyBad = [&](Communicator& group) {
    const DistributedShards database = DistributedShards::load(group, manifest);
    const Counts h = histogramOf(world.queries[0], world.words);
    const auto ranking = database.query(view(h), 5, {});
    database.verify(group.rank() == 0 ? bad : ImageWords{}, ranking, verification());
  };
  expectFailedAlike(failuresOf(1, verifyBad), "InvalidInput", words);
  expectFailedAlike(failuresOf(3, verifyBad), "RanksFailed", words);  // every rank checks rank 0's query

  // No keypoints in shard 1: named on every rank.
  ImageDatabase(world.vocabulary, surf()).save(dir.file("shard-1.bovwdb"));
  const std::string keypoints =
      messageOf<InvalidInput>([&] { ShardedDatabase::load(manifest).verify(world.queries[0], {}, verification()); });
  EXPECT_TRUE(contains(keypoints, "shard-1.bovwdb")) << keypoints;
  const auto verifyWithout = [&](Communicator& group) {
    const DistributedShards database = DistributedShards::load(group, manifest);
    EXPECT_FALSE(database.storesKeypoints());
    database.verify(world.queries[0], {}, verification());
  };
  expectFailedAlike(failuresOf(1, verifyWithout), "InvalidInput", keypoints);
  expectFailedAlike(failuresOf(3, verifyWithout), "RanksFailed", keypoints);

  // No image in any shard.
  databaseOf(world, 0, 0).save(dir.file("shard-0.bovwdb"));
  const std::string empty = messageOf<InvalidInput>([&] { ShardedDatabase::load(manifest).query(view(wrong), 3, {}); });
  EXPECT_TRUE(contains(empty, "empty")) << empty;
  const auto queryEmpty = [&](Communicator& group) { DistributedShards::load(group, manifest).query(view(wrong), 3, {}); };
  expectFailedAlike(failuresOf(1, queryEmpty), "InvalidInput", empty);
  expectFailedAlike(failuresOf(3, queryEmpty), "RanksFailed", empty);
}

}  // namespace
}  // namespace bovw::test
