// bovw.devices(): the OpenCL devices, as `bovw devices` lists them, for choosing a device= spec.
#include "bindings.hpp"

#include <bovw/device.hpp>

#include <pybind11/stl.h>

namespace bovw::python {

void bindDevices(py::module_& module) {
  py::class_<DeviceInfo>(module, "Device",
                         "An OpenCL device. `spec` (\"P:D\") selects it as device= of Histogrammer and Database.")
      .def_property_readonly("spec", [](const DeviceInfo& d) {
        return std::to_string(d.platform_index) + ":" + std::to_string(d.device_index);
      }, "\"P:D\": platform and device index")
      .def_readonly("platform", &DeviceInfo::platform, "the platform's name")
      .def_readonly("name", &DeviceInfo::name, "the device's name")
      .def_readonly("vendor", &DeviceInfo::vendor, "the device's vendor")
      .def_readonly("type", &DeviceInfo::type, "\"GPU\", \"CPU\", \"accelerator\" or \"other\"")
      .def_readonly("version", &DeviceInfo::version, "CL_DEVICE_VERSION")
      .def_readonly("compute_units", &DeviceInfo::compute_units, "compute units")
      .def_readonly("global_memory", &DeviceInfo::global_memory, "global memory in bytes")
      .def_readonly("max_allocation", &DeviceInfo::max_allocation, "the largest single allocation in bytes")
      .def_readonly("local_memory", &DeviceInfo::local_memory, "local memory per work-group in bytes")
      .def("__repr__", [](const DeviceInfo& d) {
        return "<bovw.Device " + std::to_string(d.platform_index) + ":" + std::to_string(d.device_index) + " " +
               d.type + " '" + d.name + "' (" + d.platform + ")>";
      });
  module.def(
      "devices", [] { return listDevices(); },
      "Every OpenCL device of every platform; an empty list (not an error) when no OpenCL platform is installed.");
}

}  // namespace bovw::python
