// The job's file list and its split: every rank receives rank 0's list, parts are contiguous and of
// about equal bytes, part p goes to rank p mod R, and the ranks' files together are the list.
#include "support/thread_communicator.hpp"

#include "distributed/work_split.hpp"

#include <gtest/gtest.h>

#include <mutex>

namespace bovw {
namespace {

FileList someFiles(std::size_t count) {
  FileList list;
  for (std::size_t i = 0; i < count; ++i) {
    list.paths.push_back("folder/image_" + std::to_string(i) + ".png");
    list.sizes.push_back(1000 + 37 * (i % 5));
  }
  return list;
}

TEST(WorkSplit, EveryRankReceivesRankZerosList) {
  const FileList list = someFiles(7);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    test::runOnRanks(ranks, [&](Communicator& group) {
      const FileList mine = group.rank() == 0 ? list : someFiles(2);  // others' lists are ignored
      const FileList received = broadcastFileList(group, mine);
      EXPECT_EQ(received.paths, list.paths);
      EXPECT_EQ(received.sizes, list.sizes);
    });
  }
}

TEST(WorkSplit, PartsAreContiguousOfAboutEqualBytes) {
  EXPECT_EQ(splitBySize({10, 10, 10, 10}, 2), (std::vector<std::size_t>{0, 0, 1, 1}));
  EXPECT_EQ(splitBySize({30, 1, 1, 1, 1}, 2), (std::vector<std::size_t>{0, 1, 1, 1, 1}));
  EXPECT_EQ(splitBySize({0, 0, 0}, 3), (std::vector<std::size_t>{0, 1, 2}));  // sizes unknown: by count
  EXPECT_EQ(splitBySize({5, 5}, 4), (std::vector<std::size_t>{1, 3}));         // more parts than files
  EXPECT_TRUE(splitBySize({}, 3).empty());
}

TEST(WorkSplit, RanksTogetherHoldEveryFileOnce) {
  const FileList list = someFiles(11);
  for (std::size_t parts : {1, 2, 3, 5, 16})
    for (int ranks = 1; ranks <= 5; ++ranks) {
      const auto part_of = splitBySize(list.sizes, parts);
      std::vector<std::string> all;
      for (int r = 0; r < ranks; ++r) {
        const auto files = filesOfRank(list, part_of, ranks, r);
        for (const auto& f : files) {
          const auto i = static_cast<std::size_t>(std::find(list.paths.begin(), list.paths.end(), f) - list.paths.begin());
          EXPECT_EQ(rankOfPart(part_of[i], ranks), r);
        }
        all.insert(all.end(), files.begin(), files.end());
      }
      std::sort(all.begin(), all.end());
      std::vector<std::string> expected = list.paths;
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(all, expected) << parts << " parts, " << ranks << " ranks";
    }
}

}  // namespace
}  // namespace bovw
