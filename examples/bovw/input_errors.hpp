// Re-throws a library InvalidInput with the name of the file it came from, so the one-line
// message on stderr says which input was bad.
#pragma once

#include <bovw/error.hpp>

#include <string>

namespace bovw::cli {

template <typename Function>
decltype(auto) namingInput(const std::string& input, Function&& function) {
  try {
    return function();
  } catch (const InvalidInput& e) {
    const std::string message = e.what();
    if (message.find(input) != std::string::npos) throw;  // already named
    throw InvalidInput("'" + input + "': " + message);
  }
}

}  // namespace bovw::cli
