// Search results as CSV (query,rank,image,score; with verification also bow_score,inliers), JSON,
// or a self-contained HTML page with thumbnails embedded as data URIs (one file to open or send, no
// image paths to resolve).
#pragma once

#include <bovw/geometric_verification.hpp>
#include <bovw/inverted_index.hpp>
#include <bovw/sharded_database.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace bovw::cli {

struct QueryResults {
  std::string query;
  std::vector<VerifiedResult> results;              // rank 1 first
  std::optional<VerificationReport> verification;  // when the results were verified
};

// Results of a plain bag-of-words query, as not verified.
std::vector<VerifiedResult> unverified(const std::vector<ShardedResult>& results);

void writeCsv(std::ostream& out, const std::vector<QueryResults>& queries);
void writeJson(std::ostream& out, const std::vector<QueryResults>& queries);
void writeHtml(std::ostream& out, const std::vector<QueryResults>& queries, const std::string& index_name);

}  // namespace bovw::cli
