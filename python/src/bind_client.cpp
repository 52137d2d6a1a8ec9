// _core.Client: every operation of operations.hpp, with Python arguments converted in C++ (build_request.hpp)
// and the GIL released around every network call. The public facade (trunk_api/client.py) wraps it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "bindings.hpp"
#include "build_request.hpp"
#include "convert_args.hpp"
#include "interrupt.hpp"
#include "py_client.hpp"
#include "listing_iterator.hpp"
#include "option_keywords.hpp"
#include "trunk/client.hpp"
#include "trunk/http_stack.hpp"
#include "trunk/listings.hpp"
#include "trunk/validation.hpp"

namespace py = pybind11;

namespace trunk::python {

ListingKeywords take_listing_keywords(py::dict& kwargs) {
  ListingKeywords keywords;
  if (kwargs.contains("max_results")) {
    const py::object given = kwargs["max_results"];
    PyDict_DelItemString(kwargs.ptr(), "max_results");
    if (!given.is_none()) {
      ArgCollector args;
      const std::int64_t limit = args.integer(given, "max_results");
      args.throw_if_failed();
      if (limit < 0) throw ValidationError({Violation{"max_results", std::to_string(limit), "must be >= 0 or None"}});
      keywords.max_results = static_cast<std::size_t>(limit);
    }
  }
  if (kwargs.contains("on_page")) {
    keywords.on_page = kwargs["on_page"];
    PyDict_DelItemString(kwargs.ptr(), "on_page");
  }
  return keywords;
}

namespace {

/// Binds operation Op as _core.Client.<name>(*args, **kwargs) (build_request.hpp says how the arguments map
/// onto the request), and, for a listing, iter_<noun> returning the lazy iterator of every page. The GIL is
/// released for the network call; the answer is the declared answer model.
template <typename Op, typename Method>
void bind_operation(py::class_<PyClient>& cls, Method method) {
  using Request = typename Op::Request;
  const std::string name(Op::name);
  cls.def(name.c_str(), [method](PyClient& self, const py::args& args, const py::kwargs& kwargs) {
    const Request request = build_request<Request>(Op::name, args, kwargs);
    return call_without_gil([&] { return method(*self.client, request); });
  }, std::string(Op::doc).c_str());
  if constexpr (requires { PageTraits<typename Op::Response>::style; }) {
    const std::string iter_name = iterator_method_name(Op::name);
    cls.def(iter_name.c_str(), [iter_name](PyClient& self, const py::args& args, py::kwargs kwargs) {
      ListingKeywords listing = take_listing_keywords(kwargs);
      Request request = build_request<Request>(iter_name, args, kwargs, /*allow_page_token=*/false);
      std::string query = iter_name + "(" + call_arguments(request, /*allow_page_position=*/false) +
                          ", max_results=" +
                          (listing.max_results ? std::to_string(*listing.max_results) : std::string("None")) + ")";
      auto pager = self.client->template pager<Op>(std::move(request));
      apply_listing_keywords(pager, std::move(listing));
      return std::make_shared<ListingIterator<typename Op::Response>>(self.client, std::move(pager), std::move(query));
    }, ("Every item of every page of " + name + ", fetched lazily; max_results stops early.").c_str());
  }
}

}  // namespace

namespace {

/// A credential's one conversion (the secret rows: token, api_key, trunk_token): never rendered (a wrong type is reported by
/// type name only) and never copied on the way: a view of the str's own UTF-8 (the caller's object).
std::string_view secret_view(const py::handle value, const std::string& name) {
  if (value.is_none()) return {};
  if (!PyUnicode_Check(value.ptr())) {
    throw ValidationError({Violation{name, "<value of type " +
                                               py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>() + ">",
                                     "must be a string"}});
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
  if (data == nullptr) {
    PyErr_Clear();
    throw ValidationError({Violation{name, "<redacted>", "must be valid UTF-8 text"}});
  }
  return {data, static_cast<std::size_t>(size)};
}

/// The keyword `name` taken off `kwargs` (None when absent).
py::object take_keyword(py::dict& kwargs, const char* name) {
  if (!kwargs.contains(name)) return py::none();
  py::object value = kwargs[name];
  PyDict_DelItemString(kwargs.ptr(), name);
  return value;
}

}  // namespace

ClientOptions build_options(py::dict kwargs, std::string_view callable) {
  ArgCollector args;
  ClientOptions options;
  const py::object token = take_keyword(kwargs, "token");
  const py::object api_key = take_keyword(kwargs, "api_key");
  const py::object trunk_token = take_keyword(kwargs, "trunk_token");
  const std::string_view token_text = secret_view(token, "token");
  const std::string_view api_key_text = secret_view(api_key, "api_key");
  const std::string_view trunk_token_text = secret_view(trunk_token, "trunk_token");
  read_options(args, kwargs, options);  // every other row (option_rows.hpp), checked by its rule
  py::object log = py::none();
  if (kwargs.contains("log")) {  // a callable, not a row
    log = kwargs["log"];
    PyDict_DelItemString(kwargs.ptr(), "log");
  }
  refuse_unknown_keywords(kwargs, callable);
  args.throw_if_failed();
  if (!log.is_none()) options.log = python_log_callback(log);
  options.interrupt_check = &python_interrupt_check;
  // Last, once nothing can throw any more: the one copy is built in place, in secret memory (a trunk::Secret,
  // which wipes itself).
  if (!token.is_none()) options.token.emplace(token_text.data(), token_text.size());
  if (!api_key.is_none()) options.api_key.emplace(api_key_text.data(), api_key_text.size());
  if (!trunk_token.is_none()) options.trunk_token.emplace(trunk_token_text.data(), trunk_token_text.size());
  return options;
}

namespace {

/// Deletes a Client with the GIL released: its engine thread (which reads listings ahead) may be waiting for the
/// GIL to log, and the Client's destructor joins that thread. The last reference may be the Python object's or
/// an iterator's, so the deleter, not one of them, sees to it.
void delete_client(Client* client) noexcept {
  if (PyGILState_Check() != 0 && !interpreter_finalizing()) {
    py::gil_scoped_release release;
    delete client;
  } else {
    delete client;
  }
}

/// A Client from `options` (its token a Secret, which wipes itself whatever happens).
std::shared_ptr<Client> make_client(ClientOptions&& options) {
  return std::shared_ptr<Client>(new Client(std::move(options)), delete_client);
}

}  // namespace

/// The defaults of the Client options as the Python keywords give them (seconds, not milliseconds), from the
/// rows of ClientOptions (client_options.hpp, retry.hpp).
py::dict client_defaults() {
  py::list rows;
  describe_options<ClientOptions>(rows);
  py::dict out;
  for (py::handle row : rows) {
    if (!row["secret"].cast<bool>()) out[row["name"]] = row["default"];
  }
  return out;
}

bool describe_client_options(const std::string& of, py::list& rows) {
  if (of == "client") {
    describe_options<ClientOptions>(rows);
  } else if (of == "bulk") {
    describe_options<BulkOptions>(rows);
  } else {
    return false;
  }
  return true;
}

void bind_client(py::module_& m) {
  m.def(
      "http_stack",
      [] {
        const trunk::HttpStack stack = trunk::http_stack();
        py::dict out;
        out["libcurl"] = stack.libcurl;
        out["tls"] = stack.tls;
        out["zlib"] = stack.zlib;
        out["protocols"] = stack.protocols;
        out["features"] = stack.features;
        out["ca_certificates"] = stack.ca_certificates;
        return out;
      },
      "What this build speaks HTTP with (trunk/http_stack.hpp): libcurl's version, its TLS library, zlib, "
      "protocols and features, and where a client without ca_bundle takes its CA certificates from.");
  m.def("client_defaults", &client_defaults, "The default of every Client option (times in seconds).");
  py::class_<PyClient> cls(m, "Client", "Private: use trunk_api.Client.");
  cls
      .def(py::init([](const py::kwargs& kwargs) {
             // A copy: the keywords are taken off it as they are read, and what is left is unknown.
             return PyClient{make_client(build_options(py::dict(kwargs), "Client"))};
           }),
           "Every option of ClientOptions (option_rows('client')) as a keyword, and log (a logging callable).")
      .def_property_readonly("base_url", [](const PyClient& self) { return self.client->base_url(); });
#define TRUNK_BIND_OPERATION_(Type, name, ...) \
  bind_operation<op::Type>(cls, [](Client& client, const op::Type::Request& request) { return client.name(request); });
  TRUNK_OPERATIONS(TRUNK_BIND_OPERATION_)
#undef TRUNK_BIND_OPERATION_
}

}  // namespace trunk::python
