// What GET /metrics reports, in Prometheus's text format (prometheus-cpp): requests by route, method
// and status, their latencies, where a search's and a write's time goes, errors, the work queue's
// depth and the database's size.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

namespace bovw::serve {

class ServiceMetrics {
 public:
  ServiceMetrics();

  // One answered request; `route` is the route's pattern (/images/{name}), never the raw path,
  // so that the label set stays small whatever names clients send.
  void observe(const std::string& route, const std::string& method, int status, double seconds);
  // One stage of a search: "waiting" for a turn of work, "features" (decoding, features and their
  // words) or "ranking" (the index's ranking and the verification).
  void observeSearchStage(const std::string& stage, double seconds);
  // One stage of a write (PUT, DELETE): "waiting" for a turn of work, "features" (a PUT's decoding,
  // features and their words) or "storing" (the durable write and its apply to the in-memory copy).
  void observeWriteStage(const std::string& stage, double seconds);
  // One batch of images whose features ran together (a search's or PUT's, with batching on).
  void observeFeatureBatch(std::size_t images);
  // One durable write of the store and the concurrent PUTs (or DELETEs) it carried.
  void observeWriteBatch(std::size_t requests);
  // Sampled when the metrics are read.
  void setQueue(std::size_t waiting, std::size_t working);
  void setImages(std::size_t images);

  std::string text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Counter>& errors_;
  prometheus::Family<prometheus::Histogram>& seconds_;
  prometheus::Family<prometheus::Histogram>& stage_seconds_;
  prometheus::Family<prometheus::Histogram>& write_stage_seconds_;
  prometheus::Histogram& feature_batch_images_;
  prometheus::Histogram& write_batch_requests_;
  prometheus::Gauge& waiting_;
  prometheus::Gauge& working_;
  prometheus::Gauge& images_;
};

}  // namespace bovw::serve
