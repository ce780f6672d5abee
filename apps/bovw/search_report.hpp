// Search results as CSV (query,rank,image,score; with verification also bow_score,inliers), JSON,
// or a self-contained HTML page with thumbnails embedded as data URIs (one file to open or send, no
// image paths to resolve).
#pragma once

#include <bovw/image_search.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace bovw::cli {

void writeCsv(std::ostream& out, const std::vector<QueryResults>& queries);
void writeJson(std::ostream& out, const std::vector<QueryResults>& queries);
void writeHtml(std::ostream& out, const std::vector<QueryResults>& queries, const std::string& index_name);

}  // namespace bovw::cli
