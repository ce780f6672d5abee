#include "serve/service_metrics.hpp"

#include <prometheus/text_serializer.h>

namespace bovw::serve {

namespace {

// Latency buckets from 1 ms to 10 s: a bag-of-words search takes milliseconds, a verified one on
// a loaded machine up to seconds.
const prometheus::Histogram::BucketBoundaries kSecondsBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                                  0.25,  0.5,    1,     2.5,  5,     10};

}  // namespace

ServiceMetrics::ServiceMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(prometheus::BuildCounter()
                    .Name("bovw_requests_total")
                    .Help("HTTP requests answered, by route, method and status")
                    .Register(*registry_)),
      errors_(prometheus::BuildCounter()
                  .Name("bovw_request_errors_total")
                  .Help("HTTP requests answered with a status of 400 or more, by route and status")
                  .Register(*registry_)),
      seconds_(prometheus::BuildHistogram()
                   .Name("bovw_request_duration_seconds")
                   .Help("Time from a request's headers to its answer, by route")
                   .Register(*registry_)),
      stage_seconds_(prometheus::BuildHistogram()
                         .Name("bovw_search_stage_seconds")
                         .Help("Time of each stage of a search: waiting for a turn, features, ranking")
                         .Register(*registry_)),
      write_stage_seconds_(prometheus::BuildHistogram()
                               .Name("bovw_write_stage_seconds")
                               .Help("Time of each stage of a PUT or DELETE: waiting for a turn, features, storing")
                               .Register(*registry_)),
      feature_batch_images_(prometheus::BuildHistogram()
                                .Name("bovw_feature_batch_images")
                                .Help("Images whose features ran as one batch (concurrent searches and PUTs)")
                                .Register(*registry_)
                                .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64})),
      write_batch_requests_(prometheus::BuildHistogram()
                                .Name("bovw_write_batch_requests")
                                .Help("PUTs or DELETEs written to the store in one durable write (one sync)")
                                .Register(*registry_)
                                .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64})),
      waiting_(prometheus::BuildGauge()
                   .Name("bovw_queue_depth")
                   .Help("Requests waiting for a turn of work (search, add, remove)")
                   .Register(*registry_)
                   .Add({})),
      working_(prometheus::BuildGauge()
                   .Name("bovw_requests_working")
                   .Help("Requests doing their work now")
                   .Register(*registry_)
                   .Add({})),
      images_(prometheus::BuildGauge()
                  .Name("bovw_images")
                  .Help("Images in the database")
                  .Register(*registry_)
                  .Add({})) {}

void ServiceMetrics::observe(const std::string& route, const std::string& method, int status, double seconds) {
  const std::string code = std::to_string(status);
  requests_.Add({{"route", route}, {"method", method}, {"code", code}}).Increment();
  if (status >= 400) errors_.Add({{"route", route}, {"code", code}}).Increment();
  seconds_.Add({{"route", route}}, kSecondsBuckets).Observe(seconds);
}

void ServiceMetrics::observeSearchStage(const std::string& stage, double seconds) {
  stage_seconds_.Add({{"stage", stage}}, kSecondsBuckets).Observe(seconds);
}

void ServiceMetrics::observeWriteStage(const std::string& stage, double seconds) {
  write_stage_seconds_.Add({{"stage", stage}}, kSecondsBuckets).Observe(seconds);
}

void ServiceMetrics::observeFeatureBatch(std::size_t images) {
  feature_batch_images_.Observe(static_cast<double>(images));
}

void ServiceMetrics::observeWriteBatch(std::size_t requests) {
  write_batch_requests_.Observe(static_cast<double>(requests));
}

void ServiceMetrics::setQueue(std::size_t waiting, std::size_t working) {
  waiting_.Set(static_cast<double>(waiting));
  working_.Set(static_cast<double>(working));
}

void ServiceMetrics::setImages(std::size_t images) { images_.Set(static_cast<double>(images)); }

std::string ServiceMetrics::text() const { return prometheus::TextSerializer().Serialize(registry_->Collect()); }

}  // namespace bovw::serve
