// The one include of OpenCL-CLHPP in bovw (version macros come from the build: see src/CMakeLists.txt).
#pragma once

#include <CL/opencl.hpp>
