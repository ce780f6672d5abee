// SURF integral on the device (issue 8): being written.
#include "surf_common.h"
