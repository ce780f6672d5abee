// `bovw serve`: the HTTP service over one database (docs/SERVING.md). This file parses the options,
// loads the database once, says when the service is ready, and turns SIGTERM or SIGINT into a clean
// stop: the requests in flight are answered, then the program exits 0. The service is
// src/serve/'s.
#include "commands.hpp"
#include "histogrammer_options.hpp"
#include "malloc_huge_pages.hpp"
#include "number_checks.hpp"
#include "opening_warning.hpp"
#include "progress_bar.hpp"
#include "query_options.hpp"
#include "stop_signals.hpp"

#include "serve/image_service.hpp"

#include <bovw/error.hpp>
#include <bovw/image_search.hpp>

#include <spdlog/spdlog.h>

#include <signal.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <thread>

namespace bovw::cli {

namespace {

struct ServeArguments {
  std::string index;
  std::string listen = "127.0.0.1:8080";
  std::string token_file;
  std::string log_level = "info";
  // The host by default: on an H100 the device's scan made a lone search 3.0-4.7x faster, but under
  // load its kernel (3.5 ms a search) took the GPU from the batched SURF, and the server answered 206-211
  // verified searches/s against 363 (docs/PERFORMANCE.md, "Serving", 2026-12-07).
  std::string signatures = "host";
  serve::ServiceOptions service;
  QueryOptions query;
} args;

// HOST:PORT, [IPv6]:PORT or PORT alone (on 127.0.0.1).
void parseListen(const std::string& text, serve::ServiceOptions& service) {
  const auto colon = text.rfind(':');
  std::string host = colon == std::string::npos ? "127.0.0.1" : text.substr(0, colon);
  const std::string port = colon == std::string::npos ? text : text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  std::size_t used = 0;
  int number = -1;
  try {
    number = std::stoi(port, &used);
  } catch (const std::exception&) {
  }
  if (host.empty() || used != port.size() || number < 0 || number > 65535)
    throw CLI::ValidationError("--listen", "'" + text + "' is not HOST:PORT (a port from 0 to 65535; 0: any free port)");
  service.host = host;
  service.port = number;
}

// A copy of the signatures on a GPU that could not be made is worth a warning: searches are slower.
void warnIfSignaturesOnHost(const ImageSearch& database) {
  const ImageDatabase::SignatureScan scan = database.signatureScan();
  if (scan.device.empty() && !scan.dropped_because.empty())
    spdlog::warn("signatures: scanned on the host: {}", scan.dropped_because);
}

}  // namespace

CLI::App* addServeCommand(CLI::App& app) {
  auto* command = app.add_subcommand("serve", "Answer searches and take new images over HTTP (docs/SERVING.md)");
  serve::ServiceOptions& s = args.service;
  command->add_option("--index", args.index,
                      "the database: a live database's folder (searches, adds and removes) or a .bovwdb file or "
                      "shard manifest (searches only)")->required();
  command->add_option("--listen", args.listen, "HOST:PORT to listen on; port 0 takes a free one (printed)")
      ->capture_default_str();
  command->add_option("--token-file", args.token_file,
                      "a file holding the bearer token that writes (PUT, DELETE) must present")
      ->check(CLI::ExistingFile);
  command->add_flag("--token-for-reads", s.token_for_reads, "searches and listings need the token too (/health never)");
  command->add_option("--max-body-bytes", s.max_body_bytes, "larger request bodies are refused (413) before they are read")
      ->check(kPositive)->capture_default_str();
  command->add_option("--max-pixels", s.max_pixels, "larger images are refused (422) from their header")
      ->check(kPositive)->capture_default_str();
  command->add_option("--request-timeout", s.request_seconds, "seconds to receive a request or send its answer")
      ->check(kPositive)->capture_default_str();
  command->add_option("--connections", s.connections, "connections served at once; more wait to be accepted")
      ->check(kPositive)->capture_default_str();
  command->add_option("--workers", s.workers, "requests that search, add or remove at once (default: the cores)");
  command->add_option("--queue", s.queue, "requests that may wait for a worker; more are refused (503)")
      ->capture_default_str();
  command->add_option("--batch-images", s.batch_images,
                      "the features of concurrent searches and PUTs run as one batch of up to N images (default: "
                      "16 where SURF runs on a GPU, else 1: each request on its own)");
  command->add_option("--tls-cert", s.tls_certificate, "PEM certificate: serve HTTPS (with --tls-key)")
      ->check(CLI::ExistingFile);
  command->add_option("--tls-key", s.tls_key, "PEM private key of --tls-cert")->check(CLI::ExistingFile);
  command->add_option("--signatures", args.signatures,
                      "where Hamming searches scan the stored signatures: host, device (copied to the GPU at the "
                      "start: a lone search is faster, a loaded server slower, for now), or auto (device where the "
                      "features run on a GPU)")
      ->check(CLI::IsMember({"auto", "device", "host"}))
      ->capture_default_str();
  command->add_option("--log-level", args.log_level, "one line per request at info; warn: errors only")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  args.query.histogrammer.addTo(command);
  command->parse_complete_callback([] { parseListen(args.listen, args.service); });
  return command;
}

int runServeCommand() {
  restartWithMallocHugePages();  // the writes after the open copy lists into malloc's memory
  const auto start = std::chrono::steady_clock::now();
  spdlog::set_level(spdlog::level::from_str(args.log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
  if (!args.token_file.empty()) args.service.token = serve::BearerToken::fromFile(args.token_file);
  else if (args.service.token_for_reads) throw InvalidInput("--token-for-reads needs --token-file");

  // Installed before the database is loaded: a SIGTERM from then on stops the service once it runs.
  StopSignals stop;

  ProgressBar quiet("serve", true);
  ImageSearchOptions engine = args.query.engine(quiet);
  engine.signatures = args.signatures == "device" ? SignaturePlace::Device
                      : args.signatures == "host" ? SignaturePlace::Host
                                                  : SignaturePlace::Auto;
  ImageSearch database = ImageSearch::open(args.index, engine);
  warnIfCheckpointRefused(database.liveDatabase());
  warnIfSignaturesOnHost(database);
  database.prepare();  // the first request must not wait for the OpenCL kernels: ready means ready
  serve::ImageService service(database, args.service);
  std::thread signals([&] {
    const int signal = stop.wait();
    if (signal == 0) return;  // woken: the service ended by itself
    spdlog::info("{}: finishing the requests in flight, then stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
    service.stop();
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "bovw serve: ready on " << (args.service.tls_certificate.empty() ? "http" : "https") << "://"
            << args.service.host << ":" << service.port() << " (" << database.size() << " images"
            << (database.isLive() ? ", live" : ", read-only")
            << (database.signatureScan().device.empty() ? "" : ", signatures on " + database.signatureScan().device)
            << ", ready in " << std::fixed
            << std::setprecision(2) << seconds << " s)" << std::endl;
  service.run();
  stop.wake();  // run() also ends when listening fails: the signal thread may still wait
  signals.join();
  std::cout << "bovw serve: stopped" << std::endl;
  return 0;
}

}  // namespace bovw::cli
