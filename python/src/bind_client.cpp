// _core.Client: every operation of operations.hpp, with Python arguments converted in C++ (build_request.hpp)
// and the GIL released around every network call. The public facade (trunk_api/client.py) wraps it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "build_request.hpp"
#include "convert_args.hpp"
#include "interrupt.hpp"
#include "py_client.hpp"
#include "listing_iterator.hpp"
#include "trunk/client.hpp"
#include "trunk/validation.hpp"

namespace py = pybind11;

namespace trunk::python {

std::optional<std::int64_t> convert_max_results(py::handle max_results) {
  if (max_results.is_none()) return std::nullopt;
  ArgCollector args;
  const std::int64_t limit = args.integer(max_results, "max_results");
  args.throw_if_failed();
  if (limit < 0) throw ValidationError({Violation{"max_results", std::to_string(limit), "must be >= 0 or None"}});
  return limit;
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
    const std::string iter_name = "iter_" + name.substr(name.find('_') + 1);  // list_failing_tests -> iter_failing_tests
    cls.def(iter_name.c_str(), [iter_name](PyClient& self, const py::args& args, py::kwargs kwargs) {
      std::optional<std::int64_t> limit;
      if (kwargs.contains("max_results")) {
        limit = convert_max_results(kwargs["max_results"]);
        PyDict_DelItemString(kwargs.ptr(), "max_results");
      }
      py::object on_page = py::none();  // the facade's progress reporter (listing_iterator.hpp)
      if (kwargs.contains("on_page")) {
        on_page = kwargs["on_page"];
        PyDict_DelItemString(kwargs.ptr(), "on_page");
      }
      Request request = build_request<Request>(iter_name, args, kwargs, /*allow_page_token=*/false);
      std::string query = iter_name + "(" + call_arguments(request, /*allow_page_position=*/false) +
                          ", max_results=" + (limit ? std::to_string(*limit) : std::string("None")) + ")";
      auto pager = self.client->template pager<Op>(std::move(request));
      if (limit) pager.limit_prefetch(static_cast<std::size_t>(*limit));  // no page past max_results
      auto iterator = std::make_shared<ListingIterator<typename Op::Response>>(self.client, std::move(pager), limit,
                                                                               std::move(query));
      if (!on_page.is_none()) iterator->set_on_page(std::move(on_page));
      return iterator;
    }, ("Every item of every page of " + name + ", fetched lazily; max_results stops early.").c_str());
  }
}

}  // namespace

ClientOptions build_options(const py::object& token, const py::object& base_url, py::handle timeout,
                            py::handle max_retries, const py::object& user_agent, py::handle connect_timeout,
                            py::handle overall_deadline, py::handle verify_tls, const py::object& ca_bundle,
                            py::handle allow_insecure_http, py::handle max_requests_per_second,
                            const py::object& log, py::handle prefetch_pages) {
  ArgCollector args;
  ClientOptions options;
  // The token is converted without ever being rendered: a wrong type is reported by type name only.
  const char* token_data = nullptr;
  Py_ssize_t token_size = 0;
  if (!token.is_none()) {
    if (!PyUnicode_Check(token.ptr())) {
      throw ValidationError({Violation{"token", "<value of type " +
                                                    py::str(py::type::handle_of(token).attr("__name__")).cast<std::string>() + ">",
                                       "must be a string"}});
    }
    // A view of the str's own UTF-8 (the caller's object), not a copy.
    token_data = PyUnicode_AsUTF8AndSize(token.ptr(), &token_size);
    if (token_data == nullptr) {
      PyErr_Clear();
      throw ValidationError({Violation{"token", "<redacted>", "must be valid UTF-8 text"}});
    }
  }
  if (!base_url.is_none()) options.base_url = args.text(base_url, "base_url");
  options.timeout = args.seconds(timeout, "timeout", 0, false);
  options.connect_timeout = args.seconds(connect_timeout, "connect_timeout", 0, false);
  options.retry.overall_deadline = args.seconds(overall_deadline, "overall_deadline", 0, true);
  const std::int64_t retries = args.integer(max_retries, "max_retries");
  if (args.ok() && (retries < 0 || retries > 100)) {
    throw ValidationError({Violation{"max_retries", std::to_string(retries), "must be between 0 and 100"}});
  }
  options.retry.max_retries = static_cast<int>(retries);
  if (!user_agent.is_none()) options.user_agent_suffix = args.text(user_agent, "user_agent");
  options.verify_tls = args.boolean(verify_tls, "verify_tls");
  if (!ca_bundle.is_none()) options.ca_bundle = args.text(ca_bundle, "ca_bundle");
  options.allow_insecure_http = args.boolean(allow_insecure_http, "allow_insecure_http");
  options.max_requests_per_second = args.number(max_requests_per_second, "max_requests_per_second");
  if (args.ok() && options.max_requests_per_second < 0) {
    throw ValidationError({Violation{"max_requests_per_second", describe(max_requests_per_second),
                                     "must be >= 0 (0 = no limit)"}});
  }
  options.prefetch_pages = args.boolean(prefetch_pages, "prefetch_pages");
  args.throw_if_failed();
  if (!log.is_none()) options.log = python_log_callback(log);
  options.interrupt_check = &python_interrupt_check;
  // Last, once nothing can throw any more: the one copy is built in place, and the Client wipes it after
  // moving it into its secret memory (see make_client).
  if (token_data != nullptr) options.token.emplace(token_data, static_cast<std::size_t>(token_size));
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

/// The defaults of ClientOptions as the Python keywords give them (seconds, not milliseconds): the one place
/// they are written is ClientOptions (client_options.hpp, retry.hpp); the binding, the facade's signature and
/// the command line read them from here.
py::dict client_defaults() {
  const ClientOptions defaults{};
  auto seconds = [](std::chrono::milliseconds value) { return static_cast<double>(value.count()) / 1000.0; };
  py::dict out;
  out["timeout"] = seconds(defaults.timeout);
  out["connect_timeout"] = seconds(defaults.connect_timeout);
  out["max_retries"] = defaults.retry.max_retries;
  out["overall_deadline"] = seconds(defaults.retry.overall_deadline);
  out["verify_tls"] = defaults.verify_tls;
  out["allow_insecure_http"] = defaults.allow_insecure_http;
  out["max_requests_per_second"] = defaults.max_requests_per_second;
  out["prefetch_pages"] = defaults.prefetch_pages;
  return out;
}

void bind_client(py::module_& m) {
  m.def("client_defaults", &client_defaults, "The default of every Client option (times in seconds).");
  const py::dict defaults = client_defaults();
  py::class_<PyClient> cls(m, "Client", "Private: use trunk_api.Client.");
  cls
      .def(py::init([](const py::object& token, const py::object& base_url, py::handle timeout, py::handle max_retries,
                       const py::object& user_agent, py::handle connect_timeout, py::handle overall_deadline,
                       py::handle verify_tls, const py::object& ca_bundle, py::handle allow_insecure_http,
                       py::handle max_requests_per_second, const py::object& log, py::handle prefetch_pages) {
             ClientOptions options =
                 build_options(token, base_url, timeout, max_retries, user_agent, connect_timeout, overall_deadline,
                               verify_tls, ca_bundle, allow_insecure_http, max_requests_per_second, log,
                               prefetch_pages);
             return PyClient{make_client(std::move(options))};
           }),
           py::kw_only(), py::arg("token") = py::none(), py::arg("base_url") = py::none(),
           py::arg("timeout") = defaults["timeout"], py::arg("max_retries") = defaults["max_retries"],
           py::arg("user_agent") = py::none(), py::arg("connect_timeout") = defaults["connect_timeout"],
           py::arg("overall_deadline") = defaults["overall_deadline"], py::arg("verify_tls") = defaults["verify_tls"],
           py::arg("ca_bundle") = py::none(), py::arg("allow_insecure_http") = defaults["allow_insecure_http"],
           py::arg("max_requests_per_second") = defaults["max_requests_per_second"], py::arg("log") = py::none(),
           py::arg("prefetch_pages") = defaults["prefetch_pages"])
      .def_property_readonly("base_url", [](const PyClient& self) { return self.client->base_url(); });
#define TRUNK_BIND_OPERATION_(Type, name, ...) \
  bind_operation<op::Type>(cls, [](Client& client, const op::Type::Request& request) { return client.name(request); });
  TRUNK_OPERATIONS(TRUNK_BIND_OPERATION_)
#undef TRUNK_BIND_OPERATION_
}

}  // namespace trunk::python
