// Maps every trunk:: C++ exception to its Python class in trunk_api/errors.py (handed over by the facade,
// facade_hooks.hpp). Messages come from C++ and are
// already free of the token (the client redacts before building them).
#include <pybind11/pybind11.h>

#include <exception>
#include <span>
#include <string>

#include "bindings.hpp"
#include "facade_hooks.hpp"
#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/webhook_signature.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

py::object error_class(const char* name) { return facade_error_class(name); }

py::str text(const std::string& value) {
  // Error texts may quote bytes that are not UTF-8 (a server's body); never fail while reporting a failure.
  PyObject* decoded = PyUnicode_DecodeUTF8(value.data(), static_cast<Py_ssize_t>(value.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

void raise(const py::object& cls, const py::object& instance) { PyErr_SetObject(cls.ptr(), instance.ptr()); }

void raise_api_error(const ApiError& error, const char* class_name) {
  const py::object cls = error_class(class_name);
  raise(cls, cls(text(error.what()), error.status_code(), text(error.body()), text(error.operation()),
                 py::arg("code") = text(error.code()), py::arg("request_id") = text(error.request_id())));
}

void translate(std::exception_ptr pointer) {
  try {
    std::rethrow_exception(pointer);
  } catch (const MissingTokenError& error) {
    // The C++ message names ClientOptions::token; the facade's class words the remedy for Python callers from
    // the credential needed and the variables the core reads.
    const auto& names = error.needed() == Credential::api_key ? std::span<const std::string_view>(kApiKeyVariables)
                                                              : std::span<const std::string_view>(kTokenVariables);
    py::tuple variables(names.size());
    for (std::size_t i = 0; i < names.size(); ++i) variables[i] = py::str(std::string(names[i]));
    const char* needed = error.needed() == Credential::api_key ? "api_key"
                         : error.needed() == Credential::token ? "token"
                                                               : "any";
    const py::object cls = error_class("MissingTokenError");
    raise(cls, cls(variables, needed, text(error.operation())));
  } catch (const ValidationError& error) {
    const py::object violation = error_class("Violation");
    py::list violations;
    for (const Violation& v : error.violations()) violations.append(violation(text(v.field), text(v.value), text(v.rule)));
    const py::object cls = error_class("ValidationError");
    raise(cls, cls(text(error.what()), violations));
  } catch (const DecodeError& error) {
    const py::object cls = error_class("DecodeError");
    raise(cls, cls(text(error.what()), text(error.path())));
  } catch (const PaginationError& error) {
    PyErr_SetString(error_class("PaginationError").ptr(), error.what());
  } catch (const CancelledError& error) {
    // Normally the pending KeyboardInterrupt is re-raised by the call wrapper (interrupt.hpp); this is the
    // fallback when the C++ side cancelled for another reason.
    PyErr_SetString(PyExc_KeyboardInterrupt, error.what());
  } catch (const TimeoutError& error) {
    PyErr_SetObject(error_class("RequestTimeout").ptr(), text(error.what()).ptr());
  } catch (const TransportError& error) {
    PyErr_SetObject(error_class("TransportError").ptr(), text(error.what()).ptr());
  } catch (const RateLimitError& error) {
    const py::object cls = error_class("RateLimitError");
    py::object retry_after = error.retry_after() ? py::object(py::float_(*error.retry_after())) : py::none();
    raise(cls, cls(text(error.what()), error.status_code(), text(error.body()), text(error.operation()), retry_after,
                   py::arg("code") = text(error.code()), py::arg("request_id") = text(error.request_id())));
  } catch (const BadRequestError& error) {
    raise_api_error(error, "BadRequestError");
  } catch (const AuthenticationError& error) {
    raise_api_error(error, "AuthenticationError");
  } catch (const PermissionDeniedError& error) {
    raise_api_error(error, "PermissionDeniedError");
  } catch (const NotFoundError& error) {
    raise_api_error(error, "NotFoundError");
  } catch (const ConflictError& error) {
    raise_api_error(error, "ConflictError");
  } catch (const ServerError& error) {
    raise_api_error(error, "ServerError");
  } catch (const ApiError& error) {
    raise_api_error(error, "ApiError");
  } catch (const WebhookVerificationError& error) {
    const py::object cls = error_class("WebhookVerificationError");
    raise(cls, cls(text(error.what()), py::str(std::string(to_string(error.reason())))));
  } catch (const Error& error) {
    PyErr_SetObject(error_class("TrunkError").ptr(), text(error.what()).ptr());
  } catch (const nlohmann::json::exception& error) {
    // The codec is meant to turn every JSON problem into DecodeError; should a library exception slip through
    // (a number out of range, say), Python still gets a TrunkError instead of a bare IndexError/RuntimeError.
    const py::object cls = error_class("DecodeError");
    raise(cls, cls(text(std::string("JSON could not be read: ") + error.what()), py::str("")));
  }
}

}  // namespace

void bind_errors(py::module_& /*m*/) { py::register_exception_translator(&translate); }

}  // namespace trunk::python
