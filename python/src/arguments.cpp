// The shared keyword arguments (arguments.hpp).
#include "arguments.hpp"

#include <bovw/device.hpp>
#include <bovw/error.hpp>
#include <bovw/surf.hpp>

#include <map>
#include <mutex>
#include <tuple>

namespace bovw::python {

namespace {

// Takes `name` out of `options` as a T (TypeError naming it if it is not one); nullopt if absent.
template <typename T>
std::optional<T> take(py::dict& options, const char* name) {
  if (!options.contains(name)) return std::nullopt;
  const py::object value = options[name];
  PyDict_DelItemString(options.ptr(), name);
  // bool is an int in Python: refuse True where a number is wanted, and numbers where a flag is.
  if (std::is_same_v<T, bool> != py::isinstance<py::bool_>(value) && !value.is_none())
    throw py::type_error(std::string(name) + ": expected " + (std::is_same_v<T, bool> ? "a bool" : "a number") +
                         ", got " + py::repr(value).cast<std::string>());
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(name) + ": expected " + py::type_id<T>() + ", got " +
                         py::repr(value).cast<std::string>());
  }
}

// A params= value as FeatureSpec text: ints and floats in their canonical form, flags true/false.
std::string parameterText(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value)) return std::to_string(value.cast<long long>());
  if (py::isinstance<py::float_>(value)) return canonicalReal(value.cast<double>());
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  throw py::type_error("params['" + name + "']: expected an int, float, bool or str, got " +
                       py::repr(value).cast<std::string>());
}

}  // namespace

FeatureArguments featureArguments(const std::string& features, py::dict& options) {
  SurfParams surf;
  bool surf_options = false;
  auto surfOption = [&](auto value, auto& field) {
    if (!value) return;
    field = *value;
    surf_options = true;
  };
  surfOption(take<double>(options, "hessian_threshold"), surf.hessian_threshold);
  surfOption(take<int>(options, "octaves"), surf.octaves);
  surfOption(take<int>(options, "octave_layers"), surf.octave_layers);
  surfOption(take<bool>(options, "extended"), surf.extended);
  surfOption(take<bool>(options, "upright"), surf.upright);
  if (surf_options && features != "surf")
    throw InvalidInput("hessian_threshold, octaves, octave_layers, extended and upright are SURF options; with "
                       "features='" + features + "' pass params={NAME: VALUE}");
  FeatureArguments result;
  if (const auto max_pixels = take<std::int64_t>(options, "max_pixels")) {
    if (*max_pixels <= 0) throw InvalidInput("max_pixels must be positive, got " + std::to_string(*max_pixels));
    surf.max_pixels = *max_pixels;
  }
  result.extractor.max_pixels = surf.max_pixels;
  if (features == "surf") validateSurfParams(surf);
  FeatureSpec spec = features == "surf" ? surfFeatureSpec(surf) : FeatureSpec(features);
  if (options.contains("params")) {
    const py::object params = options["params"];
    PyDict_DelItemString(options.ptr(), "params");
    if (!params.is_none()) {
      if (!py::isinstance<py::dict>(params))
        throw py::type_error("params: expected a dict of feature parameters, got " + py::repr(params).cast<std::string>());
      for (const auto& [name, value] : params.cast<py::dict>()) {
        const std::string key = py::str(name).cast<std::string>();
        spec.set(key, parameterText(key, value));
      }
    }
  }
  result.spec = normalizeFeatureSpec(spec);
  if (const auto backend = take<std::string>(options, "surf_backend"))
    result.extractor.surf_backend = parseSurfBackend(*backend);
  if (const auto device = take<std::string>(options, "surf_device")) result.extractor.surf_device = *device;
  return result;
}

void rejectUnknown(const py::dict& options, const char* call) {
  for (const auto& item : options)
    throw py::type_error(std::string(call) + "() got an unexpected keyword argument '" +
                         py::str(item.first).cast<std::string>() + "'");
}

HistogrammerConfig histogrammerConfig(const std::string& backend, const std::string& variant,
                                      const std::optional<std::string>& device, int threads) {
  HistogrammerConfig config;
  config.backend = parseBackend(backend);
  config.variant = parseKernelVariant(variant);
  if (device) config.device = *device;
  // "auto": the library's choice (bovw::resolveBackend), made now so that the object reports it.
  config = withResolvedBackend(config);
  if (threads < 0) throw InvalidInput("threads must be 0 (all cores) or positive, got " + std::to_string(threads));
  config.threads = threads;
  return config;
}

std::shared_ptr<const FeatureExtractor> cachedExtractor(const FeatureArguments& arguments) {
  using Key = std::tuple<std::string, int, std::string, std::int64_t>;
  static std::mutex mutex;
  static auto* cache = new std::map<Key, std::shared_ptr<const FeatureExtractor>>();  // lives with the process
  const Key key{arguments.spec.toString(), static_cast<int>(arguments.extractor.surf_backend),
                arguments.extractor.surf_device, arguments.extractor.max_pixels};
  std::lock_guard<std::mutex> lock(mutex);
  auto& extractor = (*cache)[key];
  if (!extractor) extractor = makeFeatureExtractor(arguments.spec, arguments.extractor);
  return extractor;
}

}  // namespace bovw::python
