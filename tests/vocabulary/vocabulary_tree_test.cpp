// Hierarchical k-means (KMeansOptions::branching): exactly K leaves for any K, byte-identical for a
// seed on any thread count, every word the mean of its descriptors (recomputed in float64 here), nodes with few or
// identical descriptors, progress per node, and bad branching factors refused.
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/kmeans.hpp>

#include <algorithm>
#include <cstring>
#include <set>

namespace bovw::test {
namespace {

KMeansOptions treeOptions(int words, int branching, unsigned long long seed) {
  KMeansOptions options;
  options.words = words;
  options.branching = branching;
  options.seed = seed;
  return options;
}

bool byteIdentical(const Vocabulary& a, const Vocabulary& b) {
  return a.size() == b.size() && a.dimension() == b.dimension() &&
         std::memcmp(a.centroids().data(), b.centroids().data(), sizeof(float) * a.centroids().size()) == 0;
}

int distinctWords(const Vocabulary& v) {
  std::set<std::vector<float>> words;
  for (int w = 0; w < v.size(); ++w) words.emplace(v.centroids().row(w).data(), v.centroids().row(w).data() + v.dimension());
  return static_cast<int>(words.size());
}

// Groups far apart (spread 1000), each of `per_group` blobs (spread 10), each of `per_blob` points
// (noise 0.05): every split of the tree, top and bottom, has one clear answer.
Descriptors nestedBlobs(std::mt19937_64& rng, int groups, int per_group, int per_blob, int d) {
  const Descriptors group_centres = randomMatrix(rng, groups, d, 0.0f, 1000.0f);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  Descriptors x(static_cast<Eigen::Index>(groups) * per_group * per_blob, d);
  Eigen::Index row = 0;
  for (int g = 0; g < groups; ++g) {
    const Descriptors blob_centres = randomMatrix(rng, per_group, d, 0.0f, 10.0f);
    for (int b = 0; b < per_group; ++b)
      for (int p = 0; p < per_blob; ++p, ++row)
        for (int f = 0; f < d; ++f) x(row, f) = group_centres(g, f) + blob_centres(b, f) + noise(rng);
  }
  return x;
}

TEST(VocabularyTree, ExactlyKLeavesAndByteIdenticalForASeed) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 3000, 16);
  // b^L, and K that are not powers of b (the last levels split unevenly), and b = K (one level).
  for (const auto& [k, b] : std::vector<std::pair<int, int>>{{64, 4}, {50, 4}, {37, 8}, {100, 3}, {12, 12}}) {
    const unsigned long long seed = rng();
    const Vocabulary first = trainVocabulary(x, treeOptions(k, b, seed));
    const Vocabulary again = trainVocabulary(x, treeOptions(k, b, seed));
    EXPECT_EQ(first.size(), k) << "K = " << k << ", b = " << b;
    EXPECT_TRUE(first.centroids().allFinite());
    EXPECT_EQ(distinctWords(first), k) << "K = " << k << ", b = " << b;
    EXPECT_TRUE(byteIdentical(first, again)) << "K = " << k << ", b = " << b;
    KMeansOptions one_thread = treeOptions(k, b, seed);  // nodes then train one after another
    one_thread.assignment.threads = 1;
    EXPECT_TRUE(byteIdentical(first, trainVocabulary(x, one_thread))) << "K = " << k << ", b = " << b;
    EXPECT_FALSE(byteIdentical(first, trainVocabulary(x, treeOptions(k, b, seed + 1)))) << "K = " << k;
  }
}

// Each word is the mean of the descriptors that reached its leaf. On nested blobs the tree's
// descent and the exact nearest word agree, so the test can find those descriptors itself, once the
// tree has given each blob a leaf of its own. It does not always: about 1 training in 150 split one
// blob between two leaves and gave another leaf two blobs (a local optimum of a node's k-means, not
// a fault), so a tree that does not is trained again on new blobs, up to 4 times.
TEST(VocabularyTree, EveryWordIsTheMeanOfItsLeafsDescriptors) {
  BOVW_SEEDED_RNG(rng);
  const int d = 8;
  bool checked = false;
  for (int attempt = 0; attempt < 4 && !checked; ++attempt) {
    const Descriptors x = nestedBlobs(rng, 4, 4, 30, d);
    KMeansOptions options = treeOptions(16, 4, rng());
    options.descriptor_type = DescriptorType::parse("float");
    const Vocabulary v = trainVocabulary(x, options);
    ASSERT_EQ(v.size(), 16);
    EXPECT_EQ(v.descriptorType(), options.descriptor_type);
    HistogrammerConfig serial;
    serial.backend = Backend::Serial;
    const auto nearest = makeHistogrammer(serial)->assign(x, v);
    std::vector<Eigen::RowVectorXd> sums(16, Eigen::RowVectorXd::Zero(d));
    std::vector<int> counts(16, 0);
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
      sums[static_cast<std::size_t>(nearest[i])] += x.row(i).cast<double>();
      ++counts[static_cast<std::size_t>(nearest[i])];
    }
    if (std::any_of(counts.begin(), counts.end(), [](int count) { return count != 30; })) continue;
    checked = true;
    for (int w = 0; w < 16; ++w) {
      const Eigen::RowVectorXd mean = sums[w] / counts[w];
      for (int f = 0; f < d; ++f)  // float32 rounding of values near 1000: 6e-5
        EXPECT_NEAR(v.centroids()(w, f), mean(f), 1e-4 * std::max(1.0, std::abs(mean(f)))) << "word " << w;
    }
  }
  EXPECT_TRUE(checked) << "no tree of 4 gave each blob a leaf of its own";
}

// A far pair of descriptors (far enough that k-means++ seeds one root word there whatever it draws
// first) cannot take its even share (4) of the root's 16 leaves: it gets 2, one per descriptor, and
// the other groups make up the difference.
TEST(VocabularyTree, ANodeWithFewerDescriptorsThanItsShareGetsOneLeafPerDescriptor) {
  BOVW_SEEDED_RNG(rng);
  const int d = 8;
  Descriptors x(3 * 100 + 2, d);
  x.topRows(300) = nestedBlobs(rng, 3, 10, 10, d);
  x.row(300).setConstant(1e5f);
  x.row(301).setConstant(1e5f + 1.0f);
  const Vocabulary v = trainVocabulary(x, treeOptions(16, 4, rng()));
  ASSERT_EQ(v.size(), 16);
  EXPECT_TRUE(v.centroids().allFinite());
  EXPECT_EQ(distinctWords(v), 16);
  for (Eigen::Index row : {300, 301}) {
    bool found = false;
    for (int w = 0; w < 16; ++w) found = found || v.centroids().row(w) == x.row(row);
    EXPECT_TRUE(found) << "the far descriptor " << row << " is not a word of its own";
  }
}

// Fewer distinct descriptors than K: a node whose descriptors are all equal cannot be split, and
// its leaves repeat them (duplicated words); still K valid words, every distinct point among them.
TEST(VocabularyTree, IdenticalDescriptorsGiveDuplicatedWordsNotFewer) {
  Descriptors x(24, 2);
  for (Eigen::Index i = 0; i < 24; ++i) x.row(i) << static_cast<float>(i % 3) * 10.0f, 1.0f;  // 3 distinct points
  for (unsigned long long seed = 0; seed < 5; ++seed) {
    const Vocabulary v = trainVocabulary(x, treeOptions(12, 4, seed));
    ASSERT_EQ(v.size(), 12);
    EXPECT_TRUE(v.centroids().allFinite());
    EXPECT_EQ(distinctWords(v), 3) << "seed " << seed;
    auto histogrammer = makeHistogrammer({});
    EXPECT_EQ(kmeansInertia(x, v, *histogrammer), 0.0) << "seed " << seed;
  }
}

TEST(VocabularyTree, ProgressNamesEachNode) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 1000, 8);
  std::set<std::string> nodes;
  KMeansOptions options = treeOptions(16, 4, rng());
  options.progress = [&](const KMeansIteration& it) { nodes.insert(it.node); };
  trainVocabulary(x, options);
  EXPECT_EQ(nodes, (std::set<std::string>{"", "0", "1", "2", "3"}));
}

TEST(VocabularyTree, BadBranchingIsRefused) {
  BOVW_SEEDED_RNG(rng);
  const Descriptors x = randomMatrix(rng, 100, 4);
  for (int b : {1, -3, 11}) {
    try {
      trainVocabulary(x, treeOptions(10, b, 0));
      FAIL() << "branching " << b << " accepted";
    } catch (const InvalidInput& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("branching " + std::to_string(b)), std::string::npos) << message;
    }
  }
  try {
    trainVocabulary(x, treeOptions(101, 4, 0));
    FAIL() << "K > N accepted";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("larger than the sample"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace bovw::test
