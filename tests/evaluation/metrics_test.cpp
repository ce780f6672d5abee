// Retrieval scores on rankings small enough to score by hand, and the groups CSV reader's answers
// to malformed files (the file and the line named).
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/retrieval_metrics.hpp>

namespace bovw::test {
namespace {

TEST(ScoreRankings, TwoGroupsOfTwoByHand) {
  // Images 0, 1 are group A; 2, 3 group B. Query q is image q; its relevant set is its group
  // (itself included), 2 images each.
  //   q0: 0 2 1 3   top 4 holds 0, 1          -> 2   AP = (1/1 + 2/3) / 2 = 5/6
  //   q1: 1 0 2 3   top 4 holds 1, 0          -> 2   AP = (1/1 + 2/2) / 2 = 1
  //   q2: 0 1 3 2   top 4 holds 3, 2          -> 2   AP = (1/3 + 2/4) / 2 = 5/12
  //   q3: 3         (truncated: 2 never found) -> 1   AP = (1/1) / 2       = 1/2
  // N-S = (2 + 2 + 2 + 1) / 4 = 1.75;  mAP = (10/12 + 12/12 + 5/12 + 6/12) / 4 = 33/48 = 0.6875.
  const RetrievalScores s = scoreRankings({{0, 2, 1, 3}, {1, 0, 2, 3}, {0, 1, 3, 2}, {3}}, {"A", "A", "B", "B"});
  EXPECT_EQ(s.queries, 4u);
  EXPECT_DOUBLE_EQ(s.ns_score, 1.75);
  EXPECT_DOUBLE_EQ(s.mean_ap, 33.0 / 48.0);
}

TEST(ScoreRankings, OnlyTheTopFourCountForNS) {
  // Groups A = {0, 1}, B = {2, 3}, C = {4, 5}.
  //   q0: 0 2 3 4 1 5  top 4 holds only 0 -> 1   AP = (1/1 + 2/5) / 2 = 0.7
  //   q1: 1 0 2 3 4 5  -> 2, AP 1;   q2: 2 3 -> 2, AP 1;   q3: 3 2 -> 2, AP 1;   q4: 4 5 -> 2, AP 1
  //   q5: (nothing)    -> 0, AP 0
  // N-S = 9 / 6 = 1.5;  mAP = (0.7 + 4) / 6.
  const RetrievalScores s = scoreRankings({{0, 2, 3, 4, 1, 5}, {1, 0, 2, 3, 4, 5}, {2, 3}, {3, 2}, {4, 5}, {}},
                                          {"A", "A", "B", "B", "C", "C"});
  EXPECT_EQ(s.queries, 6u);
  EXPECT_DOUBLE_EQ(s.ns_score, 1.5);
  EXPECT_NEAR(s.mean_ap, 4.7 / 6.0, 1e-12);
}

TEST(ScoreRankings, PerfectUKBenchRankingsScoreFourAndOne) {
  // Two groups of four, each query ranking its own group first (any order within it).
  std::vector<std::string> groups = {"g0", "g0", "g0", "g0", "g1", "g1", "g1", "g1"};
  std::vector<std::vector<std::size_t>> rankings;
  for (std::size_t q = 0; q < 8; ++q) {
    const std::size_t base = q < 4 ? 0 : 4, other = q < 4 ? 4 : 0;
    rankings.push_back({q, base + (q + 1) % 4, base + (q + 2) % 4, base + (q + 3) % 4, other, other + 1});
  }
  const RetrievalScores s = scoreRankings(rankings, groups);
  EXPECT_DOUBLE_EQ(s.ns_score, 4.0);
  EXPECT_DOUBLE_EQ(s.mean_ap, 1.0);
  // Nothing retrieved at all.
  const RetrievalScores none = scoreRankings(std::vector<std::vector<std::size_t>>(8), groups);
  EXPECT_EQ(none.ns_score, 0.0);
  EXPECT_EQ(none.mean_ap, 0.0);
}

TEST(ScoreRankings, NoQueriesScoreZeroNotNaN) {
  const RetrievalScores s = scoreRankings({}, {});
  EXPECT_EQ(s.queries, 0u);
  EXPECT_EQ(s.ns_score, 0.0);
  EXPECT_EQ(s.mean_ap, 0.0);
}

TEST(ScoreRankings, InconsistentInputIsInvalid) {
  EXPECT_THROW(scoreRankings({{0}, {1}}, {"A", "A", "B"}), InvalidInput);
  EXPECT_THROW(scoreRankings({{0, 5}, {1}}, {"A", "A"}), InvalidInput);
}

// ---------------------------------------------------------------------------------------------
// readGroupsCsv

class GroupsCsv : public testing::Test {
 protected:
  std::string write(const std::string& text) {
    const std::string path = dir_.file("groups" + std::to_string(++count_) + ".csv");
    writeText(path, text);
    return path;
  }
  // InvalidInput naming the file and, where given, the line.
  void expectInvalid(const std::string& text, const std::string& line = "") {
    const std::string path = write(text);
    SCOPED_TRACE("file content: '" + text + "'");
    try {
      readGroupsCsv(path);
      ADD_FAILURE() << "accepted";
    } catch (const InvalidInput& e) {
      EXPECT_TRUE(contains(e.what(), path)) << e.what();
      if (!line.empty()) {
        EXPECT_TRUE(contains(e.what(), "line " + line)) << e.what();
      }
    }
  }
  TempDir dir_;
  int count_ = 0;
};

TEST_F(GroupsCsv, ReadsEntriesInOrder) {
  const auto entries = readGroupsCsv(write("image,group\r\na.png,0\r\n\r\nsub/b.jpg,0\nc.png,obj7\n"));
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].image, "a.png");
  EXPECT_EQ(entries[0].group, "0");
  EXPECT_EQ(entries[1].image, "sub/b.jpg");
  EXPECT_EQ(entries[1].group, "0");
  EXPECT_EQ(entries[2].image, "c.png");
  EXPECT_EQ(entries[2].group, "obj7");
  // No newline at the end of the file.
  EXPECT_EQ(readGroupsCsv(write("image,group\nx.png,1")).size(), 1u);
}

TEST_F(GroupsCsv, MalformedFilesNameTheFileAndLine) {
  expectInvalid("");                                    // empty file
  expectInvalid("a.png,0\nb.png,0\n");                  // no header
  expectInvalid("image;group\na.png;0\n");              // another separator
  expectInvalid("image,group\n");                       // header only: no images
  expectInvalid("image,group\na.png,0\nb.png\n", "3");  // a line without a comma
  expectInvalid("image,group\na.png,0\na.png,1\n", "3");  // the same image twice
  expectInvalid("image,group\n,0\n", "2");              // no image
  expectInvalid("image,group\na.png,\n", "2");          // no group
  expectInvalid("image,group\na.png,0,extra\n", "2");   // too many fields
}

TEST_F(GroupsCsv, AMissingFileIsAnIoError) {
  EXPECT_THROW(readGroupsCsv(dir_.file("missing.csv")), IoError);
}

}  // namespace
}  // namespace bovw::test
