// Issue 22, 2026-12-07: the 836 homography fits of 59 verify-50 searches of the VM's 100,000-image
// serving database (their pairs dumped by a scratch build of verifyPair to pairs.bin, not kept: 4.8 MB),
// fitted again by each of OpenCV's estimators on one core; inliers, a-contrario and plausibility as
// bovw counts them; agreement with the first (MAGSAC++) on which fits verify. Output: fits_output.txt.
// Build: g++ -O2 -std=c++17 -fopenmp -Iinclude -Ibuild/include $(pkg-config --cflags opencv4 eigen3) fitbench.cpp
//        build/src/libbovw.a $(pkg-config --libs ...)   (the driver link line of the journal)
#include <bovw/geometric_verification.hpp>
#include <opencv2/calib3d.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
#include <algorithm>
struct Fit { cv::Size q, r; std::vector<cv::Point2f> a, b; };
static int distinct(const Fit& f, const cv::Matx33d& h, double e) {
  std::vector<std::pair<float,float>> qu, ru;
  for (size_t i = 0; i < f.a.size(); ++i) {
    cv::Vec3d p = h * cv::Vec3d(f.a[i].x, f.a[i].y, 1); if (!(p[2] > 1e-12)) continue;
    double dx = p[0]/p[2]-f.b[i].x, dy = p[1]/p[2]-f.b[i].y; if (dx*dx+dy*dy > e*e) continue;
    qu.emplace_back(f.a[i].x, f.a[i].y); ru.emplace_back(f.b[i].x, f.b[i].y); }
  auto d = [](auto& v){ std::sort(v.begin(), v.end()); return int(std::unique(v.begin(), v.end()) - v.begin()); };
  return std::min(d(qu), d(ru));
}
int main(int argc, char** argv) {
  std::FILE* in = std::fopen(argv[1], "rb"); std::vector<Fit> fits; int h[5];
  while (std::fread(h, sizeof h, 1, in) == 1) { Fit f; f.q = {h[1], h[2]}; f.r = {h[3], h[4]}; f.a.resize(h[0]); f.b.resize(h[0]);
    std::fread(f.a.data(), 8, h[0], in); std::fread(f.b.data(), 8, h[0], in); fits.push_back(std::move(f)); }
  std::printf("%zu fits\n", fits.size());
  std::vector<std::pair<std::string,int>> methods = {{"MAGSAC", cv::USAC_MAGSAC}, {"RANSAC", cv::RANSAC}, {"RHO", cv::RHO},
    {"USAC_DEFAULT", cv::USAC_DEFAULT}, {"USAC_FAST", cv::USAC_FAST}, {"USAC_ACCURATE", cv::USAC_ACCURATE}};
  std::vector<int> base_inl; std::vector<bool> base_ok;
  for (auto& [name, m] : methods) {
    double total = 0; int verified = 0, agree = 0, more = 0, fewer = 0; std::vector<int> inl; std::vector<bool> oks;
    for (auto& f : fits) {
      cv::Mat mask; auto t0 = std::chrono::steady_clock::now();
      cv::Mat H = cv::findHomography(f.a, f.b, m, 8.0, mask, 1000, 0.995);
      total += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      int k = 0; bool ok = false;
      if (!H.empty()) { cv::Matx33d hh(H); k = distinct(f, hh, 8.0);
        ok = k >= 12 && bovw::log10FalseAlarms(int(f.a.size()), k, 8.0, f.r.area()) <= 0 && bovw::implausibleHomography(hh, f.q, 8.0).empty(); }
      inl.push_back(k); oks.push_back(ok); verified += ok;
    }
    if (base_inl.empty()) { base_inl = inl; base_ok = oks; }
    double rel = 0;
    for (size_t i = 0; i < fits.size(); ++i) { agree += oks[i] == base_ok[i]; more += inl[i] > base_inl[i]; fewer += inl[i] < base_inl[i];
      if (base_ok[i]) rel += double(inl[i]) / base_inl[i]; }
    std::printf("%-14s %8.1f ms total %6.3f ms/fit verified %d agree %zu/%zu inliers more %d fewer %d, mean ratio on verified %.3f\n",
      name.c_str(), total, total / fits.size(), verified, size_t(agree), fits.size(), more, fewer, rel / std::count(base_ok.begin(), base_ok.end(), true));
  }
}
