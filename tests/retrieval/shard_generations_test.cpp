// ShardedWrite and shardFileNames (bovw/shard_generations.hpp): the names of a generation, the
// generation after the manifest in place (never a name it uses), the removal of replaced shards
// (only this manifest's, never a user's other files), and writers of one folder taking turns.
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/shard_generations.hpp>
#include <bovw/shard_manifest.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

namespace bovw::test {
namespace {

namespace fs = std::filesystem;

// A manifest at `path` listing `shards` (the other fields do not matter here).
void writeManifest(const std::string& path, const std::vector<std::string>& shards) {
  ShardManifest manifest;
  manifest.shards = shards;
  manifest.words = 4;
  manifest.descriptor_type = "surf64";
  manifest.features = "surf";
  std::ostringstream out;
  manifest.write(out);
  writeText(path, out.str());
}

std::vector<std::string> filesIn(const TempDir& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path())) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ShardGenerations, NamesOfAGeneration) {
  EXPECT_EQ(shardFileNames("/data/S.bovwshards", 1, 3),
            (std::vector<std::string>{"S-g1-0.bovwdb", "S-g1-1.bovwdb", "S-g1-2.bovwdb"}));
  EXPECT_EQ(shardFileNames("my.db-2.bovwshards", 12, 1), std::vector<std::string>{"my.db-2-g12-0.bovwdb"});
  for (const std::string bad : {"S.bovwdb", ".bovwshards", "dir/.bovwshards", "S"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(shardFileNames(bad, 1, 2), InvalidInput);
    EXPECT_THROW(ShardedWrite{bad}, InvalidInput);
  }
}

// A file name may be any bytes, JSON text only UTF-8: refused as such, not a JSON library's error.
TEST(ShardGenerations, AManifestOfNamesThatAreNotUtf8IsRefused) {
  ShardManifest manifest;
  manifest.shards = shardFileNames("\xff.bovwshards", 1, 2);
  manifest.words = 4;
  std::ostringstream out;
  try {
    manifest.write(out);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidInput& e) {
    EXPECT_TRUE(contains(e.what(), "UTF-8")) << e.what();
  }
  manifest.shards = shardFileNames("\xc3\xa9t\xc3\xa9.bovwshards", 1, 2);  // UTF-8: written, read back
  manifest.write(out);
  const std::string text = out.str();
  EXPECT_EQ(ShardManifest::parse(std::vector<char>(text.begin(), text.end()), "m").shards, manifest.shards);
}

TEST(ShardGenerations, TheNextGenerationIsAboveEveryOneTheManifestNames) {
  TempDir dir;
  const std::string manifest = dir.file("S.bovwshards");
  EXPECT_EQ(ShardedWrite(manifest).generation(), 1u);  // no manifest
  writeText(manifest, "not json");
  EXPECT_EQ(ShardedWrite(manifest).generation(), 1u);  // not a manifest: replaced
  writeManifest(manifest, {"S-0.bovwdb", "S-1.bovwdb"});  // as earlier bovw named them
  EXPECT_EQ(ShardedWrite(manifest).generation(), 1u);
  writeManifest(manifest, {"S-g3-0.bovwdb", "S-g3-1.bovwdb"});
  EXPECT_EQ(ShardedWrite(manifest).generation(), 4u);
  // Hand-edited: another folder's spelling still counts; another stem's generations, non-canonical
  // numbers and other names do not.
  writeManifest(manifest, {"./S-g7-0.bovwdb", "S-g2-1.bovwdb", "T-g9-0.bovwdb", "S-g09-0.bovwdb", "S-g8-x.bovwdb",
                           "S-g10-0.bovwdb.bak", "SS-g11-0.bovwdb"});
  EXPECT_EQ(ShardedWrite(manifest).generation(), 8u);
  // A generation too large to count (more than 18 digits) is no name of ours: no overflow.
  writeManifest(manifest, {"S-g99999999999999999999-0.bovwdb", "S-g999999999999999999-0.bovwdb"});
  EXPECT_EQ(ShardedWrite(manifest).generation(), 1000000000000000000u);
}

TEST(ShardGenerations, OnlyThisManifestsReplacedShardsAreRemoved) {
  TempDir dir;
  const std::string manifest = dir.file("S.bovwshards");
  writeManifest(manifest, {"S-0.bovwdb", "S-1.bovwdb", "mine.bovwdb"});  // earlier bovw's names, and a user's
  const std::vector<std::string> others = {
      "S-2.bovwdb",                         // named as earlier shards, but not listed: a user's file
      "mine.bovwdb",                        // listed, but not a shard name of ours
      "S-g1-0.bovwdb.bak", "S-g01-0.bovwdb", "S-g0-0.bovwdb", "xS-g1-0.bovwdb", "S-g1-0.bovwdbx",
      "T-g1-0.bovwdb", "S-g1.bovwshards", "S-g2-g1-0.bovwdb",  // the stem "S-g2"'s shard, not ours
      "T.bovwshards", ".bovw-tmp-1-1-S-g1-0.bovwdb"};
  for (const std::string& name : others) writeText(dir.file(name), "x");
  for (const char* name : {"S-0.bovwdb", "S-1.bovwdb", "S-g1-0.bovwdb", "S-g1-5.bovwdb", "S-g7-0.bovwdb"})
    writeText(dir.file(name), "old");
  fs::create_directory(dir.file("S-g4-0.bovwdb"));  // not a file: kept
  ShardedWrite write(manifest);
  ASSERT_EQ(write.generation(), 1u);
  const std::vector<std::string> written = shardFileNames(manifest, 1, 2);
  for (const std::string& name : written) writeText(dir.file(name), "new");
  writeManifest(manifest, written);
  EXPECT_EQ(write.removeOldShards(written),
            (std::vector<std::string>{"S-0.bovwdb", "S-1.bovwdb", "S-g1-5.bovwdb", "S-g7-0.bovwdb"}));
  std::vector<std::string> expected = others;
  expected.insert(expected.end(), {"S.bovwshards", "S-g1-0.bovwdb", "S-g1-1.bovwdb", "S-g4-0.bovwdb"});
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(filesIn(dir), expected);
  EXPECT_EQ(readBytes(dir.file("S-g1-0.bovwdb")), (std::vector<char>{'n', 'e', 'w'}));
}

TEST(ShardGenerations, AFolderThatCannotBeOpenedIsNamed) {
  TempDir dir;
  const std::string manifest = dir.file("missing/S.bovwshards");
  try {
    ShardedWrite write(manifest);
    ADD_FAILURE() << "no exception";
  } catch (const IoError& e) {
    EXPECT_TRUE(contains(e.what(), manifest)) << e.what();
  }
}

// Writers of one folder take turns: the second waits (and says so) until the first is done, then
// reads the manifest the first wrote, so their generations differ.
TEST(ShardGenerations, WritersOfOneFolderTakeTurns) {
  TempDir dir;
  const std::string manifest = dir.file("S.bovwshards");
  std::optional<ShardedWrite> first(std::in_place, manifest);
  ASSERT_EQ(first->generation(), 1u);
  std::atomic<bool> told{false}, done{false};
  std::uint64_t second_generation = 0;
  std::thread second([&] {
    {
      // Another manifest of the same folder waits too.
      const ShardedWrite other(dir.file("T.bovwshards"), [&](const std::string& line) {
        EXPECT_TRUE(contains(line, "waiting")) << line;
        told = true;
      });
    }
    const ShardedWrite again(manifest);
    second_generation = again.generation();
    done = true;
  });
  // The second is waiting, not done, for as long as the first holds the folder.
  for (int i = 0; i < 200 && !told; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(told);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(done);
  writeManifest(manifest, shardFileNames(manifest, 1, 2));
  first.reset();
  second.join();
  EXPECT_TRUE(done);
  EXPECT_EQ(second_generation, 2u);
}

}  // namespace
}  // namespace bovw::test
