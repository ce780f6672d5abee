// The obvious alternative to bovw's pipeline, for docs/PERFORMANCE.md: OpenCV's BOWKMeansTrainer and
// BOWImgDescriptorExtractor (brute-force matcher) on the same SURF descriptors, ranked by TF-IDF cosine
// (the same weighting as bovw's index), scored with the same N-S and mAP code. Prints quality and the
// files-to-histograms rate, as one JSON object.
//
// Usage: opencv_bow_baseline IMAGES_DIR GROUPS.csv --words K [--max-descriptors M] [--seed S]
#include <bovw/error.hpp>
#include <bovw/feature_registry.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_pipeline.hpp>
#include <bovw/retrieval_metrics.hpp>
#include <bovw/surf.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <opencv2/features2d.hpp>

#include <chrono>
#include <iostream>
#include <map>
#include <numeric>
#include <random>

namespace {

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"OpenCV BOW baseline (BOWKMeansTrainer + BOWImgDescriptorExtractor) on bovw's SURF"};
  std::string images_dir, groups_csv;
  int words = 1000;
  int max_descriptors = 200000;
  unsigned seed = 0;
  app.add_option("IMAGES_DIR", images_dir)->required();
  app.add_option("GROUPS_CSV", groups_csv)->required();
  app.add_option("--words", words)->required();
  app.add_option("--max-descriptors", max_descriptors);
  app.add_option("--seed", seed);
  CLI11_PARSE(app, argc, argv);

  try {
    const auto paths = bovw::listImages(images_dir);
    std::map<std::string, std::string> group_of;
    for (const auto& entry : bovw::readGroupsCsv(groups_csv)) group_of[entry.image] = entry.group;
    bovw::ExtractorOptions builtin;
    builtin.surf_backend = bovw::SurfBackend::Builtin;
    const auto surf = bovw::makeFeatureExtractor(bovw::surfFeatureSpec(bovw::SurfParams{}), builtin);
    cv::setRNGSeed(static_cast<int>(seed));

    // Files to descriptors, one image after another (the usual BOW sample code).
    const auto extract_start = Clock::now();
    std::vector<cv::Mat> descriptors(paths.size());
    for (std::size_t i = 0; i < paths.size(); ++i) descriptors[i] = surf->extract(bovw::loadImage(paths[i]));
    const double extract_seconds = secondsSince(extract_start);

    // Vocabulary: the same sample budget as `bovw train --max-descriptors`.
    cv::Mat all;
    cv::vconcat(descriptors, all);
    std::vector<int> rows(static_cast<std::size_t>(all.rows));
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), std::mt19937(seed));
    rows.resize(std::min<std::size_t>(rows.size(), static_cast<std::size_t>(max_descriptors)));
    cv::BOWKMeansTrainer trainer(words, cv::TermCriteria(cv::TermCriteria::MAX_ITER + cv::TermCriteria::EPS, 30, 1e-4),
                                 1, cv::KMEANS_PP_CENTERS);
    cv::Mat sample(static_cast<int>(rows.size()), all.cols, CV_32F);
    for (std::size_t r = 0; r < rows.size(); ++r) all.row(rows[r]).copyTo(sample.row(static_cast<int>(r)));
    trainer.add(sample);
    const auto train_start = Clock::now();
    const cv::Mat vocabulary = trainer.cluster();
    const double train_seconds = secondsSince(train_start);

    // Descriptors to histograms.
    cv::BOWImgDescriptorExtractor bow(cv::BFMatcher::create(cv::NORM_L2));
    bow.setVocabulary(vocabulary);
    const auto histogram_start = Clock::now();
    cv::Mat tf(static_cast<int>(paths.size()), words, CV_64F, cv::Scalar(0));
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (descriptors[i].empty()) continue;
      cv::Mat h;  // normalised by the descriptor count: the term frequency
      bow.compute(descriptors[i], h);
      h.convertTo(tf.row(static_cast<int>(i)), CV_64F);
    }
    const double histogram_seconds = secondsSince(histogram_start);

    // TF-IDF (smoothed idf, as bovw's index), L2-normalised, cosine ranking of every image.
    const double n = static_cast<double>(paths.size());
    cv::Mat weights = tf.clone();
    for (int w = 0; w < words; ++w) {
      const double containing = cv::countNonZero(tf.col(w));
      weights.col(w) *= std::log((1 + n) / (1 + containing)) + 1;
    }
    for (int i = 0; i < weights.rows; ++i) {
      const double norm = cv::norm(weights.row(i));
      if (norm > 0) weights.row(i) /= norm;
    }
    const cv::Mat similarity = weights * weights.t();
    std::vector<std::vector<std::size_t>> rankings(paths.size());
    std::vector<std::string> groups;
    for (std::size_t q = 0; q < paths.size(); ++q) {
      auto& ranking = rankings[q];
      ranking.resize(paths.size());
      std::iota(ranking.begin(), ranking.end(), 0);
      std::stable_sort(ranking.begin(), ranking.end(), [&](std::size_t a, std::size_t b) {
        return similarity.at<double>(static_cast<int>(q), static_cast<int>(a)) >
               similarity.at<double>(static_cast<int>(q), static_cast<int>(b));
      });
      const std::string name = paths[q].substr(paths[q].find_last_of('/') + 1);
      if (!group_of.count(name)) throw bovw::InvalidInput("'" + name + "' is not in " + groups_csv);
      groups.push_back(group_of.at(name));
    }
    const auto scores = bovw::scoreRankings(rankings, groups);
    const nlohmann::json result = {
        {"pipeline", "opencv BOWKMeansTrainer + BOWImgDescriptorExtractor (BFMatcher), bovw builtin SURF"},
        {"images", paths.size()},
        {"words", words},
        {"ns_score", scores.ns_score},
        {"mean_ap", scores.mean_ap},
        {"extract_seconds", extract_seconds},
        {"train_seconds", train_seconds},
        {"histogram_seconds", histogram_seconds},
        {"files_to_histograms_images_per_second", n / (extract_seconds + histogram_seconds)}};
    std::cout << result.dump(2) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "opencv_bow_baseline: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
