#include "program_options.hpp"

namespace bovw::surf {

std::string surfProgramOptions(const detail::DeviceContext& device) {
  std::string options = "-cl-std=CL1.2";
  if (device.device().getInfo<CL_DEVICE_SINGLE_FP_CONFIG>() & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
    options += " -cl-fp32-correctly-rounded-divide-sqrt";
  return options;
}

}  // namespace bovw::surf
