// Search results as CSV (query,rank,image,score; with verification also bow_score,inliers), JSON,
// or a self-contained HTML page with thumbnails embedded as data URIs (one file to open or send, no
// image paths to resolve when it is opened; they are resolved when it is written, Thumbnails below).
#pragma once

#include <bovw/image_search.hpp>

#include <filesystem>
#include <map>
#include <ostream>
#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace bovw::cli {

// The thumbnails of the html page, found and read once each. A query is read by the path given on
// the command line. A result is read by the name the database holds, which is the path that
// `bovw index` was given, relative to the folder it ran in: with `root` (search --root), a relative
// name is read under it; without, as given (from the current folder) and, where no file is there,
// from the database's folder (where `index --output` usually put it beside the images' folder).
// An image found nowhere or not readable is one warning naming it, however many results show it.
class Thumbnails {
 public:
  struct Thumbnail {
    std::string uri;      // a JPEG data URI, or "" where there is no image
    std::string missing;  // without an image: what the page says instead ("image not found")
    cv::Size size;        // of the image itself (the thumbnail is scaled down from it)
  };

  Thumbnails(const std::string& database, std::string root);

  const Thumbnail& ofQuery(const std::string& path);
  const Thumbnail& ofResult(const std::string& name);

 private:
  const Thumbnail& read(const std::string& path);

  std::filesystem::path database_folder_;  // empty: the current folder, where names are tried anyway
  std::string root_;
  std::map<std::string, Thumbnail> by_path_;
  std::map<std::string, Thumbnail> not_found_;  // result names found nowhere
};

void writeCsv(std::ostream& out, const std::vector<QueryResults>& queries);
void writeJson(std::ostream& out, const std::vector<QueryResults>& queries);
void writeHtml(std::ostream& out, const std::vector<QueryResults>& queries, const std::string& index_name,
               Thumbnails& thumbnails);

}  // namespace bovw::cli
