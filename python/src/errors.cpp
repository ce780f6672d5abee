// bovw's exceptions as Python exceptions. Each kind subclasses bovw.Error and the built-in a Python
// user would catch for it: InvalidInput is a ValueError, IoError an OSError, CapacityError a
// MemoryError; the OpenCL failures are RuntimeErrors. The message is bovw's, unchanged.
#include "bindings.hpp"

#include <bovw/error.hpp>

namespace bovw::python {

namespace {

// Made once when the module is imported and kept for the life of the process (an exception type
// must outlive every exception raised with it, so it is never released).
PyObject* error_type = nullptr;
PyObject* invalid_input_type = nullptr;
PyObject* io_error_type = nullptr;
PyObject* capacity_error_type = nullptr;
PyObject* opencl_error_type = nullptr;
PyObject* kernel_build_error_type = nullptr;

PyObject* makeType(py::module_& module, const char* name, const char* doc, py::tuple bases) {
  const std::string qualified = std::string("bovw.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  module.add_object(name, py::reinterpret_borrow<py::object>(type));  // the module's reference; `type` stays ours
  return type;
}

// Sets the Python error: an instance of `type` made from `message`, with `attributes` set on it.
void raise(PyObject* type, const std::string& message, std::initializer_list<std::pair<const char*, py::object>> attributes = {}) {
  py::object instance = py::reinterpret_borrow<py::object>(type)(text(message));
  for (const auto& [name, value] : attributes) instance.attr(name) = value;
  PyErr_SetObject(type, instance.ptr());
}

}  // namespace

void bindErrors(py::module_& module) {
  const py::handle base(PyExc_Exception);
  error_type = makeType(module, "Error", "Base of every bovw exception: catch it to handle any failure of the library.",
                        py::make_tuple(base));
  const py::handle error(error_type);
  invalid_input_type = makeType(
      module, "InvalidInput",
      "Bad data or arguments: NaN descriptors, mismatched widths, malformed files, bad offsets, unknown names. "
      "A ValueError. `files` names the files the data came from (empty for data in memory); `problem` is the "
      "message without them.",
      py::make_tuple(error, py::handle(PyExc_ValueError)));
  io_error_type = makeType(module, "IoError", "A file could not be opened, read, written or renamed. An OSError.",
                           py::make_tuple(error, py::handle(PyExc_OSError)));
  capacity_error_type = makeType(
      module, "CapacityError",
      "A request exceeds a device or configured limit (device memory, allocation size, pixels). A MemoryError.",
      py::make_tuple(error, py::handle(PyExc_MemoryError)));
  opencl_error_type = makeType(module, "OpenCLError",
                               "An OpenCL call failed; `code` is its error code. A RuntimeError.",
                               py::make_tuple(error, py::handle(PyExc_RuntimeError)));
  kernel_build_error_type = makeType(
      module, "KernelBuildError",
      "An OpenCL program failed to build; `log` is the compiler's log, `options` what it was given. A RuntimeError.",
      py::make_tuple(error, py::handle(PyExc_RuntimeError)));

  // Later translators are tried first: these take bovw's exceptions, anything else goes on to
  // pybind11's own (std::bad_alloc: MemoryError; other std::exception: RuntimeError).
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      std::rethrow_exception(thrown);
    } catch (const InvalidInput& e) {
      py::list files;
      for (const std::string& file : e.files()) files.append(text(file));
      raise(invalid_input_type, e.what(), {{"files", files}, {"problem", text(e.problem())}});
    } catch (const IoError& e) {
      raise(io_error_type, e.what());
    } catch (const CapacityError& e) {
      raise(capacity_error_type, e.what());
    } catch (const OpenCLError& e) {
      raise(opencl_error_type, e.what(), {{"code", py::int_(e.code())}});
    } catch (const KernelBuildError& e) {
      raise(kernel_build_error_type, e.what(), {{"log", text(e.log())}, {"options", text(e.options())}});
    } catch (const Error& e) {
      raise(error_type, e.what());
    }
  });
}

}  // namespace bovw::python
