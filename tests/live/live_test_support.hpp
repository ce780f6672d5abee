// What the live database's tests share: random vocabularies and images, and the check that a
// database ranks exactly as one indexed afresh from the same images.
#pragma once

#include "support/refusal_checks.hpp"
#include "support/retrieval_test_support.hpp"

#include <bovw/error.hpp>
#include <bovw/image_database.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <random>
#include <string>

namespace bovw::test {

inline const FeatureSpec kSurf("surf");

// `call` throws InvalidInput whose message names `path` and says `problem`.
inline void expectInvalidInput(const std::function<void()>& call, const std::string& path, const std::string& problem) {
  const Thrown thrown = thrownBy(call);
  EXPECT_EQ(thrown.kind, "InvalidInput") << thrown.message;
  EXPECT_NE(thrown.message.find(path), std::string::npos) << thrown.message;
  EXPECT_NE(thrown.message.find(problem), std::string::npos) << thrown.message;
}

// Runs `work` in a child process (another process's writes: the child opens the database itself,
// since the parent's environment must not be used there) and waits for it: whether it finished
// without throwing.
inline bool succeedsInChildProcess(const std::function<void()>& work) {
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    int status = 0;
    try {
      work();
    } catch (...) {
      status = 1;
    }
    ::_exit(status);
  }
  int status = -1;
  return ::waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

inline Vocabulary randomVocabulary(std::mt19937_64& rng, int k) {
  return Vocabulary(randomMatrix(rng, k, 64), DescriptorType::parse("surf64"));
}

// An image's words: `count` draws, popular words more often (as real images' words are).
inline ImageWords randomWords(std::mt19937_64& rng, int k, int count) {
  std::geometric_distribution<int> skewed(4.0 / k);
  ImageWords words;
  for (int i = 0; i < count; ++i) words.words.push_back(skewed(rng) % k);
  return words;
}

// Keypoints for the words, inside a 640 x 480 image.
inline ImageWords withKeypoints(std::mt19937_64& rng, ImageWords words) {
  std::uniform_real_distribution<float> x(0, 640), y(0, 480);
  std::uniform_int_distribution<std::uint64_t> bits;
  words.image_size = cv::Size(640, 480);
  for (std::size_t i = 0; i < words.words.size(); ++i) {
    words.points.emplace_back(x(rng), y(rng));
    words.signatures.push_back(bits(rng));
  }
  return words;
}

inline Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> histogramOf(const ImageWords& words, int k) {
  Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic> h = Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>::Zero(k);
  for (std::int32_t w : words.words) ++h[w];
  return h;
}

// Name -> score of a query's whole ranking.
inline std::map<std::string, double> ranking(const ImageDatabase& database, const Eigen::Matrix<std::int32_t, 1, Eigen::Dynamic>& q,
                                      const ScoringOptions& scoring) {
  std::map<std::string, double> scores;
  for (const SearchResult& r : database.index().query(q, database.index().size() + 1, scoring)) scores[r.name] = r.score;
  return scores;
}

inline void expectSameRankings(const ImageDatabase& live, const ImageDatabase& fresh, std::mt19937_64& rng, int k) {
  ASSERT_EQ(live.index().size(), fresh.index().size());
  const ScoringOptions scorings[] = {{}, {Scoring::Cosine, TermWeighting::Count, 1.0},
                                     {Scoring::Intersection, TermWeighting::Sqrt, 0.5},
                                     {Scoring::Cosine, TermWeighting::Log, 0.3}};
  for (int q = 0; q < 12; ++q) {
    const auto query = histogramOf(randomWords(rng, k, 1 + q * 7), k);
    for (const ScoringOptions& scoring : scorings) {
      const auto expected = ranking(fresh, query, scoring);
      const auto got = ranking(live, query, scoring);
      ASSERT_EQ(got.size(), expected.size()) << toString(scoring);
      for (const auto& [name, score] : expected) {
        ASSERT_TRUE(got.count(name)) << name;
        EXPECT_NEAR(got.at(name), score, 1e-9) << name << " under " << toString(scoring);
      }
    }
  }
}

}  // namespace bovw::test
