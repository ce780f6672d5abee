// SURF orientation on the device: written by the OpenCL SURF work (issue 8), not yet filled in.
#include "surf_common.h"
