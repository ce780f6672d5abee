#include <bovw/image_io.hpp>
#include <bovw/error.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/core.hpp>
#include <cstdio>
#include <fstream>
#include <string>
int main(int argc, char** argv) {
  std::ifstream list(argv[1]); std::string p; int same = 0, diff = 0, refused = 0, cvfail = 0;
  const int flagsets[2] = {cv::IMREAD_GRAYSCALE, cv::IMREAD_GRAYSCALE | cv::IMREAD_ANYDEPTH};
  while (std::getline(list, p)) for (int f : flagsets) {
    cv::Mat got;
    try { got = bovw::loadImage(p, 1'000'000'000, f); } catch (const std::exception& e) { ++refused; continue; }
    cv::Mat want = cv::imread(p, f);
    if (want.empty()) { ++cvfail; printf("CVFAIL %s\n", p.c_str()); continue; }
    if (got.size() != want.size() || got.type() != want.type() || cv::norm(got, want, cv::NORM_INF) != 0) {
      ++diff; printf("DIFF %d %s %dx%d t%d vs %dx%d t%d\n", f, p.c_str(), got.cols, got.rows, got.type(), want.cols, want.rows, want.type());
    } else ++same;
  }
  printf("same %d diff %d refused %d cvfail %d\n", same, diff, refused, cvfail);
}
