// The build options of every SURF kernel program: OpenCL C 1.2, and correctly rounded float division
// and square root where the device offers them (the kernels' own divisions go through surf_div_rn
// either way, so the results do not depend on it).
#pragma once

#include "opencl/device_context.hpp"

#include <string>

namespace bovw::surf {

std::string surfProgramOptions(const detail::DeviceContext& device);

}  // namespace bovw::surf
