// Webhooks from Python: WebhookSecret, verify_webhook, construct_webhook_event, sign_webhook and the reading of
// a delivery's headers from any mapping (trunk_api/webhooks.py re-exports them). The work is the C++ core's
// (webhook_signature.hpp, webhook_event.hpp); this file only converts.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "bind_webhooks.hpp"
#include "convert_time.hpp"
#include "trunk/webhook_signature.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

/// Bodies from this size on are verified and read without the GIL. SHA-256 and the parse run at hundreds of MB/s
/// to a few GB/s, so a 64 KiB body takes tens of microseconds or more, which other threads can use. A typical
/// event (1-4 KB, 4-5 us) keeps the GIL: giving it up costs little in a single thread, but retaking it waits
/// for whichever thread took it meanwhile. Measured with benchmarks/run.py scenario 10's 2 KB delivery and one
/// busy pure-Python thread beside the verifying loop (2026-11-25, a loaded 2-core machine): 16 us per verify
/// holding the GIL, 25 us releasing it for every body; 8.1 against 8.2 us with no other thread.
constexpr std::size_t kReleaseGilFromBytes = 64 * 1024;

/// The bytes of a body: bytes (borrowed, immutable), bytearray / memoryview / other buffers (copied, since
/// another thread could change them while the GIL is released), or str (its UTF-8).
class Body {
 public:
  explicit Body(py::handle body) {
    if (PyBytes_Check(body.ptr())) {
      owner_ = py::reinterpret_borrow<py::object>(body);
      view_ = std::string_view(PyBytes_AS_STRING(body.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(body.ptr())));
    } else if (PyUnicode_Check(body.ptr())) {
      Py_ssize_t size = 0;
      const char* data = PyUnicode_AsUTF8AndSize(body.ptr(), &size);
      if (data == nullptr) throw py::error_already_set();
      copy_.assign(data, static_cast<std::size_t>(size));
      view_ = copy_;
    } else if (PyObject_CheckBuffer(body.ptr())) {
      const py::buffer_info info = py::reinterpret_borrow<py::buffer>(body).request();
      copy_.assign(static_cast<const char*>(info.ptr), static_cast<std::size_t>(info.size * info.itemsize));
      view_ = copy_;
    } else {
      throw py::type_error("body must be the raw bytes of the request (bytes, bytearray, memoryview or str), not " +
                           std::string(py::str(py::type::handle_of(body).attr("__name__"))));
    }
  }
  std::string_view view() const noexcept { return view_; }

 private:
  py::object owner_;
  std::string copy_;
  std::string_view view_;
};

/// The UTF-8 text of a header name or value, without a copy where Python already holds it (a str's UTF-8, a
/// bytes' buffer); anything else is converted with str(), kept alive in `holder`.
std::string_view header_view(py::handle value, py::object& holder) {
  if (PyBytes_Check(value.ptr())) {
    return {PyBytes_AS_STRING(value.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(value.ptr()))};
  }
  if (!PyUnicode_Check(value.ptr())) {
    holder = py::str(value);
    value = holder;
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  return {data, static_cast<std::size_t>(size)};
}

std::optional<std::string> header_text(py::handle value) {
  if (value.is_none()) return std::nullopt;
  py::object holder;
  return std::string(header_view(value, holder));
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

/// The svix-* and webhook-* headers met so far; the svix-* names win over the webhook-* names (Standard
/// Webhooks) when both are there.
class HeaderReader {
 public:
  void add(py::handle name, py::handle value) {
    if (name.is_none()) return;
    py::object holder;
    const std::string_view text = header_view(name, holder);
    const bool is_svix = equals_ignoring_case(text.substr(0, 5), "svix-");
    const bool is_standard = !is_svix && equals_ignoring_case(text.substr(0, 8), "webhook-");
    if (!is_svix && !is_standard) return;
    WebhookHeaders& into = is_svix ? svix_ : standard_;
    const std::string_view rest = text.substr(is_svix ? 5 : 8);
    // Only the three values read are converted (a request has many other headers).
    if (equals_ignoring_case(rest, "id")) into.id = header_text(value);
    else if (equals_ignoring_case(rest, "timestamp")) into.timestamp = header_text(value);
    else if (equals_ignoring_case(rest, "signature")) into.signature = header_text(value);
  }
  WebhookHeaders finish() && {
    if (!svix_.id && !svix_.timestamp && !svix_.signature) return std::move(standard_);
    return std::move(svix_);
  }

 private:
  WebhookHeaders svix_;
  WebhookHeaders standard_;
};

/// The three headers from any mapping (dict, Flask/Werkzeug or Starlette headers, http.client's message) or
/// sequence of (name, value) pairs (ASGI's raw headers, bytes included), names in any case.
WebhookHeaders read_headers(py::handle headers) {
  HeaderReader reader;
  if (PyDict_CheckExact(headers.ptr())) {
    // A plain dict (the common case, and what tests and benchmarks pass): walked in place, without building
    // items() and a tuple per header. Its entries are held while read: str() of an odd key could change it.
    Py_ssize_t position = 0;
    PyObject* name = nullptr;
    PyObject* value = nullptr;
    while (PyDict_Next(headers.ptr(), &position, &name, &value)) {
      const auto held_name = py::reinterpret_borrow<py::object>(name);
      const auto held_value = py::reinterpret_borrow<py::object>(value);
      reader.add(held_name, held_value);
    }
    return std::move(reader).finish();
  }
  const py::object pairs = py::hasattr(headers, "items") ? headers.attr("items")() : py::reinterpret_borrow<py::object>(headers);
  for (py::handle pair : pairs) {
    const py::tuple entry = py::reinterpret_borrow<py::object>(pair).cast<py::tuple>();
    if (entry.size() != 2) throw py::type_error("headers must be a mapping or (name, value) pairs");
    reader.add(entry[0], entry[1]);
  }
  return std::move(reader).finish();
}

/// A secret argument: a WebhookSecret, or its text (parsed for this call).
class SecretArgument {
 public:
  explicit SecretArgument(py::handle secret) {
    if (py::isinstance<WebhookSecret>(secret)) {
      secret_ = &secret.cast<const WebhookSecret&>();
    } else if (PyUnicode_Check(secret.ptr()) || PyBytes_Check(secret.ptr())) {
      owned_.emplace(*header_text(secret));
      secret_ = &*owned_;
    } else {
      // The type only: the value could be the secret.
      throw py::type_error("secret must be a str (\"whsec_...\") or a WebhookSecret, not " +
                           std::string(py::str(py::type::handle_of(secret).attr("__name__"))));
    }
  }
  const WebhookSecret& get() const noexcept { return *secret_; }

 private:
  std::optional<WebhookSecret> owned_;
  const WebhookSecret* secret_ = nullptr;
};

std::chrono::seconds tolerance_from_python(py::handle tolerance) {
  double seconds = 0;
  if (const auto microseconds = timedelta_microseconds(tolerance)) {
    seconds = static_cast<double>(*microseconds) / 1e6;  // what total_seconds() gives, without a method call
  } else {
    seconds = py::hasattr(tolerance, "total_seconds") ? tolerance.attr("total_seconds")().cast<double>()
                                                      : tolerance.cast<double>();
  }
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e12) {
    throw py::value_error("tolerance must be a timedelta (or seconds) of 0 or more");
  }
  return std::chrono::seconds(static_cast<std::int64_t>(seconds));
}

std::optional<std::chrono::system_clock::time_point> now_from_python(py::handle now) {
  if (now.is_none()) return std::nullopt;
  return std::chrono::time_point_cast<std::chrono::system_clock::duration>(timestamp_from_python(now, "now"));
}

py::object event_to_python(WebhookEvent&& event) {
  return std::visit([](auto&& alternative) -> py::object { return py::cast(std::move(alternative)); }, std::move(event));
}

std::int64_t unix_seconds(py::handle timestamp) {
  if (PyLong_Check(timestamp.ptr())) return timestamp.cast<std::int64_t>();
  const auto since_epoch = timestamp_from_python(timestamp, "timestamp").time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
}

}  // namespace

void bind_webhooks(py::module_& m) {
  py::class_<WebhookSecret> secret(m, "WebhookSecret",
                                   "An endpoint's signing secret (\"whsec_\" + base64), decoded once. Its repr "
                                   "hides it and it refuses to be pickled.");
  secret.def(py::init([](py::handle text) {
               if (!PyUnicode_Check(text.ptr())) throw py::type_error("a webhook secret is a str (\"whsec_...\")");
               return WebhookSecret(text.cast<std::string>());
             }),
             py::arg("text"));
  secret.def_static("generate", &WebhookSecret::generate, py::arg("bytes") = 24,
                    "A fresh random secret (24 key bytes, as Svix makes them).");
  secret.def("reveal", &WebhookSecret::reveal, "The secret's text, \"whsec_...\": only to hand it to its owner.");
  secret.def("sign", [](const WebhookSecret& self, std::string_view id, py::handle timestamp, py::handle body) {
    const std::int64_t seconds = unix_seconds(timestamp);
    const Body bytes(body);
    return sign_webhook(self, id, seconds, bytes.view());
  }, py::arg("msg_id"), py::arg("timestamp"), py::arg("body"),
     "The svix-signature value (\"v1,<base64>\") of a delivery; timestamp in Unix seconds or a datetime.");
  secret.def("__repr__", [](const WebhookSecret&) { return std::string("WebhookSecret('whsec_<redacted>')"); });
  secret.def("__reduce__", [](const WebhookSecret&) -> py::object {
    throw py::type_error("a WebhookSecret is not pickled: it would write the secret out; pass its text explicitly");
  });
  secret.def("__copy__", [](const WebhookSecret& self) { return WebhookSecret(self); });
  secret.def("__deepcopy__", [](const WebhookSecret& self, py::handle) { return WebhookSecret(self); }, py::arg("memo"));

  m.def("verify_webhook", [](py::handle body, py::handle headers, py::handle secret, py::handle tolerance,
                             py::handle now) {
    const Body bytes(body);
    const WebhookHeaders read = read_headers(headers);
    const SecretArgument key(secret);
    const auto within = tolerance_from_python(tolerance);
    const auto at = now_from_python(now);
    if (bytes.view().size() >= kReleaseGilFromBytes) {
      // The signature check and the reading of the event run unlocked (the body is immutable bytes or this
      // call's own copy); only building the Python event needs the GIL.
      std::optional<WebhookEvent> event;
      {
        py::gil_scoped_release unlocked;
        event.emplace(verify_webhook(key.get(), read, bytes.view(), within, at));
      }
      return event_to_python(std::move(*event));
    }
    return event_to_python(verify_webhook(key.get(), read, bytes.view(), within, at));
  }, py::arg("body"), py::arg("headers"), py::arg("secret"), py::arg("tolerance"), py::arg("now"),
     // Positional, no defaults: trunk_api.webhooks.verify is the documented entry point and passes all five. A
     // call by keyword makes pybind11 build a dict and look every name up in it, a tenth of a 2 KB verify.
     "webhooks.verify's engine: all five arguments, by position.");

  m.def("construct_webhook_event", [](py::handle body) {
    const Body bytes(body);
    return event_to_python(construct_webhook_event(bytes.view()));
  }, py::arg("body"));

  m.def("webhook_headers", [](py::handle headers) {
    const WebhookHeaders read = read_headers(headers);
    return py::make_tuple(read.id, read.timestamp, read.signature);
  }, py::arg("headers"), "(id, timestamp, signature) of a delivery's headers, None for those absent.");
}

}  // namespace trunk::python
