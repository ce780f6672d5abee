// A retrieval application in one page: a vocabulary trained on a folder's images, a database of the
// folder with keypoints, and one query answered with its top 50 verified geometrically.
// Usage: search_example IMAGES_DIR QUERY_IMAGE OUTPUT_DB       (prints the top 5: name, score, inliers)
#include <bovw/bovw.hpp>

#include <iostream>

int main(int argc, char** argv) try {
  if (argc != 4) return std::cerr << "usage: search_example IMAGES_DIR QUERY_IMAGE OUTPUT_DB\n", 2;
  const std::vector<std::string> images = bovw::listImages(argv[1]);
  const bovw::FeatureSpec surf = bovw::FeatureSpec::parse("surf");

  // 200 visual words: k-means on up to 50,000 of the folder's SURF descriptors.
  const auto extractor = bovw::makeFeatureExtractor(surf);
  bovw::KMeansOptions kmeans;
  kmeans.words = 200;
  kmeans.descriptor_type = extractor->descriptorType();
  const bovw::DescriptorSample sample = bovw::sampleDescriptors(images, *extractor, 50'000, /*seed=*/1);
  bovw::Vocabulary vocabulary = bovw::trainVocabulary(sample.descriptors, kmeans);

  // Every image of the folder, with its keypoints so that results can be verified.
  bovw::DatabaseOptions with_keypoints;
  with_keypoints.store_keypoints = true;
  bovw::ImageSearch photos = bovw::ImageSearch::create(std::move(vocabulary), surf, with_keypoints);
  for (const bovw::ImageFailure& failure : photos.add(images)) std::cerr << "skipped " << failure.message << "\n";
  photos.save(argv[3]);

  bovw::SearchOptions options;
  options.top = 5;
  options.verify = 50;
  for (const bovw::SearchHit& hit : photos.search(argv[2], options))
    std::cout << hit.name << " " << hit.bow_score << " " << hit.inliers << (hit.verified ? " verified\n" : "\n");
  return 0;
} catch (const bovw::Error& e) {
  std::cerr << "search_example: " << e.what() << "\n";
  return 1;
}
