// The secret that requests must present (`Authorization: Bearer TOKEN`): read from a file, never
// from the command line, where any user of the machine could read it in the process list.
#pragma once

#include <string>

namespace bovw::serve {

class BearerToken {
 public:
  BearerToken() = default;  // none: every request is let in
  // The file's content without its final line break. Throws IoError if it cannot be read,
  // InvalidInput naming it if the token is empty, longer than 4 KiB, or holds spaces or line breaks
  // (it must fit an HTTP header as it is).
  static BearerToken fromFile(const std::string& path);

  bool required() const { return !token_.empty(); }
  // Whether an Authorization header's value presents the token; in time that does not depend on
  // where a wrong token first differs.
  bool admits(const std::string& authorization) const;

 private:
  std::string token_;
};

}  // namespace bovw::serve
