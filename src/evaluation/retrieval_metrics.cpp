// N-S score and mean average precision.
#include <bovw/error.hpp>
#include <bovw/input_file.hpp>
#include <bovw/retrieval_metrics.hpp>

#include <map>
#include <set>
#include <sstream>

namespace bovw {

RetrievalScores scoreRankings(const std::vector<std::vector<std::size_t>>& rankings,
                              const std::vector<std::string>& groups) {
  if (rankings.size() != groups.size())
    throw InvalidInput("evaluation: " + std::to_string(rankings.size()) + " rankings for " +
                       std::to_string(groups.size()) + " images");
  std::map<std::string, std::size_t> group_size;
  for (const auto& g : groups) ++group_size[g];
  RetrievalScores scores;
  for (std::size_t q = 0; q < rankings.size(); ++q) {
    const std::size_t relevant = group_size[groups[q]];
    std::size_t found = 0;
    double precision_sum = 0;
    for (std::size_t rank = 0; rank < rankings[q].size(); ++rank) {
      const std::size_t image = rankings[q][rank];
      if (image >= groups.size()) throw InvalidInput("evaluation: ranked image index out of range");
      if (groups[image] != groups[q]) continue;
      ++found;
      precision_sum += static_cast<double>(found) / static_cast<double>(rank + 1);
      if (rank < 4) scores.ns_score += 1;
    }
    scores.mean_ap += precision_sum / static_cast<double>(relevant);
  }
  scores.queries = rankings.size();
  if (scores.queries > 0) {
    scores.ns_score /= static_cast<double>(scores.queries);
    scores.mean_ap /= static_cast<double>(scores.queries);
  }
  return scores;
}

std::vector<GroupedImage> readGroupsCsv(const std::string& path) {
  std::istringstream in(readInputFile(path));
  auto strip = [](std::string text) {
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    return text;
  };
  std::string line;
  if (!std::getline(in, line) || strip(line) != "image,group")
    throw InvalidInput("'" + path + "': the first line must be the header 'image,group'");
  std::vector<GroupedImage> images;
  std::set<std::string> seen;
  for (int number = 2; std::getline(in, line); ++number) {
    line = strip(line);
    if (line.empty()) continue;
    const auto comma = line.find(',');
    if (comma == std::string::npos || comma == 0 || comma + 1 == line.size() ||
        line.find(',', comma + 1) != std::string::npos)
      throw InvalidInput("'" + path + "' line " + std::to_string(number) + ": expected 'image,group', got '" + line + "'");
    GroupedImage entry{line.substr(0, comma), line.substr(comma + 1)};
    if (!seen.insert(entry.image).second)
      throw InvalidInput("'" + path + "' line " + std::to_string(number) + ": image '" + entry.image + "' listed twice");
    images.push_back(std::move(entry));
  }
  if (images.empty()) throw InvalidInput("'" + path + "' lists no images");
  return images;
}

}  // namespace bovw
