// Turns CLHPP's cl::Error (the failing call's name and code) into bovw::OpenCLError at the library
// boundary, so callers catch one exception family and every message names the call and the code.
#pragma once

#include "opencl/cl.hpp"

#include <bovw/error.hpp>

#include <utility>

namespace bovw::detail {

[[noreturn]] void throwOpenCLError(const cl::Error& error);

template <typename Function>
decltype(auto) withOpenCLErrors(Function&& function) {
  try {
    return std::forward<Function>(function)();
  } catch (const cl::Error& error) {
    throwOpenCLError(error);
  }
}

// Runs `function`; when it throws, first lets `queue` finish what it holds: commands already queued
// may read or write host memory that the unwinding is about to free.
template <typename Function>
decltype(auto) finishingQueueOnFailure(cl::CommandQueue& queue, Function&& function) {
  try {
    return std::forward<Function>(function)();
  } catch (...) {
    try {
      queue.finish();
    } catch (const cl::Error&) {  // the failure that is already on its way says more
    }
    throw;
  }
}

// Milliseconds between an event's start and end (the queue must have profiling enabled).
double elapsedMs(const cl::Event& event);

}  // namespace bovw::detail
