// A request that fails with an HTTP status: thrown anywhere below a route's handler and answered by
// the service as {"error": message} with that status.
#pragma once

#include <stdexcept>
#include <string>

namespace bovw::serve {

class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace bovw::serve
