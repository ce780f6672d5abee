// Retrieval quality on UKBench-style sets (groups of views of one object or scene): the N-S score
// (Nistér & Stewénius 2006: images of the query's group among its top 4, the query itself included;
// 4 is perfect) and mean average precision over the full ranking.
#pragma once

#include <string>
#include <vector>

namespace bovw {

struct RetrievalScores {
  double ns_score = 0;   // mean over queries of relevant images in the top 4
  double mean_ap = 0;    // mean over queries of average precision
  std::size_t queries = 0;
};

// rankings[q]: database image indices ranked for query q (best first; may be truncated, missing
// relevant images count as never retrieved). groups[i]: group label of database image i; query q is
// database image q. Throws InvalidInput on inconsistent sizes or indices.
RetrievalScores scoreRankings(const std::vector<std::vector<std::size_t>>& rankings,
                              const std::vector<std::string>& groups);

struct GroupedImage {
  std::string image;  // as written in the file (a file name or a path)
  std::string group;
};

// Reads a UKBench-style groups file: a header line "image,group", then one "image,group" per line.
// Throws IoError if unreadable, InvalidInput naming the file and line for malformed content.
std::vector<GroupedImage> readGroupsCsv(const std::string& path);

}  // namespace bovw
