// Times LiveDatabase::put of batches of 4 images of 2,000 random keypoints each into a database
// that stores keypoints: mean ms per write, per 250 writes.
#include <bovw/live_database.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
int main(int argc, char** argv) {
  bovw::LiveDatabase live = bovw::LiveDatabase::open(argv[1]);
  const int writes = atoi(argv[2]), per = 4, points = atoi(argv[3]);
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::int32_t> word(0, 999);
  std::uniform_real_distribution<float> x(0, 639), y(0, 479);
  double sum = 0;
  for (int w = 0; w < writes; ++w) {
    std::vector<bovw::NamedImageWords> batch;
    for (int i = 0; i < per; ++i) {
      bovw::NamedImageWords image{"put/" + std::to_string(w) + "/" + std::to_string(i) + ".jpg", {}};
      image.words.image_size = cv::Size(640, 480);
      for (int k = 0; k < points; ++k) {
        image.words.words.push_back(word(rng));
        image.words.points.emplace_back(x(rng), y(rng));
        image.words.signatures.push_back(rng());
      }
      batch.push_back(std::move(image));
    }
    const auto t = std::chrono::steady_clock::now();
    live.put(batch);
    sum += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if ((w + 1) % 250 == 0) { printf("writes %d-%d: %.2f ms a write\n", w - 248, w + 1, sum / 250 * 1e3); fflush(stdout); sum = 0; }
  }
}
