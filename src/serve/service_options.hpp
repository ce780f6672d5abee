// How `bovw serve` listens and what it lets in: the address, the token, and the limits that keep a
// client from taking more than its share (body size, request time, connections, queued work).
#pragma once

#include "serve/bearer_token.hpp"

#include <bovw/geometric_verification.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bovw::serve {

struct ServiceOptions {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  int port = 8080;                 // 0: any free port (ImageService::port() tells which)
  BearerToken token;               // needed for writes when set
  bool token_for_reads = false;    // and for searches and listings too (never for /health)
  std::size_t max_body_bytes = std::size_t{64} << 20;  // larger bodies: 413, refused before they are read
  std::int64_t max_pixels = 100'000'000;               // larger images: 422, refused from their header
  int request_seconds = 30;           // to receive a request, and to send its answer
  std::size_t connections = 64;       // connections served at once (threads); more wait to be accepted
  std::size_t workers = 0;            // requests that search, add or remove at once; 0: the cores
  std::size_t queue = 256;            // requests that may wait for a worker; more: 503
  // The features of concurrent searches and PUTs run as one batch of at most this many images and
  // pixels (serve/dynamic_batcher.hpp). 0: kAutoBatchImages where SURF runs on an OpenCL device
  // (ImageSearch::extractsInDeviceBatches), else 1: each request extracts on its own thread.
  std::size_t batch_images = 0;
  std::int64_t batch_pixels = 16'000'000;
  static constexpr std::size_t kAutoBatchImages = 16;
  // The most PUTs (or DELETEs) that share one durable write of the store (group commit); the rest
  // wait for the next one.
  static constexpr std::size_t kMaxWriteBatch = 64;
  std::size_t max_top = 1000;         // the largest ?top= and ?verify=
  VerificationOptions verification;   // thresholds of ?verify=
  // A PEM certificate and its key: HTTPS in the server itself. Empty: plain HTTP (behind a reverse
  // proxy that terminates TLS, docs/SERVING.md).
  std::string tls_certificate, tls_key;
};

}  // namespace bovw::serve
