// Search result formats.
#include "search_report.hpp"

#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_names.hpp>
#include <bovw/image_pipeline.hpp>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <utility>
#include <vector>

namespace bovw::cli {

namespace {

// RFC 4180: a field holding a separator, a quote or a line break (LF or CR) is quoted.
std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string htmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string base64(const std::vector<unsigned char>& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned n = (bytes[i] << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) |
                       (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[n & 63] : '=';
  }
  return out;
}

bool fileExists(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::exists(path, error);
}

// Captions show the file name; the full path is the tooltip.
std::string fileName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string fixed(double value, int digits);

// `outline`: SVG polygon points in the image's own pixels, drawn over the thumbnail ("" for none).
std::string figure(const std::string& path, const Thumbnails::Thumbnail& thumbnail, const std::string& caption,
                   const char* css_class, const std::string& outline = "") {
  std::string html = "<figure class=\"" + std::string(css_class) + "\" title=\"" + htmlEscape(path) + "\">";
  if (thumbnail.uri.empty()) {
    html += "<div class=\"missing\">" + thumbnail.missing + "</div>";
  } else {
    html += "<div class=\"frame\"><img src=\"" + thumbnail.uri + "\" alt=\"\">";
    if (!outline.empty())
      html += "<svg viewBox=\"0 0 " + std::to_string(thumbnail.size.width) + " " +
              std::to_string(thumbnail.size.height) + "\" preserveAspectRatio=\"none\"><polygon points=\"" + outline +
              "\" vector-effect=\"non-scaling-stroke\"/></svg>";
    html += "</div>";
  }
  return html + "<figcaption>" + caption + "</figcaption></figure>";
}

// Where a verified result's homography puts the query image's border in the result: the query's
// outline (the object found), as SVG polygon points; "" without a homography or the query's size.
std::string queryOutline(const SearchHit& hit, cv::Size query) {
  if (!hit.homography || query.area() <= 0) return "";
  std::string points;
  const double w = query.width, h = query.height;
  for (const cv::Vec3d& corner : {cv::Vec3d(0, 0, 1), cv::Vec3d(w, 0, 1), cv::Vec3d(w, h, 1), cv::Vec3d(0, h, 1)}) {
    const cv::Vec3d p = *hit.homography * corner;
    if (!(p[2] > 0)) return "";  // verified homographies keep the query in front; others are not drawn
    points += (points.empty() ? "" : " ") + fixed(p[0] / p[2], 1) + "," + fixed(p[1] / p[2], 1);
  }
  return points;
}

std::string fixed(double value, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << value;
  return s.str();
}

// Scores in JSON to 9 decimals: they are sums of rounded products, so the last bits are noise (the
// query itself scored 0.9999999999999999); the order of the results is the ranking's either way.
double reported(double score) { return std::round(score * 1e9) / 1e9; }

bool anyVerification(const std::vector<QueryResults>& queries) {
  return std::any_of(queries.begin(), queries.end(), [](const QueryResults& q) { return q.verification.has_value(); });
}

// JSON text is UTF-8: a name that is not (in a database written before names were checked,
// bovw/image_names.hpp) is refused with its bytes shown, not thrown as the JSON library's error.
void checkJsonName(const std::string& name) {
  if (const auto problem = imageNameProblem(name))
    throw InvalidInput("cannot write JSON: the image name '" + printableName(name) + "' " + *problem);
}

}  // namespace

Thumbnails::Thumbnails(const std::string& database, std::string root)
    : database_folder_(std::filesystem::path(database).parent_path()), root_(std::move(root)) {}

const Thumbnails::Thumbnail& Thumbnails::ofQuery(const std::string& path) { return read(path); }

const Thumbnails::Thumbnail& Thumbnails::ofResult(const std::string& name) {
  const std::filesystem::path path(name);
  // Where the name is looked for, in order; the first file there is read.
  std::vector<std::filesystem::path> places = {path};
  if (!path.is_absolute() && !root_.empty()) places = {std::filesystem::path(root_) / path};
  else if (!path.is_absolute() && !database_folder_.empty()) places.push_back(database_folder_ / path);
  for (const auto& place : places)
    if (fileExists(place)) return read(place.string());
  if (places.size() == 1) return read(places.front().string());  // its reader's warning names it
  // Said once per name, with where it was looked for: the fix is --root (or running from that folder).
  const auto [it, added] = not_found_.emplace(name, Thumbnail{"", "image not found", cv::Size()});
  if (added)
    spdlog::warn("html: no thumbnail of '{}': not found from the current folder nor from the database's folder "
                 "'{}' (--root names the folder that the database's image names are relative to)",
                 printableName(name), printableName(database_folder_.string()));
  return it->second;
}

// A JPEG thumbnail as a data URI, or none if the image cannot be read (the page says so instead, and
// a warning says why). The image is read like every other (bovw/image_io.hpp): a file that is not an
// image, a special file, or more pixels than the pipeline's limit is refused before it is decoded.
const Thumbnails::Thumbnail& Thumbnails::read(const std::string& path) {
  if (const auto known = by_path_.find(path); known != by_path_.end()) return known->second;
  constexpr int kSide = 180;
  Thumbnail& thumbnail = by_path_[path];
  cv::Mat image;
  try {
    image = loadImage(path, PipelineOptions().max_pixels, cv::IMREAD_COLOR);
  } catch (const Error& e) {
    spdlog::warn("html: no thumbnail of '{}': {}", printableName(path), e.what());
    thumbnail.missing = fileExists(path) ? "image not readable" : "image not found";
    return thumbnail;
  }
  thumbnail.size = image.size();
  const double scale = static_cast<double>(kSide) / std::max(image.cols, image.rows);
  if (scale < 1) cv::resize(image, image, cv::Size(), scale, scale, cv::INTER_AREA);
  std::vector<unsigned char> jpeg;
  cv::imencode(".jpg", image, jpeg, {cv::IMWRITE_JPEG_QUALITY, 80});
  thumbnail.uri = "data:image/jpeg;base64," + base64(jpeg);
  return thumbnail;
}

void writeCsv(std::ostream& out, const std::vector<QueryResults>& queries) {
  const bool verification = anyVerification(queries);
  out << "query,rank,image,score" << (verification ? ",bow_score,inliers,verified" : "") << "\n";
  for (const auto& q : queries)
    for (std::size_t r = 0; r < q.hits.size(); ++r) {
      const SearchHit& v = q.hits[r];
      out << csvField(q.query) << ',' << r + 1 << ',' << csvField(v.name) << ',' << fixed(v.score, 6);
      if (verification) out << ',' << fixed(v.bow_score, 6) << ',' << v.inliers << ',' << (v.verified ? 1 : 0);
      out << '\n';
    }
}

void writeJson(std::ostream& out, const std::vector<QueryResults>& queries) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& q : queries) {
    checkJsonName(q.query);
    for (const SearchHit& v : q.hits) checkJsonName(v.name);
    nlohmann::json results = nlohmann::json::array();
    for (std::size_t r = 0; r < q.hits.size(); ++r) {
      const SearchHit& v = q.hits[r];
      nlohmann::json result = {{"rank", r + 1}, {"image", v.name}, {"score", reported(v.score)}};
      if (q.verification) {
        result["bow_score"] = reported(v.bow_score);
        result["inliers"] = v.inliers;  // -1: not checked
        result["verified"] = v.verified;
        if (v.homography) {  // query pixel coordinates -> this image's, row-major
          const cv::Matx33d& h = *v.homography;
          result["homography"] = {{h(0, 0), h(0, 1), h(0, 2)}, {h(1, 0), h(1, 1), h(1, 2)}, {h(2, 0), h(2, 1), h(2, 2)}};
        }
      }
      results.push_back(result);
    }
    nlohmann::json entry = {{"query", q.query}, {"results", results}};
    if (q.verification)
      entry["verification"] = {{"checked", q.verification->checked},
                               {"verified", q.verification->verified},
                               {"milliseconds", q.verification->milliseconds},
                               {"expanded", q.expanded}};
    j.push_back(entry);
  }
  out << j.dump(2) << "\n";
}

void writeHtml(std::ostream& out, const std::vector<QueryResults>& queries, const std::string& index_name,
               Thumbnails& thumbnails) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bovw search</title>\n"
         "<style>body{font-family:sans-serif;margin:1.5em;background:#fafafa;color:#222}"
         "h1{font-size:1.3em}section{display:flex;gap:12px;align-items:flex-start;margin:1.2em 0;"
         "padding-bottom:1em;border-bottom:1px solid #ddd;overflow-x:auto}"
         "figure{margin:0;width:184px;flex:none}figure img{max-width:180px;max-height:180px;display:block;"
         "border:2px solid #ccc}.frame{position:relative;display:inline-block}.frame svg{position:absolute;left:2px;"
         "top:2px;width:calc(100% - 4px);height:calc(100% - 4px);overflow:visible}"
         ".frame polygon{fill:none;stroke:#00c853;stroke-width:2}figure.query img{border-color:#1565c0}figure.hit img{border-color:#999}"
         "figcaption{font-size:.75em;word-break:break-all;margin-top:4px}.score{font-weight:bold}"
         ".missing{width:180px;height:120px;background:#eee;display:flex;align-items:center;"
         "justify-content:center;font-size:.8em;color:#888}.arrow{align-self:center;font-size:2em;color:#888}"
         "</style></head><body>\n<h1>bovw search in " << htmlEscape(index_name) << "</h1>\n";
  for (const auto& q : queries) {
    out << "<section>"
        << figure(q.query, thumbnails.ofQuery(q.query), "<b>query</b><br>" + htmlEscape(fileName(q.query)), "query")
        << "<div class=\"arrow\">&rarr;</div>";
    if (q.hits.empty()) out << "<p>no image shares a visual word with this query</p>";
    for (std::size_t r = 0; r < q.hits.size(); ++r) {
      const SearchHit& v = q.hits[r];
      const std::string inliers = v.verified ? " (" + std::to_string(v.inliers) + " inliers)" : "";
      out << figure(v.name, thumbnails.ofResult(v.name),
                    "#" + std::to_string(r + 1) + " <span class=\"score\">" + fixed(v.bow_score, 3) + inliers +
                        "</span><br>" + htmlEscape(fileName(v.name)),
                    "hit", queryOutline(v, thumbnails.ofQuery(q.query).size));
    }
    out << "</section>\n";
  }
  out << "</body></html>\n";
}

}  // namespace bovw::cli
