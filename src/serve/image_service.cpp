// The routes of the HTTP service and what every request goes through: the token, the body limits,
// a turn of work, the answer in JSON, one log line and the metrics.
//
// A request body that is not read must not stay in the connection, where cpp-httplib (0.11) would
// parse it as the next request; such answers close the connection (closeAfter). For the same reason
// every route that may carry a body reads it through a ContentReader, under the size limit, chunked
// bodies included: cpp-httplib's own reading of chunked bodies has no limit.
#include "serve/image_service.hpp"

#include "serve/admission.hpp"
#include "serve/dynamic_batcher.hpp"
#include "serve/http_error.hpp"
#include "serve/service_metrics.hpp"

#include <bovw/error.hpp>
#include <bovw/image_io.hpp>
#include <bovw/image_names.hpp>
#include <bovw/scoring.hpp>

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <regex>
#include <thread>

namespace bovw::serve {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// ECMAScript's '.' takes no line break, and a decoded name may hold one (to be refused by name).
const char* const kImagePath = R"(/images/([\s\S]+))";
const char* const kAnyPath = R"([\s\S]*)";

// The routes, as metrics and 405 answers name them.
struct Route {
  const char* pattern;  // as labels show it
  std::regex path;
  const char* methods;  // the Allow header
};

const std::vector<Route>& routes() {
  static const std::vector<Route> all = {{"/health", std::regex("/health"), "GET"},
                                         {"/metrics", std::regex("/metrics"), "GET"},
                                         {"/images", std::regex("/images"), "GET"},
                                         {"/images/{name}", std::regex(R"(/images/[\s\S]+)"), "PUT, DELETE"},
                                         {"/search", std::regex("/search"), "POST"}};
  return all;
}

const Route* routeOf(const std::string& path) {
  for (const Route& route : routes())
    if (std::regex_match(path, route.path)) return &route;
  return nullptr;
}

bool hasBody(const httplib::Request& req) {
  return req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos ||
         (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
}

// When this thread's request began (its headers were read): each connection is served by one thread.
thread_local Clock::time_point request_start;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A query parameter as a whole number in [low, high], or `fallback` when absent.
std::size_t numberParameter(const httplib::Request& req, const std::string& name, std::size_t fallback,
                            std::size_t low, std::size_t high) {
  if (!req.has_param(name.c_str())) return fallback;
  const std::string text = req.get_param_value(name.c_str());
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < low || value > high)
    throw HttpError(400, "?" + name + "=" + text + " is not a whole number from " + std::to_string(low) + " to " +
                             std::to_string(high));
  return value;
}

void refuseUnknownParameters(const httplib::Request& req, std::initializer_list<const char*> known) {
  for (const auto& [name, value] : req.params)
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return name == k; }))
      throw HttpError(400, "unknown query parameter '" + name + "'");
}

// Answers and then closes the connection, whose unread body would otherwise be taken for the next
// request: cpp-httplib ends a connection whose answer's content provider reports a failure, so the
// provider writes the whole answer and then reports one.
void closeAfter(httplib::Response& res) {
  res.set_header("Connection", "close");
  auto body = std::make_shared<std::string>(std::move(res.body));
  const std::string type = res.get_header_value("Content-Type");
  res.body.clear();
  res.set_content_provider(body->size(), type.empty() ? "application/json" : type.c_str(),
                           [body](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                             sink.write(body->data() + offset, length);
                             return false;
                           });
}

void reply(httplib::Response& res, int status, const json& answer) {
  res.status = status;
  res.set_content(answer.dump() + "\n", "application/json");
}

}  // namespace

struct ImageService::Impl {
  ImageSearch& database;
  ServiceOptions options;
  std::unique_ptr<httplib::Server> server;
  Admission admission;
  ServiceMetrics metrics;
  // The most images whose features run as one batch (1: each request extracts on its own), and the
  // batcher that runs them.
  std::size_t batch_images;
  DynamicBatcher<cv::Mat, ImageWords> feature_batches;
  // Group commit: the PUTs (and the DELETEs) that reach the store while another write is being made
  // go in the next write together, one sync of the store for all of them instead of one each. Each
  // is still answered only once its write is durable, and a write that fails is made again one
  // request at a time (DynamicBatcher), so that one request's problem (a name twice) is its own.
  DynamicBatcher<NamedImageWords, ImageId> puts;
  DynamicBatcher<std::string, bool> removals;
  int threads_per_request;  // OpenMP threads of each working request: the cores over the working slots
  int bound_port = 0;
  std::atomic<bool> stop_requested{false}, run_ended{false};

  Impl(ImageSearch& d, ServiceOptions o)
      : database(d),
        options(std::move(o)),
        admission(options.workers ? options.workers : cores(), options.queue),
        batch_images(options.batch_images > 0         ? options.batch_images
                     : database.extractsInDeviceBatches() ? ServiceOptions::kAutoBatchImages
                                                          : 1),
        feature_batches([this](const std::vector<cv::Mat>& images) { return database.words(images); }, batch_images,
                        [](const cv::Mat& image) { return static_cast<std::size_t>(image.total()); },
                        static_cast<std::size_t>(std::max<std::int64_t>(options.batch_pixels, 1)),
                        [this](std::size_t images) { metrics.observeFeatureBatch(images); }),
        // The metrics count the writes made (a write that failed and is made again request by
        // request is not one).
        puts(
            [this](const std::vector<NamedImageWords>& images) {
              std::vector<ImageId> ids = database.put(images);
              metrics.observeWriteBatch(images.size());
              return ids;
            },
            ServiceOptions::kMaxWriteBatch, {}, 0),
        removals(
            [this](const std::vector<std::string>& names) {
              database.remove(names);
              metrics.observeWriteBatch(names.size());
              return std::vector<bool>(names.size(), true);
            },
            ServiceOptions::kMaxWriteBatch, {}, 0),
        threads_per_request(static_cast<int>(std::max<std::size_t>(1, cores() / admission.capacity()))) {}

  static std::size_t cores() { return std::max(1u, std::thread::hardware_concurrency()); }

  // A decoded image's words: in a batch with other requests' when batching.
  ImageWords wordsOf(cv::Mat image) {
    return batch_images > 1 ? feature_batches.call(std::move(image)) : database.words(image);
  }

  // --- what every request goes through ---

  // The body, read under the size and time limits. Throws HttpError 413 (before reading it, when
  // its Content-Length says so), 408, or 400 for an empty or broken body.
  static std::string readBody(const httplib::Request& req, const httplib::ContentReader& content,
                              const ServiceOptions& options, bool& read) {
    std::size_t declared = 0;
    if (req.has_header("Content-Length")) {
      const std::string text = req.get_header_value("Content-Length");
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), declared);
      if (error != std::errc() || end != text.data() + text.size())
        throw HttpError(400, "the Content-Length '" + text + "' is not a number");
      if (declared > options.max_body_bytes)
        throw HttpError(413, "the body of " + std::to_string(declared) + " bytes is over the limit of " +
                                 std::to_string(options.max_body_bytes));
    }
    std::string body;
    body.reserve(declared);
    const Clock::time_point deadline = request_start + std::chrono::seconds(options.request_seconds);
    int refusal = 0;
    const bool complete = content([&](const char* data, std::size_t length) {
      if (body.size() + length > options.max_body_bytes) refusal = 413;
      else if (Clock::now() > deadline) refusal = 408;
      if (refusal) return false;
      body.append(data, length);
      return true;
    });
    if (refusal == 413)
      throw HttpError(413, "the body is over the limit of " + std::to_string(options.max_body_bytes) + " bytes");
    if (refusal == 408)
      throw HttpError(408, "the body took more than " + std::to_string(options.request_seconds) + " s to arrive");
    if (!complete) throw HttpError(400, "the body could not be read (the connection broke?)");
    read = true;
    if (body.empty()) throw HttpError(400, "the body is empty: send the image file's bytes");
    return body;
  }

  // Runs a route's work: bovw's errors become answers with their status. An answer given while a
  // body is unread (`read` null: the route reads none) closes the connection.
  template <typename Work>
  void answer(const httplib::Request& req, httplib::Response& res, const bool* read, Work&& work) {
    try {
      work();
    } catch (const HttpError& e) {
      reply(res, e.status(), {{"error", e.what()}});
    } catch (const CapacityError& e) {
      reply(res, 422, {{"error", e.what()}});
    } catch (const InvalidInput& e) {
      reply(res, 400, {{"error", e.what()}});
    } catch (const std::exception& e) {
      spdlog::error("{} {}: {}", req.method, req.path, e.what());
      reply(res, 500, {{"error", e.what()}});
    }
    if (!(read && *read) && hasBody(req)) closeAfter(res);
  }

  // A turn of work, or 503 when the queue is full; the wait for it goes to `observe` (a search's or a
  // write's stages) as "waiting". The library's OpenMP loops (a query's image ranges, the CPU
  // histograms) get the cores divided among the working requests, so that concurrent requests do
  // not each start a team of every core.
  Admission::Ticket turn(void (ServiceMetrics::*observe)(const std::string&, double)) {
    const Clock::time_point asked = Clock::now();
    std::optional<Admission::Ticket> ticket = admission.enter();
    if (!ticket)
      throw HttpError(503, "the server is busy: " + std::to_string(options.queue) + " requests wait already; retry later");
    omp_set_num_threads(threads_per_request);
    (metrics.*observe)("waiting", secondsSince(asked));
    return std::move(*ticket);
  }

  cv::Mat decode(const std::string& body, const std::string& name) const {
    return decodeImage(reinterpret_cast<const unsigned char*>(body.data()), body.size(), name, options.max_pixels);
  }

  // Whether the request may go on: the token, where one is needed.
  bool admitted(const httplib::Request& req, httplib::Response& res) {
    const bool writes = req.method == "PUT" || req.method == "DELETE";
    const bool needed = options.token.required() && req.path != "/health" && (writes || options.token_for_reads);
    if (!needed || options.token.admits(req.get_header_value("Authorization"))) return true;
    res.set_header("WWW-Authenticate", "Bearer");
    reply(res, 401, {{"error", req.has_header("Authorization") ? "the token is wrong" : "a bearer token is needed"}});
    if (hasBody(req)) closeAfter(res);
    return false;
  }

  void requireLive() const {
    if (!database.isLive())
      throw HttpError(405, "the database is a file, which this server does not change: serve a live database "
                           "(bovw convert --index DB --output FOLDER) to add and remove images");
  }

  // --- the routes ---

  void putImage(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& content) {
    bool read = false;
    answer(req, res, &read, [&] {
      requireLive();
      const std::string name = req.matches[1];
      if (const auto problem = imageNameProblem(name))
        throw HttpError(400, "the image name '" + printableName(name) + "' " + *problem);
      const std::string body = readBody(req, content, options, read);
      const Admission::Ticket ticket = turn(&ServiceMetrics::observeWriteStage);
      const Clock::time_point start = Clock::now();
      const ImageWords words = wordsOf(decode(body, name));
      metrics.observeWriteStage("features", secondsSince(start));
      const Clock::time_point storing = Clock::now();
      const ImageId id = puts.call({name, words});
      metrics.observeWriteStage("storing", secondsSince(storing));
      reply(res, 200, {{"name", name}, {"id", id}, {"keypoints", words.words.size()}});
    });
  }

  void deleteImage(const httplib::Request& req, httplib::Response& res) {
    answer(req, res, nullptr, [&] {
      requireLive();
      const std::string name = req.matches[1];
      const Admission::Ticket ticket = turn(&ServiceMetrics::observeWriteStage);
      const Clock::time_point storing = Clock::now();
      try {
        removals.call(name);
        metrics.observeWriteStage("storing", secondsSince(storing));
      } catch (const InvalidInput& e) {
        if (!database.contains(name)) throw HttpError(404, "no image is named '" + printableName(name) + "'");
        throw;
      }
      reply(res, 200, {{"name", name}, {"removed", true}});
    });
  }

  void search(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& content) {
    bool read = false;
    answer(req, res, &read, [&] {
      refuseUnknownParameters(req, {"top", "verify", "expand", "scoring"});
      SearchOptions how;
      how.top = numberParameter(req, "top", 10, 1, options.max_top);
      how.verify = numberParameter(req, "verify", 0, 0, options.max_top);
      how.expand = numberParameter(req, "expand", 0, 0, options.max_top);
      if (req.has_param("scoring") && req.get_param_value("scoring") != "auto")  // auto: the database's default
        how.scoring = parseScoringOptions(req.get_param_value("scoring"));
      how.verification = options.verification;
      const std::string body = readBody(req, content, options, read);
      const Admission::Ticket ticket = turn(&ServiceMetrics::observeSearchStage);
      const Clock::time_point start = Clock::now();
      const ImageWords words = wordsOf(decode(body, "the request body"));
      metrics.observeSearchStage("features", secondsSince(start));
      const Clock::time_point ranking = Clock::now();
      const std::vector<SearchHit> hits = database.search(words, how);
      metrics.observeSearchStage("ranking", secondsSince(ranking));
      json results = json::array();
      std::size_t verified = 0;
      for (const SearchHit& hit : hits) {
        json result = {{"name", hit.name},
                       {"score", hit.score},
                       {"bow_score", hit.bow_score},
                       {"inliers", hit.inliers},
                       {"verified", hit.verified}};
        if (hit.homography) {
          const cv::Matx33d& h = *hit.homography;
          result["homography"] = {{h(0, 0), h(0, 1), h(0, 2)}, {h(1, 0), h(1, 1), h(1, 2)}, {h(2, 0), h(2, 1), h(2, 2)}};
        }
        verified += hit.verified ? 1 : 0;
        results.push_back(std::move(result));
      }
      reply(res, 200, {{"results", std::move(results)},
                       {"features", words.words.size()},
                       {"verified", verified},
                       {"milliseconds", secondsSince(start) * 1e3}});
    });
  }

  void listImages(const httplib::Request& req, httplib::Response& res) {
    answer(req, res, nullptr, [&] {
      refuseUnknownParameters(req, {"offset", "limit"});
      const std::size_t offset = numberParameter(req, "offset", 0, 0, std::numeric_limits<std::size_t>::max());
      const std::size_t limit = numberParameter(req, "limit", 100, 1, 10000);
      const std::vector<IndexedImage> images = database.images();
      json names = json::array();
      for (std::size_t i = offset; i < images.size() && i < offset + limit; ++i) names.push_back(images[i].name);
      json page = {{"images", std::move(names)}, {"total", images.size()}, {"offset", offset}, {"limit", limit}};
      page["next"] = offset + limit < images.size() ? json(offset + limit) : json(nullptr);
      reply(res, 200, page);
    });
  }

  void health(httplib::Response& res) {
    nlohmann::json answer = {{"status", "ok"}, {"images", database.size()}, {"live", database.isLive()}};
    if (database.storesKeypoints()) {  // where Hamming searches scan, and why not on a device if it gave up
      const ImageDatabase::SignatureScan scan = database.signatureScan();
      answer["signatures"] = scan.device.empty() ? "host" : scan.device;
      if (!scan.dropped_because.empty()) answer["signatures_on_host_because"] = scan.dropped_because;
    }
    reply(res, 200, answer);
  }

  void metricsText(httplib::Response& res) {
    metrics.setQueue(admission.waiting(), admission.working());
    metrics.setImages(database.size());
    res.set_content(metrics.text(), "text/plain; version=0.0.4");
  }

  // Paths no route takes (404), or a route's path with another method (405).
  void unrouted(const httplib::Request& req, httplib::Response& res) {
    answer(req, res, nullptr, [&] {
      if (const Route* route = routeOf(req.path)) {
        res.set_header("Allow", route->methods);
        throw HttpError(405, req.method + " is not allowed on " + route->pattern + " (allowed: " + route->methods + ")");
      }
      throw HttpError(404, "no route " + req.path + " (see docs/openapi.yaml)");
    });
  }

  void logAndCount(const httplib::Request& req, const httplib::Response& res) {
    const double seconds = secondsSince(request_start);
    const Route* route = routeOf(req.path);
    metrics.observe(route ? route->pattern : "other", req.method, res.status, seconds);
    const auto level = res.status >= 500 ? spdlog::level::err : res.status >= 400 ? spdlog::level::warn : spdlog::level::info;
    spdlog::log(level, "{} {} {} {} {:.1f} ms", req.remote_addr, req.method, req.path, res.status, seconds * 1e3);
  }

  void makeServer() {
    if (options.tls_certificate.empty() != options.tls_key.empty())
      throw InvalidInput("HTTPS needs both a certificate and its key (--tls-cert, --tls-key)");
    if (options.tls_certificate.empty()) {
      server = std::make_unique<httplib::Server>();
    } else {
      auto secure = std::make_unique<httplib::SSLServer>(options.tls_certificate.c_str(), options.tls_key.c_str());
      if (!secure->is_valid())
        throw InvalidInput(options.tls_certificate, "cannot be used with the key '" + options.tls_key +
                                                        "' for HTTPS (not PEM files of a certificate and its key?)");
      server = std::move(secure);
    }
    httplib::Server& s = *server;
    const std::size_t connections = std::max<std::size_t>(options.connections, 1);
    s.new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
    s.set_payload_max_length(options.max_body_bytes);
    s.set_keep_alive_max_count(10000);
    // cpp-httplib writes an answer's headers and body in two sends; with Nagle's algorithm the body
    // waits for the client's delayed ACK, 40 ms on Linux (measured: 52 ms for a 10 ms search).
    // Accepted sockets inherit the option from the listening one.
    s.set_tcp_nodelay(true);  // cpp-httplib's 5 would make a busy client reconnect every 5 requests
    s.set_read_timeout(options.request_seconds);
    s.set_write_timeout(options.request_seconds);
    s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      request_start = Clock::now();
      return admitted(req, res) ? httplib::Server::HandlerResponse::Unhandled : httplib::Server::HandlerResponse::Handled;
    });
    s.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request&, httplib::Response& res) {
      // cpp-httplib's own refusals (a malformed request, a request line over 8 KiB) get a JSON body too.
      if (!res.body.empty() || res.content_length_ > 0) return httplib::Server::HandlerResponse::Unhandled;
      const std::string problem = res.status == 414 ? "the request line is longer than 8 KiB"
                                  : res.status == 400 ? "the request is malformed"
                                                      : "HTTP status " + std::to_string(res.status);
      reply(res, res.status, {{"error", problem}});
      return httplib::Server::HandlerResponse::Handled;
    }));
    s.set_logger([this](const httplib::Request& req, const httplib::Response& res) { logAndCount(req, res); });

    using Reader = const httplib::ContentReader&;
    using Req = const httplib::Request&;
    using Res = httplib::Response&;
    s.Get("/health", [this](Req, Res res) { health(res); });
    s.Get("/metrics", [this](Req, Res res) { metricsText(res); });
    s.Get("/images", [this](Req req, Res res) { listImages(req, res); });
    s.Put(kImagePath, [this](Req req, Res res, Reader content) { putImage(req, res, content); });
    s.Delete(kImagePath, [this](Req req, Res res, Reader) { deleteImage(req, res); });
    s.Post("/search", [this](Req req, Res res, Reader content) { search(req, res, content); });
    // Everything else; with a content reader for the methods with bodies, so that none is read.
    s.Get(kAnyPath, [this](Req req, Res res) { unrouted(req, res); });
    s.Options(kAnyPath, [this](Req req, Res res) { unrouted(req, res); });
    s.Post(kAnyPath, [this](Req req, Res res, Reader) { unrouted(req, res); });
    s.Put(kAnyPath, [this](Req req, Res res, Reader) { unrouted(req, res); });
    s.Patch(kAnyPath, [this](Req req, Res res, Reader) { unrouted(req, res); });
    s.Delete(kAnyPath, [this](Req req, Res res, Reader) { unrouted(req, res); });

    bound_port = options.port == 0 ? s.bind_to_any_port(options.host) : (s.bind_to_port(options.host, options.port) ? options.port : -1);
    if (bound_port < 0)
      throw IoError("cannot listen on " + options.host + ":" + std::to_string(options.port) +
                    " (in use, or not an address of this machine?)");
  }
};

ImageService::ImageService(ImageSearch& database, ServiceOptions options)
    : impl_(std::make_unique<Impl>(database, std::move(options))) {
  impl_->makeServer();
}

ImageService::~ImageService() = default;

int ImageService::port() const { return impl_->bound_port; }

void ImageService::run() {
  if (!impl_->stop_requested) impl_->server->listen_after_bind();
  impl_->run_ended = true;
}

void ImageService::stop() {
  impl_->stop_requested = true;
  // cpp-httplib's stop() does nothing before listening has begun: wait until it has, or run() ended.
  while (!impl_->server->is_running() && !impl_->run_ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server->stop();
}

}  // namespace bovw::serve
