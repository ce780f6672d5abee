// The keypoint record the SURF kernels read and write (kernels/surf_common.h's surf_keypoint), and
// its conversion to and from cv::KeyPoint.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>

namespace bovw::surf {

struct DeviceKeypoint {
  float x, y, size, angle, response;
  std::int32_t octave, class_id;
  std::int32_t image;  // which image of the batch
};
static_assert(sizeof(DeviceKeypoint) == 32, "must match kernels/surf_common.h");

inline DeviceKeypoint toDevice(const cv::KeyPoint& kp, std::int32_t image = 0) {
  return {kp.pt.x, kp.pt.y, kp.size, kp.angle, kp.response, kp.octave, kp.class_id, image};
}

inline cv::KeyPoint fromDevice(const DeviceKeypoint& d) {
  return cv::KeyPoint(d.x, d.y, d.size, d.angle, d.response, d.octave, d.class_id);
}

}  // namespace bovw::surf
