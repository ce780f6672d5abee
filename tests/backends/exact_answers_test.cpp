// Constructed inputs with one right answer, demanded exactly from every backend and kernel variant:
// perturbed copies of chosen words (OpenCV matcher-test style), the tie rule (duplicate words go
// to the lower index, also across ConstantCentroids' vocabulary chunks), K = 1, empty batches,
// vocabulary reuse and replacement across calls (stale caches).
#include "support/test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/histogrammer.hpp>

#include <numeric>

namespace bovw::test {
namespace {

class ExactAnswers : public testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend == Backend::OpenCL) BOVW_REQUIRE_OPENCL();
  }
  std::unique_ptr<Histogrammer> make(int work_group_size = 64) {
    return makeHistogrammer(configFor(GetParam(), work_group_size));
  }

  // Perturbed copies of random words of a random vocabulary, split into `offsets`: the histograms
  // and assignments must be exactly the chosen words.
  void expectExact(std::mt19937_64& rng, int k, int d, const std::vector<std::int64_t>& offsets) {
    const std::int64_t n = offsets.back();
    const Vocabulary vocabulary(randomMatrix(rng, k, d));
    const auto words = randomWords(rng, n, k);
    const Descriptors x = perturbedCopies(rng, vocabulary.centroids(), words);
    std::vector<std::int32_t> assignments;
    const Histograms h = make()->compute(DescriptorBatch(x, offsets), vocabulary, &assignments);
    EXPECT_TRUE(assignmentsEqual(words, assignments)) << "K=" << k << " D=" << d << " N=" << n;
    EXPECT_TRUE(histogramsEqual(bincount(offsets, k, words), h)) << "K=" << k << " D=" << d << " N=" << n;
  }
};

TEST_P(ExactAnswers, PerturbedCopiesSmallVocabulary) {
  BOVW_SEEDED_RNG(rng);
  expectExact(rng, 8, 64, randomOffsets(rng, 1000, 7));
}

TEST_P(ExactAnswers, PerturbedCopiesVocabularyOf257) {
  BOVW_SEEDED_RNG(rng);
  expectExact(rng, 257, 128, randomOffsets(rng, 777, 5));
}

TEST_P(ExactAnswers, PerturbedCopiesVocabularyOf1000) {
  BOVW_SEEDED_RNG(rng);
  expectExact(rng, 1000, 64, randomOffsets(rng, 130, 3));
}

// First, middle and last image empty, plus two empty images in a row.
TEST_P(ExactAnswers, EmptyImagesFirstMiddleLast) {
  BOVW_SEEDED_RNG(rng);
  expectExact(rng, 16, 64, {0, 0, 40, 40, 41, 41, 105, 105, 105});
  expectExact(rng, 16, 128, {0, 0, 65, 65});
}

TEST_P(ExactAnswers, VocabularyLargerThanTheConstantBuffer) {
  BOVW_SEEDED_RNG(rng);
  const std::uint64_t constant = openclAvailable() ? testDevice().constant_memory : 64 * 1024;
  const ChunkedShape shape = chunkedShape(constant);
  ASSERT_GT(4ull * shape.k * shape.d, constant);
  expectExact(rng, shape.k, shape.d, randomOffsets(rng, 301, 4));
}

TEST_P(ExactAnswers, SingleWordVocabulary) {
  BOVW_SEEDED_RNG(rng);
  const Vocabulary vocabulary(randomMatrix(rng, 1, 64));
  const Descriptors x = randomMatrix(rng, 65, 64, -10.0f, 10.0f);  // far or near, only one word
  const std::vector<std::int64_t> offsets{0, 1, 1, 64, 65};
  std::vector<std::int32_t> assignments;
  const Histograms h = make()->compute(DescriptorBatch(x, offsets), vocabulary, &assignments);
  EXPECT_TRUE(assignmentsEqual(std::vector<std::int32_t>(65, 0), assignments));
  Histograms expected(4, 1);
  expected << 1, 0, 63, 1;
  EXPECT_TRUE(histogramsEqual(expected, h));
}

// Words 3 and 7 are identical: a descriptor equal to them, or a perturbed copy of them, is at
// bit-identical distances from both (the same arithmetic on the same data), so the tie rule alone
// decides, and it must say 3. Also all-identical vocabularies: everything goes to word 0.
TEST_P(ExactAnswers, DuplicateWordsGoToTheLowerIndex) {
  BOVW_SEEDED_RNG(rng);
  for (int d : {64, 128}) {
    Descriptors c = randomMatrix(rng, 10, d);
    c.row(7) = c.row(3);
    const Vocabulary vocabulary(c);
    const std::vector<std::int32_t> chosen{7, 3, 7, 7, 3, 0, 9, 7};
    Descriptors x = perturbedCopies(rng, c, chosen);
    x.row(0) = c.row(7);  // exact copies: distance 0 to both
    x.row(1) = c.row(3);
    std::vector<std::int32_t> expected{3, 3, 3, 3, 3, 0, 9, 3};
    std::vector<std::int32_t> assignments;
    const Histograms h =
        make()->compute(DescriptorBatch(x, {0, 3, 8}), vocabulary, &assignments);
    EXPECT_TRUE(assignmentsEqual(expected, assignments)) << "D=" << d;
    EXPECT_TRUE(histogramsEqual(bincount({0, 3, 8}, 10, expected), h)) << "D=" << d;
    EXPECT_EQ(h(0, 7) + h(1, 7), 0) << "D=" << d;
  }
  Descriptors same(8, 64);
  same.rowwise() = randomMatrix(rng, 1, 64).row(0);
  const Vocabulary all_same(same);
  EXPECT_TRUE(assignmentsEqual(std::vector<std::int32_t>(100, 0),
                               make()->assign(randomMatrix(rng, 100, 64), all_same)));
}

// ConstantCentroids scans a large vocabulary in chunks with a running minimum: a duplicate of a
// word in a later chunk must not win (strictly-smaller replacement across chunks too). The same
// data checks the other paths' handling of a large K.
TEST_P(ExactAnswers, DuplicateWordsInDifferentVocabularyChunksGoToTheLowerIndex) {
  BOVW_SEEDED_RNG(rng);
  const std::uint64_t constant = openclAvailable() ? testDevice().constant_memory : 64 * 1024;
  const ChunkedShape shape = chunkedShape(constant);
  const int p = shape.words_per_chunk;
  Descriptors c = randomMatrix(rng, shape.k, shape.d);
  c.row(p + 5) = c.row(5);        // chunk 1 duplicates chunk 0
  c.row(2 * p + 1) = c.row(5);    // chunk 2 duplicates chunk 0
  c.row(2 * p + 2) = c.row(p + 9);  // chunk 2 duplicates chunk 1
  c.row(p) = c.row(p - 1);        // the two sides of the first chunk boundary
  const Vocabulary vocabulary(c);
  const std::vector<std::int32_t> chosen{p + 5, 2 * p + 1, 5, 2 * p + 2, p + 9, p, p - 1, shape.k - 1};
  Descriptors x = perturbedCopies(rng, c, chosen);
  x.row(0) = c.row(p + 5);
  x.row(3) = c.row(2 * p + 2);
  const std::vector<std::int32_t> expected{5, 5, 5, p + 9, p + 9, p - 1, p - 1, shape.k - 1};
  EXPECT_TRUE(assignmentsEqual(expected, make()->assign(x, vocabulary)))
      << "K=" << shape.k << " D=" << shape.d << " words per constant-buffer chunk " << p;
}

// The vocabulary stays resident (on the device, or transposed on the CPU) between calls; a
// different vocabulary of the same shape must replace it. B holds A's words in another order, so a stale device copy gives wrong words.
TEST_P(ExactAnswers, VocabularyReuseAndReplacement) {
  BOVW_SEEDED_RNG(rng);
  auto h = make();
  const int k = 40, d = 64;
  const Descriptors a_words = randomMatrix(rng, k, d);
  std::vector<int> permutation(k);
  std::iota(permutation.begin(), permutation.end(), 0);
  std::shuffle(permutation.begin(), permutation.end(), rng);
  Descriptors b_words(k, d);
  for (int j = 0; j < k; ++j) b_words.row(j) = a_words.row(permutation[j]);
  const Vocabulary a(a_words), b(b_words);

  const auto chosen_in_a = randomWords(rng, 333, k);
  const Descriptors x = perturbedCopies(rng, a_words, chosen_in_a);
  std::vector<std::int32_t> in_b(chosen_in_a.size());
  std::vector<int> inverse(k);
  for (int j = 0; j < k; ++j) inverse[permutation[j]] = j;
  for (std::size_t i = 0; i < in_b.size(); ++i) in_b[i] = inverse[chosen_in_a[i]];

  EXPECT_TRUE(assignmentsEqual(chosen_in_a, h->assign(x, a))) << "first call, vocabulary A";
  EXPECT_TRUE(assignmentsEqual(chosen_in_a, h->assign(x, a))) << "second call, vocabulary A";
  EXPECT_TRUE(assignmentsEqual(in_b, h->assign(x, b))) << "vocabulary B after A";
  EXPECT_TRUE(assignmentsEqual(chosen_in_a, h->assign(x, a))) << "vocabulary A after B";
  const Vocabulary a_copy = a;  // copies share the identity, and the contents
  EXPECT_TRUE(assignmentsEqual(chosen_in_a, h->assign(x, a_copy))) << "copy of A";
  {
    // A vocabulary made, used and destroyed, then another made in its place.
    const Vocabulary temporary(b_words);
    EXPECT_TRUE(assignmentsEqual(in_b, h->assign(x, temporary)));
  }
  const Vocabulary again(a_words);
  EXPECT_TRUE(assignmentsEqual(chosen_in_a, h->assign(x, again))) << "new vocabulary with A's words";

  // A different width on the same histogrammer: kernels are rebuilt for the new D, and back.
  const Vocabulary wide(randomMatrix(rng, 20, 128));
  const auto chosen_wide = randomWords(rng, 70, 20);
  const Descriptors x_wide = perturbedCopies(rng, wide.centroids(), chosen_wide);
  EXPECT_TRUE(assignmentsEqual(chosen_wide, h->assign(x_wide, wide))) << "D = 128 after D = 64";
  EXPECT_TRUE(assignmentsEqual(in_b, h->assign(x, b))) << "D = 64 again";

  // A different N on the same histogrammer: growing and shrinking device buffers.
  const auto many = randomWords(rng, 5000, k);
  EXPECT_TRUE(assignmentsEqual(many, h->assign(perturbedCopies(rng, a_words, many), a))) << "N = 5000";
  const auto few = randomWords(rng, 3, k);
  std::vector<std::int32_t> few_words;
  const Histograms few_h =
      h->compute(DescriptorBatch(perturbedCopies(rng, a_words, few), {0, 3}), a, &few_words);
  EXPECT_TRUE(assignmentsEqual(few, few_words)) << "N = 3 after 5000";
  EXPECT_TRUE(histogramsEqual(bincount({0, 3}, k, few), few_h)) << "N = 3 after 5000: stale bins?";
}

// N = 0: no kernel runs, but every image still gets a zero histogram of K bins.
TEST_P(ExactAnswers, NoDescriptors) {
  BOVW_SEEDED_RNG(rng);
  const Vocabulary vocabulary(randomMatrix(rng, 5, 64));
  const Descriptors none(0, 64);
  auto h = make();
  std::vector<std::int32_t> assignments{1, 2, 3};
  const Histograms three = h->compute(DescriptorBatch(none, {0, 0, 0, 0}), vocabulary, &assignments);
  EXPECT_TRUE(histogramsEqual(Histograms::Zero(3, 5), three));
  EXPECT_TRUE(assignments.empty());
  const Histograms zero_images = h->compute(DescriptorBatch(none, {0}), vocabulary);
  EXPECT_EQ(zero_images.rows(), 0);
  EXPECT_EQ(zero_images.cols(), 5);
  EXPECT_TRUE(h->assign(none, vocabulary).empty());
  // And the histogrammer still works afterwards.
  const Descriptors one = vocabulary.centroids().row(4);
  EXPECT_TRUE(assignmentsEqual({4}, h->assign(one, vocabulary)));
}

INSTANTIATE_TEST_SUITE_P(AllBackends, ExactAnswers, testing::ValuesIn(allBackendCases()),
                         [](const auto& info) { return caseName(info.param); });

}  // namespace
}  // namespace bovw::test
