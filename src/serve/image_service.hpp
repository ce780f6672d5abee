// The HTTP service over one database (`bovw serve`, docs/SERVING.md): PUT and DELETE /images/{name},
// POST /search, GET /images, /health and /metrics, answered in JSON (metrics in Prometheus's text
// format). The database, vocabulary and kernels stay loaded; each connection is served by a thread
// of cpp-httplib's pool, and the requests that do work take turns at a bounded number of workers.
#pragma once

#include "serve/service_options.hpp"

#include <bovw/image_search.hpp>

#include <memory>

namespace bovw::serve {

class ImageService {
 public:
  // Serves `database`, which must outlive the service. Throws IoError if the address cannot be
  // bound, InvalidInput if the TLS files cannot be used.
  ImageService(ImageSearch& database, ServiceOptions options);
  ~ImageService();
  ImageService(const ImageService&) = delete;
  ImageService& operator=(const ImageService&) = delete;

  int port() const;  // the port bound (the one asked for, or the free one found for port 0)
  // Answers requests until stop(); returns once the requests in flight are answered.
  void run();
  // Makes run() return (or return at once, if it has not begun): stops accepting, and run() returns
  // once the requests in flight are answered. Safe from any thread; not from a signal handler.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bovw::serve
