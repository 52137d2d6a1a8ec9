// _core.Sandbox: the in-process C++ sandbox service. The public facade is trunk_api/sandbox.py.
// Starting and stopping release the GIL: the server threads never need it, so a Client in the same process
// (which also releases the GIL) talks to it freely.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_time.hpp"
#include "trunk/sandbox/sandbox.hpp"
#include "trunk/webhook_signature.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

using trunk::sandbox::FaultOptions;
using trunk::sandbox::Sandbox;
using trunk::sandbox::SandboxOptions;

std::int64_t non_negative(ArgCollector& args, py::handle value, const char* field, std::int64_t maximum) {
  const std::int64_t number = args.integer(value, field);
  if (args.ok() && (number < 0 || number > maximum)) {
    throw ValidationError({Violation{field, std::to_string(number), "must be between 0 and " + std::to_string(maximum)}});
  }
  return number;
}

double fraction(ArgCollector& args, py::handle value, const char* field) {
  const double number = args.number(value, field);
  if (args.ok() && (number < 0 || number > 1)) {
    throw ValidationError({Violation{field, describe(value), "must be a fraction between 0 and 1"}});
  }
  return number;
}

double non_negative_real(ArgCollector& args, py::handle value, const char* field) {
  const double number = args.number(value, field);
  if (args.ok() && number < 0) throw ValidationError({Violation{field, describe(value), "must be >= 0"}});
  return number;
}

// Newer sandbox headers add fault kinds and a per-request fault label; detected at compile time so these
// bindings build against either version of the header.
template <typename F>
constexpr bool kHasRateLimitedRate = requires(F& faults) {
  faults.rate_limited_rate;
  faults.rate_limited_retry_after_seconds;
};
template <typename R>
constexpr bool kHasFaultLabel = requires(const R& request) { request.fault; };

template <typename F>
bool apply_rate_limited(F& target, ArgCollector& args, const std::string& key, py::handle value) {
  if constexpr (kHasRateLimitedRate<F>) {
    if (key == "rate_limited_rate") {
      target.rate_limited_rate = fraction(args, value, "rate_limited_rate");
      return true;
    }
    if (key == "rate_limited_retry_after_seconds") {
      target.rate_limited_retry_after_seconds =
          static_cast<int>(non_negative(args, value, "rate_limited_retry_after_seconds", 86'400));
      return true;
    }
  }
  return false;
}

template <typename F>
void rate_limited_to_python(const F& faults, py::dict& result) {
  if constexpr (kHasRateLimitedRate<F>) {
    result["rate_limited_rate"] = faults.rate_limited_rate;
    result["rate_limited_retry_after_seconds"] = faults.rate_limited_retry_after_seconds;
  }
}

template <typename R>
std::string fault_label(const R& request) {
  if constexpr (kHasFaultLabel<R>) return request.fault;
  return "";
}

/// Applies the fault keywords present in `faults` (None = leave as is) onto `target`.
void apply_faults(FaultOptions& target, const py::dict& faults) {
  ArgCollector args;
  constexpr std::int64_t kMaxMillis = 3'600'000;
  for (auto item : faults) {
    const std::string key = py::str(item.first).cast<std::string>();
    const py::handle value = item.second;
    if (value.is_none()) continue;
    if (key == "latency_ms") target.latency = std::chrono::milliseconds(non_negative(args, value, "latency_ms", kMaxMillis));
    else if (key == "jitter_ms") target.jitter = std::chrono::milliseconds(non_negative(args, value, "jitter_ms", kMaxMillis));
    else if (key == "error_rate") target.error_rate = fraction(args, value, "error_rate");
    else if (key == "rate_limit") target.rate_limit_rps = non_negative_real(args, value, "rate_limit");
    else if (key == "drop_rate") target.drop_rate = fraction(args, value, "drop_rate");
    else if (key == "truncate_rate") target.truncate_rate = fraction(args, value, "truncate_rate");
    else if (key == "drop_after_rate") target.drop_after_rate = fraction(args, value, "drop_after_rate");
    else if (key == "webhook_duplicate_rate") target.webhook_duplicate_rate = fraction(args, value, "webhook_duplicate_rate");
    else if (key == "webhook_delay_ms")
      target.webhook_delay = std::chrono::milliseconds(non_negative(args, value, "webhook_delay_ms", kMaxMillis * 24));
    else if (key == "webhook_jitter_ms")
      target.webhook_jitter = std::chrono::milliseconds(non_negative(args, value, "webhook_jitter_ms", kMaxMillis * 24));
    else if (key == "fault_seed")
      target.seed = static_cast<std::uint64_t>(non_negative(args, value, "fault_seed", std::numeric_limits<std::int64_t>::max()));
    else if (!apply_rate_limited(target, args, key, value))
      throw py::type_error("unexpected fault setting '" + key + "'");
  }
  args.throw_if_failed();
}

py::dict faults_to_python(const FaultOptions& faults) {
  py::dict result;
  result["latency_ms"] = faults.latency.count();
  result["jitter_ms"] = faults.jitter.count();
  result["error_rate"] = faults.error_rate;
  result["rate_limit"] = faults.rate_limit_rps;
  result["drop_rate"] = faults.drop_rate;
  result["truncate_rate"] = faults.truncate_rate;
  result["drop_after_rate"] = faults.drop_after_rate;
  result["fault_seed"] = faults.seed;
  result["webhook_duplicate_rate"] = faults.webhook_duplicate_rate;
  result["webhook_delay_ms"] = faults.webhook_delay.count();
  result["webhook_jitter_ms"] = faults.webhook_jitter.count();
  rate_limited_to_python(faults, result);
  return result;
}

py::str lenient_text(const std::string& text) {
  PyObject* decoded = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

std::unique_ptr<Sandbox> make_sandbox(py::handle seed, py::handle tests, py::handle token, py::handle org_url_slug,
                                      py::handle now, py::handle state_file,
                                      py::handle data_file, py::handle threads, py::handle host, py::handle port,
                                      py::handle record_requests, py::handle clock, py::handle flaky_failure_rate,
                                      py::handle broken_pull_request_rate, const py::dict& faults) {
  ArgCollector args;
  SandboxOptions options;
  options.seed = static_cast<std::uint64_t>(non_negative(args, seed, "seed", std::numeric_limits<std::int64_t>::max()));
  options.tests = static_cast<int>(non_negative(args, tests, "tests", 10'000'000));
  if (!token.is_none()) options.token = args.text(token, "token");
  options.org_url_slug = args.text(org_url_slug, "org_url_slug");
  if (!now.is_none()) options.now = args.timestamp(now, "now");
  if (!state_file.is_none()) options.state_file = py::str(state_file).cast<std::string>();  // str or PathLike
  if (!data_file.is_none()) options.data_file = py::str(data_file).cast<std::string>();
  if (!threads.is_none()) options.threads = static_cast<int>(non_negative(args, threads, "threads", 256));
  options.host = args.text(host, "host");
  options.port = static_cast<int>(non_negative(args, port, "port", 65535));
  options.record_requests = args.boolean(record_requests, "record_requests");
  const std::string clock_name = args.text(clock, "clock");
  if (clock_name == "virtual") {
    options.clock = sandbox::ClockMode::virtual_time;
  } else if (clock_name != "real" && args.ok()) {
    throw ValidationError({Violation{"clock", describe(clock), "must be \"real\" or \"virtual\""}});
  }
  if (!flaky_failure_rate.is_none()) options.flaky_failure_rate = fraction(args, flaky_failure_rate, "flaky_failure_rate");
  if (!broken_pull_request_rate.is_none()) {
    options.broken_pull_request_rate = fraction(args, broken_pull_request_rate, "broken_pull_request_rate");
  }
  args.throw_if_failed();
  apply_faults(options.faults, faults);
  return std::make_unique<Sandbox>(std::move(options));
}

py::tuple endpoint_to_python(const trunk::sandbox::WebhookEndpoint& endpoint) {
  return py::make_tuple(endpoint.id, endpoint.url, endpoint.secret, py::tuple(py::cast(endpoint.events)));
}

py::tuple delivery_to_python(const trunk::sandbox::WebhookDelivery& d) {
  return py::make_tuple(d.endpoint_id, d.message_id, d.event_type, d.pr_number == 0 ? py::object(py::none()) : py::cast(d.pr_number),
                        d.attempt, d.status, d.error, d.at, d.latency.count(), d.duplicate, d.next_attempt);
}

}  // namespace

/// The defaults of SandboxOptions as the Python keywords give them: written once, in SandboxOptions
/// (sandbox.hpp); the binding, the facade's signature and the command line read them from here.
py::dict sandbox_defaults() {
  const SandboxOptions defaults{};
  py::dict out;
  out["seed"] = defaults.seed;
  out["tests"] = defaults.tests;
  out["org_url_slug"] = defaults.org_url_slug;
  out["host"] = defaults.host;
  out["port"] = defaults.port;
  out["record_requests"] = defaults.record_requests;
  out["fault_seed"] = defaults.faults.seed;
  out["clock"] = defaults.clock == sandbox::ClockMode::virtual_time ? "virtual" : "real";
  return out;
}

void bind_sandbox(py::module_& m) {
  m.def("sandbox_defaults", &sandbox_defaults, "The default of every Sandbox option (durations in seconds).");
  const py::dict defaults = sandbox_defaults();
  py::class_<Sandbox>(m, "Sandbox", "Private: use trunk_api.Sandbox.")
      .def(py::init([](py::handle seed, py::handle tests, py::handle token, py::handle org_url_slug, py::handle now,
                       py::handle state_file, py::handle data_file,
                       py::handle threads, py::handle host, py::handle port, py::handle record_requests,
                       py::handle clock, py::handle flaky_failure_rate, py::handle broken_pull_request_rate,
                       const py::kwargs& faults) {
             return make_sandbox(seed, tests, token, org_url_slug, now, state_file, data_file,
                                 threads, host, port, record_requests, clock, flaky_failure_rate,
                                 broken_pull_request_rate, faults);
           }),
           py::kw_only(), py::arg("seed") = defaults["seed"], py::arg("tests") = defaults["tests"],
           py::arg("token") = py::none(), py::arg("org_url_slug") = defaults["org_url_slug"],
           py::arg("now") = py::none(),
           py::arg("state_file") = py::none(), py::arg("data_file") = py::none(), py::arg("threads") = py::none(),
           py::arg("host") = defaults["host"], py::arg("port") = defaults["port"],
           py::arg("record_requests") = defaults["record_requests"], py::arg("clock") = defaults["clock"],
           py::arg("flaky_failure_rate") = py::none(), py::arg("broken_pull_request_rate") = py::none())
      .def("start", &Sandbox::start, py::call_guard<py::gil_scoped_release>())
      .def("stop", &Sandbox::stop, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("running", &Sandbox::running)
      .def_property_readonly("url", &Sandbox::url)
      .def_property_readonly("port", &Sandbox::port)
      .def_property_readonly("token", &Sandbox::token)
      .def_property_readonly("org_url_slug", &Sandbox::org_url_slug)
      .def_property_readonly("now", &Sandbox::now)
      .def_property_readonly("clock_now", &Sandbox::clock_now)
      .def("advance", [](Sandbox& self, py::handle seconds) {
        ArgCollector args;
        const std::chrono::milliseconds by = args.seconds(seconds, "seconds", 0, true);
        args.throw_if_failed();
        py::gil_scoped_release release;  // runs the queues up to the new time
        return self.advance(by);
      }, py::arg("seconds"), "Moves the sandbox clock forward and runs the merge queues up to it; the new time.")
      .def_property_readonly("repos", &Sandbox::repos)
      .def("test_ids", [](const Sandbox& self, py::handle repo) {
        ArgCollector args;
        Repo parsed = args.repo(repo);
        args.throw_if_failed();
        return self.test_ids(parsed);
      }, py::arg("repo"))
      .def("faults", [](const Sandbox& self) { return faults_to_python(self.faults()); })
      .def("set_faults", [](Sandbox& self, const py::kwargs& faults) {
        FaultOptions updated = self.faults();
        apply_faults(updated, faults);
        self.set_faults(updated);
      })
      .def("requests", [](const Sandbox& self) {
        py::list result;
        for (const auto& request : self.requests()) {
          py::list headers;
          for (const auto& [name, value] : request.headers) headers.append(py::make_tuple(lenient_text(name), lenient_text(value)));
          result.append(py::make_tuple(lenient_text(request.method), lenient_text(request.path), headers,
                                       py::bytes(request.body), request.status, lenient_text(fault_label(request))));
        }
        return result;
      })
      .def("clear_requests", &Sandbox::clear_requests)
      .def("add_webhook", [](Sandbox& self, py::handle url, py::handle secret, py::handle events) {
        ArgCollector args;
        trunk::sandbox::WebhookEndpointOptions options;
        options.url = args.text(url, "url");
        if (py::isinstance<trunk::WebhookSecret>(secret)) {
          options.secret = secret.cast<const trunk::WebhookSecret&>().reveal();
        } else if (!secret.is_none()) {
          if (!py::isinstance<py::str>(secret)) {
            throw py::type_error("secret must be a str (\"whsec_...\"), a WebhookSecret or None");
          }
          options.secret = secret.cast<std::string>();
        }
        if (!events.is_none()) {
          if (py::isinstance<py::str>(events)) throw py::type_error("events must be a list of event types, not a str");
          for (py::handle type : py::iter(events)) options.events.push_back(args.text(type, "events"));
        }
        args.throw_if_failed();
        trunk::sandbox::WebhookEndpoint endpoint = [&] {
          py::gil_scoped_release release;
          return self.add_webhook(options);
        }();
        return endpoint_to_python(endpoint);
      }, py::arg("url"), py::kw_only(), py::arg("secret") = py::none(), py::arg("events") = py::none())
      .def("set_test_status", [](Sandbox& self, py::handle test_id, py::handle status) {
        ArgCollector args;
        const std::string id = args.text(test_id, "test_id");
        const std::string value = args.text(status, "status");
        args.throw_if_failed();
        py::gil_scoped_release release;  // waits until the event was sent to the endpoints
        return self.set_test_status(id, value);
      }, py::arg("test_id"), py::arg("status"))
      .def("remove_webhook", &Sandbox::remove_webhook, py::arg("id"), py::call_guard<py::gil_scoped_release>())
      .def("webhooks", [](const Sandbox& self) {
        py::list out;
        for (const auto& endpoint : self.webhooks()) out.append(endpoint_to_python(endpoint));
        return out;
      })
      .def("webhook_deliveries", [](const Sandbox& self) {
        const auto deliveries = [&] {
          py::gil_scoped_release release;
          return self.webhook_deliveries();
        }();
        py::list out;
        for (const auto& delivery : deliveries) out.append(delivery_to_python(delivery));
        return out;
      })
      .def("save_data", &Sandbox::save_data, py::arg("path"), py::call_guard<py::gil_scoped_release>());
}

}  // namespace trunk::python
