// The per-rank profile table of bovw-mpi index: each rank's phases gathered to rank 0 as numbers.
#include "rank_profile.hpp"

#include "process_age.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace bovw::cli {

namespace {

const auto program_start = std::chrono::steady_clock::now();

// The columns of the table, in the order printed.
constexpr int kColumns = 8;
const char* const kHeads[kColumns] = {"start-up", "list", "work", "waiting", "gather", "write", "total", "images"};

}  // namespace

double rankClock() {
  return secondsSinceProcessStart().value_or(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start).count());
}

void printRankProfiles(Communicator& ranks, double before, const IndexProfile& p, double total) {
  // Start-up: process start to the call, and then the wait for OpenCL that the list did not hide.
  const double mine[kColumns] = {before + p.setup_wait_s, p.list_s,  p.work_s, p.waiting_s, p.gather_s,
                                 p.write_s,               total,     static_cast<double>(p.images)};
  // As text, one number a field: a few hundred bytes per rank, once.
  std::string text;
  for (double value : mine) text += std::to_string(value) + " ";
  text += std::to_string(p.setup_s) + " " + std::to_string(p.bytes);
  const std::vector<Bytes> all = ranks.gather(Bytes(text.begin(), text.end()), 0);
  if (ranks.rank() != 0) return;
  std::string table = "profile: per rank, seconds (start-up: process start to ready, the OpenCL set-up it waited for "
                      "included; list: the file list made, shared and split; work: decode, SURF, histograms and each "
                      "batch sent on; waiting: for other ranks; gather: rank 0 taking the others' results; write: the "
                      "database built and written)\n";
  char line[512];
  std::snprintf(line, sizeof(line), "profile: %6s", "rank");
  table += line;
  for (const char* head : kHeads) {
    std::snprintf(line, sizeof(line), " %9s", head);
    table += line;
  }
  table += "  opencl-setup  sent/received MB\n";
  double sums[kColumns] = {}, maxima[kColumns] = {}, setup_sum = 0, setup_max = 0, mb_sum = 0;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::istringstream in(std::string(all[r].begin(), all[r].end()));
    double values[kColumns] = {}, setup = 0, bytes = 0;
    for (double& value : values) in >> value;
    in >> setup >> bytes;
    const double mb = bytes / 1e6;
    std::snprintf(line, sizeof(line), "profile: %6zu", r);
    table += line;
    for (int c = 0; c < kColumns; ++c) {
      std::snprintf(line, sizeof(line), c == kColumns - 1 ? " %9.0f" : " %9.3f", values[c]);
      table += line;
      sums[c] += values[c];
      maxima[c] = std::max(maxima[c], values[c]);
    }
    std::snprintf(line, sizeof(line), "  %12.3f  %16.1f\n", setup, mb);
    table += line;
    setup_sum += setup;
    setup_max = std::max(setup_max, setup);
    mb_sum += r == 0 ? 0 : mb;  // rank 0's figure counts the same bytes received
  }
  for (const char* label : {"sum", "max"}) {
    const bool sum = label[1] == 'u';
    std::snprintf(line, sizeof(line), "profile: %6s", label);
    table += line;
    for (int c = 0; c < kColumns; ++c) {
      std::snprintf(line, sizeof(line), c == kColumns - 1 ? " %9.0f" : " %9.3f", sum ? sums[c] : maxima[c]);
      table += line;
    }
    std::snprintf(line, sizeof(line), "  %12.3f", sum ? setup_sum : setup_max);
    table += line;
    if (sum) {
      std::snprintf(line, sizeof(line), "  %16.1f", mb_sum);
      table += line;
    }
    table += "\n";
  }
  std::fputs(table.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace bovw::cli
