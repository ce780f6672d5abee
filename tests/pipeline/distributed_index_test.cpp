// Distributed indexing in one process: R thread ranks split a folder (src/distributed/work_split.hpp), each
// histograms its part, the parts are gathered and merged (src/pipeline/histogram_exchange.hpp), and the
// database written from them is byte for byte the one-process database: with and without
// keypoints, with bad files among the images, with more ranks than images (empty parts), and as
// shards written by rank s mod R. Also the exchange's encoding on its own; indexImages over thread
// ranks, whose finished batches are streamed to rank 0 while the ranks work (src/pipeline/
// result_stream.hpp): the same file bytes, a profile that adds up, and a stream that fails cleanly.
#include "support/retrieval_test_support.hpp"
#include "support/thread_communicator.hpp"

#include <bovw/feature_registry.hpp>
#include "pipeline/histogram_exchange.hpp"
#include <bovw/image_database.hpp>
#include "distributed/work_split.hpp"
#include "pipeline/result_stream.hpp"
#include <bovw/image_search.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace bovw {
namespace {

// The images (good and bad, in the folder's order), the features and a vocabulary from their descriptors.
struct Job {
  std::vector<std::string> paths;
  FeatureSpec spec = normalizeFeatureSpec(FeatureSpec("surf"));
  std::optional<Vocabulary> vocabulary;
};

std::unique_ptr<FeatureExtractor> extractorOf(const Job& job) {
  ExtractorOptions options;
  options.surf_backend = SurfBackend::Builtin;  // no device in these tests
  return makeFeatureExtractor(job.spec, options);
}

const Job& job() {
  static const Job made = [] {
    const test::ImageSet& set = test::imageSet();
    Job j;
    // Bad files (truncated, text, missing) among good ones, so that several ranks meet some.
    j.paths = {set.box, set.truncated, set.box_rotated, set.graf_crop, set.text_as_png, set.box_bright, set.flat,
               set.missing, set.texture};
    const DescriptorSample sample = sampleDescriptors({set.box, set.graf_crop, set.texture}, *extractorOf(j), 24, 7);
    j.vocabulary.emplace(sample.descriptors, extractorOf(j)->descriptorType());
    return j;
  }();
  return made;
}

// One rank's histograms of `paths` (words kept, so that both kinds of database can be made).
ImageHistograms histogramsOf(const std::vector<std::string>& paths) {
  HistogrammerConfig config;
  config.backend = Backend::OpenMP;
  config.threads = 1;
  PipelineOptions options;
  options.workers = 1;
  options.batch_images = 2;  // batches that do not follow the ranks' parts
  options.keep_words = true;
  return histogramImages(paths, *extractorOf(job()), *job().vocabulary, *makeHistogrammer(config), options);
}

// The database file's bytes of `results`' images whose index in `results` passes `keep`.
std::string databaseBytes(const ImageHistograms& results, bool keypoints,
                          const std::function<bool(std::size_t)>& keep = [](std::size_t) { return true; }) {
  DatabaseOptions options;
  options.store_keypoints = keypoints;
  ImageDatabase database(*job().vocabulary, job().spec, options);
  for (std::size_t i = 0; i < results.names.size(); ++i) {
    if (!keep(i)) continue;
    if (keypoints) database.add(results.names[i], results.words[i]);
    else database.add(results.names[i], results.histograms.row(static_cast<Eigen::Index>(i)));
  }
  std::ostringstream out;
  database.write(out);
  return out.str();
}

std::vector<std::string> failedPaths(const ImageHistograms& results) {
  std::vector<std::string> paths;
  for (const auto& failure : results.failures) paths.push_back(failure.path);
  return paths;
}

const ImageHistograms& oneProcess() {
  static const ImageHistograms results = histogramsOf(job().paths);
  return results;
}

TEST(DistributedIndex, OneProcessRunHasGoodAndBadImages) {
  EXPECT_EQ(oneProcess().names.size(), 6u);
  EXPECT_EQ(failedPaths(oneProcess()),
            (std::vector<std::string>{test::imageSet().truncated, test::imageSet().text_as_png, test::imageSet().missing}));
}

TEST(DistributedIndex, MergedDatabaseIsTheOneProcessDatabaseByteForByte) {
  const std::string plain = databaseBytes(oneProcess(), false), with_keypoints = databaseBytes(oneProcess(), true);
  for (int ranks : {1, 2, 3, 5, 12}) {  // 12 ranks for 9 files: some parts are empty
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    test::runOnRanks(ranks, [&](Communicator& group) {
      const FileList list = broadcastFileList(group, group.rank() == 0 ? withFileSizes(job().paths) : FileList{});
      const auto part_of = splitBySize(list.sizes, static_cast<std::size_t>(group.size()));
      const ImageHistograms mine = histogramsOf(filesOfRank(list, part_of, group.size(), group.rank()));
      const ImageHistograms merged = gatherImageHistograms(group, mine, list.paths);
      if (group.rank() != 0) {
        EXPECT_TRUE(merged.names.empty());
        return;
      }
      EXPECT_EQ(merged.names, oneProcess().names);
      EXPECT_EQ(merged.histograms, oneProcess().histograms);
      EXPECT_EQ(merged.descriptor_counts, oneProcess().descriptor_counts);
      EXPECT_EQ(failedPaths(merged), failedPaths(oneProcess()));  // failures merged in the folder's order
      EXPECT_TRUE(databaseBytes(merged, false) == plain);
      EXPECT_TRUE(databaseBytes(merged, true) == with_keypoints);
    });
  }
}

TEST(DistributedIndex, ShardsWrittenByRankSModRAreTheOneProcessShards) {
  const std::size_t shards = 3;
  const FileList all = withFileSizes(job().paths);
  const auto shard_of_file = splitBySize(all.sizes, shards);
  auto shardOf = [&](const std::string& name) {
    return shard_of_file[static_cast<std::size_t>(std::find(all.paths.begin(), all.paths.end(), name) - all.paths.begin())];
  };
  std::vector<std::string> expected;
  for (std::size_t s = 0; s < shards; ++s)
    expected.push_back(databaseBytes(oneProcess(), true, [&](std::size_t i) { return shardOf(oneProcess().names[i]) == s; }));
  for (int ranks : {1, 2, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    std::vector<std::string> written(shards);
    test::runOnRanks(ranks, [&](Communicator& group) {
      const FileList list = broadcastFileList(group, group.rank() == 0 ? all : FileList{});
      const auto part_of = splitBySize(list.sizes, shards);
      const ImageHistograms mine = histogramsOf(filesOfRank(list, part_of, group.size(), group.rank()));
      for (std::size_t s = 0; s < shards; ++s)
        if (rankOfPart(s, group.size()) == group.rank())
          written[s] = databaseBytes(mine, true, [&](std::size_t i) { return shardOf(mine.names[i]) == s; });
    });
    for (std::size_t s = 0; s < shards; ++s) EXPECT_TRUE(written[s] == expected[s]) << "shard " << s;
  }
}

TEST(HistogramExchange, EncodingKeepsEveryField) {
  const ImageHistograms decoded = decodeImageHistograms(encodeImageHistograms(oneProcess()), "rank 1");
  EXPECT_EQ(decoded.names, oneProcess().names);
  EXPECT_EQ(decoded.histograms, oneProcess().histograms);
  EXPECT_EQ(decoded.descriptor_counts, oneProcess().descriptor_counts);
  ASSERT_EQ(decoded.words.size(), oneProcess().words.size());
  for (std::size_t i = 0; i < decoded.words.size(); ++i) {
    EXPECT_EQ(decoded.words[i].image_size, oneProcess().words[i].image_size);
    EXPECT_EQ(decoded.words[i].points, oneProcess().words[i].points);
    EXPECT_EQ(decoded.words[i].words, oneProcess().words[i].words);
    EXPECT_EQ(decoded.words[i].signatures, oneProcess().words[i].signatures);
    EXPECT_EQ(decoded.words[i].sizes, oneProcess().words[i].sizes);
    EXPECT_EQ(decoded.words[i].angles, oneProcess().words[i].angles);
  }
  ASSERT_EQ(decoded.failures.size(), oneProcess().failures.size());
  for (std::size_t f = 0; f < decoded.failures.size(); ++f) {
    EXPECT_EQ(decoded.failures[f].path, oneProcess().failures[f].path);
    EXPECT_EQ(decoded.failures[f].message, oneProcess().failures[f].message);
  }
  const ImageHistograms nothing = decodeImageHistograms(encodeImageHistograms(ImageHistograms{}), "rank 2");
  EXPECT_TRUE(nothing.names.empty() && nothing.failures.empty());
}

TEST(HistogramExchange, DamagedBytesAreRefusedNamingTheRank) {
  const Bytes bytes = encodeImageHistograms(oneProcess());
  for (std::size_t cut : {std::size_t{0}, std::size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      decodeImageHistograms(Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)), "rank 3");
      ADD_FAILURE() << "cut at " << cut << " accepted";
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(test::contains(e.what(), "rank 3")) << e.what();
    }
  }
}

TEST(HistogramExchange, MergeRefusesImagesNotInTheListOrTwice) {
  const ImageHistograms& all = oneProcess();
  EXPECT_THROW(mergeImageHistograms({job().paths[0]}, {all}), InvalidInput);
  EXPECT_THROW(mergeImageHistograms(job().paths, {all, all}), InvalidInput);
  // Parts given in any order come back in list order.
  const ImageHistograms merged = mergeImageHistograms(job().paths, {ImageHistograms{}, all});
  EXPECT_EQ(merged.names, all.names);
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// indexImages itself over R thread ranks, in batches of 2 images (several per rank, so that rank 0
// takes the others' batches both while it works and after): the file is the one-process file, and
// every rank's profile accounts for its time.
TEST(DistributedIndex, StreamedIndexWritesTheOneProcessFile) {
  test::TempDir dir;
  for (bool keypoints : {false, true}) {
    const std::string expected = databaseBytes(oneProcess(), keypoints);
    for (int ranks : {1, 2, 3, 5, 12}) {
      SCOPED_TRACE(std::to_string(ranks) + " ranks" + (keypoints ? ", keypoints" : ""));
      const std::string output = dir.file("r" + std::to_string(ranks) + (keypoints ? "k" : "") + ".bovwdb");
      std::vector<IndexProfile> profiles(static_cast<std::size_t>(ranks));
      test::runOnRanks(ranks, [&](Communicator& group) {
        IndexOptions index;
        index.database.store_keypoints = keypoints;
        index.profile = &profiles[static_cast<std::size_t>(group.rank())];
        ImageSearchOptions how;
        how.histogrammer.backend = Backend::OpenMP;
        how.histogrammer.threads = 1;
        how.extractor.surf_backend = SurfBackend::Builtin;
        how.pipeline.workers = 1;
        how.pipeline.batch_images = 2;
        const IndexSummary summary = indexImages(group, job().paths, *job().vocabulary, job().spec, output, index, how);
        EXPECT_EQ(summary.images, 6);
        EXPECT_EQ(summary.failed, 3);
      });
      EXPECT_TRUE(fileBytes(output) == expected);
      std::int64_t images = 0, sent = 0;
      for (int r = 0; r < ranks; ++r) {
        const IndexProfile& p = profiles[static_cast<std::size_t>(r)];
        images += p.images;
        if (r > 0) sent += p.bytes;
        for (double seconds : {p.list_s, p.setup_wait_s, p.setup_s, p.work_s, p.gather_s, p.write_s, p.waiting_s})
          EXPECT_GE(seconds, 0) << "rank " << r;
        EXPECT_GT(p.setup_s, 0) << "rank " << r;
        if (r == 0) {
          EXPECT_GT(p.write_s, 0);  // rank 0 alone writes the file
        }
      }
      EXPECT_EQ(images, 6);
      EXPECT_EQ(profiles[0].bytes, sent);  // what the others sent is what rank 0 received
      if (ranks == 1) {
        EXPECT_EQ(sent, 0);
      }
    }
  }
}

// A stream that a rank fills out of the list's order (here rank 1 sends an image of rank 0's part)
// fails on the root, after every rank's stream has been drained; so does a consumer that throws. No
// rank is left waiting: each returns from finish().
TEST(ResultStream, OutOfOrderImagesAndConsumerFailuresFailTheRootAfterTheDrain) {
  const std::vector<std::string> list = {"a.png", "b.png", "c.png", "d.png"};
  auto batchOf = [](std::vector<std::string> names) {
    ImageHistograms batch;
    batch.histograms = Histograms::Constant(static_cast<Eigen::Index>(names.size()), 3, 1);
    batch.descriptor_counts.assign(names.size(), 1);
    batch.names = std::move(names);
    return batch;
  };
  // In order: each rank's batches handed on in its list order, tagged with the rank.
  for (int ranks : {2, 3}) {
    std::vector<std::vector<std::string>> by_rank(static_cast<std::size_t>(ranks));
    test::runOnRanks(ranks, [&](Communicator& group) {
      detail::ResultStream stream(group, list, 0, [&](int rank, ImageHistograms batch) {
        std::vector<std::string>& handed = by_rank[static_cast<std::size_t>(rank)];
        handed.insert(handed.end(), batch.names.begin(), batch.names.end());
      });
      if (group.rank() == 0) stream.add(batchOf({"a.png"}));
      if (group.rank() == 1) {
        stream.add(batchOf({"b.png"}));
        stream.add(batchOf({"c.png"}));
      }
      if (group.rank() == 2) stream.add(batchOf({"d.png"}));
      stream.finish();
    });
    EXPECT_EQ(by_rank[0], std::vector<std::string>({"a.png"}));
    EXPECT_EQ(by_rank[1], std::vector<std::string>({"b.png", "c.png"}));
    if (ranks == 3) {
      EXPECT_EQ(by_rank[2], std::vector<std::string>({"d.png"}));
    }
  }
  std::vector<std::string> caught(2);
  test::runOnRanks(2, [&](Communicator& group) {
    detail::ResultStream stream(group, list, 0, [](int, ImageHistograms) {});
    if (group.rank() == 0) stream.add(batchOf({"c.png"}));
    if (group.rank() == 1) {
      stream.add(batchOf({"b.png"}));  // before rank 0's c.png in the list
      stream.add(batchOf({"d.png"}));
    }
    try {
      stream.finish();
    } catch (const InvalidInput& e) {
      caught[static_cast<std::size_t>(group.rank())] = e.what();
    }
  });
  EXPECT_TRUE(test::contains(caught[0], "b.png")) << caught[0];
  EXPECT_TRUE(caught[1].empty());
  test::runOnRanks(2, [&](Communicator& group) {
    detail::ResultStream stream(group, list, 0, [](int, ImageHistograms batch) {
      if (batch.names.back() == "c.png") throw IoError("disk full at c.png");
    });
    if (group.rank() == 0) stream.add(batchOf({"a.png"}));
    if (group.rank() == 1) {
      stream.add(batchOf({"b.png", "c.png"}));
      stream.add(batchOf({"d.png"}));
    }
    if (group.rank() == 0) EXPECT_THROW(stream.finish(), IoError);
    else stream.finish();
  });
}

}  // namespace
}  // namespace bovw
