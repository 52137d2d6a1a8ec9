// _core.Sandbox: the in-process C++ sandbox service. The public facade is trunk_api/sandbox.py.
// Starting and stopping release the GIL: the server threads never need it, so a Client in the same process
// (which also releases the GIL) talks to it freely.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_run_duration.hpp"
#include "convert_time.hpp"
#include "option_keywords.hpp"
#include "trunk/sandbox/sandbox.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/webhook_signature.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

using trunk::sandbox::FaultOptions;
using trunk::sandbox::Sandbox;
using trunk::sandbox::SandboxOptions;

// Newer sandbox headers add a per-request fault label; detected at compile time so these bindings build against
// either version of the header.
template <typename R>
constexpr bool kHasFaultLabel = requires(const R& request) { request.fault; };

template <typename R>
std::string fault_label(const R& request) {
  if constexpr (kHasFaultLabel<R>) return request.fault;
  return "";
}

py::str lenient_text(const std::string& text) {
  PyObject* decoded = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

/// A Sandbox from the keywords of SandboxOptions' rows (sandbox_options.hpp; None = the default), every problem a
/// ValidationError naming the keyword, an unknown keyword the TypeError of a misspelt one.
std::unique_ptr<Sandbox> make_sandbox(const py::kwargs& keywords) {
  ArgCollector args;
  SandboxOptions options;
  py::dict remaining(keywords);  // a copy: the keywords are taken off it as they are read
  read_options(args, remaining, options, /*none_keeps=*/true);
  refuse_unknown_keywords(remaining, "Sandbox");
  args.throw_if_failed();
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

/// The defaults of SandboxOptions as the Python keywords give them, from its rows (sandbox_options.hpp); None for the
/// ones worked out where it runs (threads).
py::dict sandbox_defaults() {
  py::list rows;
  describe_options<SandboxOptions>(rows);
  py::dict out;
  for (py::handle row : rows) out[row["name"]] = row["default"];
  return out;
}

bool describe_sandbox_options(const std::string& of, py::list& rows) {
  if (of == "sandbox") {
    describe_options<SandboxOptions>(rows);
  } else if (of == "faults") {
    describe_options<FaultOptions>(rows);
  } else {
    return false;
  }
  return true;
}

void bind_sandbox(py::module_& m) {
  m.def("sandbox_defaults", &sandbox_defaults,
        "The default of every Sandbox option (the rows of SandboxOptions; durations in milliseconds).");
  m.def("url_without_credentials", [](std::string_view url) { return trunk::sandbox::url_without_credentials(url); },
        py::arg("url"), "The URL with its credentials, if any, shown as *** (https://***@host/hook).");
  py::class_<Sandbox>(m, "Sandbox", "Private: use trunk_api.Sandbox.")
      .def(py::init(&make_sandbox),
           "Every option of SandboxOptions (option_rows('sandbox'), the faults' included) as a keyword.")
      .def("start", &Sandbox::start, py::call_guard<py::gil_scoped_release>())
      .def("stop", &Sandbox::stop, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("running", &Sandbox::running)
      .def_property_readonly("url", &Sandbox::url)
      .def_property_readonly("port", &Sandbox::port)
      .def_property_readonly("token", &Sandbox::token)
      .def_property_readonly("api_key", &Sandbox::api_key)
      .def("create_trunk_token", &Sandbox::create_trunk_token,
           "A short-lived token as Trunk's own login issues (x-trunk-token): reads every v2 resource, holds no "
           "permission.")
      .def("create_api_key", [](Sandbox& self, const std::vector<std::string>& names) {
        // Names as the enumerators spell them; every unknown one named, with the list of the known ones.
        std::vector<trunk::sandbox::Permission> permissions;
        std::vector<trunk::Violation> violations;
        std::string known;
        for (const std::string_view name : trunk::sandbox::kPermissionNames) known += (known.empty() ? "" : ", ") + std::string(name);
        for (std::size_t i = 0; i < names.size(); ++i) {
          if (const auto p = trunk::sandbox::permission_from_name(names[i])) {
            permissions.push_back(*p);
          } else {
            violations.push_back({"permissions[" + std::to_string(i) + "]", names[i], "must be one of " + known});
          }
        }
        if (!violations.empty()) throw trunk::ValidationError(std::move(violations));
        return self.create_api_key(permissions);
      }, py::arg("permissions"), "A new v2 API key holding only these permissions (names of permission_names()).")
      .def_static("permission_names", [] {
        std::vector<std::string> names(trunk::sandbox::kPermissionNames.begin(), trunk::sandbox::kPermissionNames.end());
        return names;
      }, "Every permission a v2 API key may hold, as create_api_key takes them.")
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
      .def("faults", [](const Sandbox& self) {
        py::dict out;
        options_to_python(out, self.faults());
        return out;
      })
      .def("set_faults", [](Sandbox& self, const py::kwargs& keywords) {
        // The rows of FaultOptions; None leaves a setting as it is.
        ArgCollector args;
        FaultOptions updated = self.faults();
        py::dict remaining(keywords);
        read_options(args, remaining, updated, /*none_keeps=*/true);
        refuse_unknown_keywords(remaining, "set_faults");
        args.throw_if_failed();
        self.set_faults(updated);
      })
      .def("requests", [](const Sandbox& self) {
        py::list result;
        for (const auto& request : self.requests()) {
          py::list headers;
          for (const auto& [name, value] : request.headers) headers.append(py::make_tuple(lenient_text(name), lenient_text(value)));
          result.append(py::make_tuple(lenient_text(request.method), lenient_text(request.path), headers,
                                       py::bytes(request.body), request.status, lenient_text(fault_label(request)),
                                       lenient_text(request.query)));
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
          options.events.emplace();
          for (py::handle type : py::iter(events)) options.events->push_back(args.text(type, "events"));
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
      .def("set_quarantine", [](Sandbox& self, py::handle test_id, py::handle mode, py::handle reason) {
        ArgCollector args;
        const std::string id = args.text(test_id, "test_id");
        const auto parsed = args.enumeration<trunk::QuarantineOverrideMode>(mode, "mode");
        std::optional<std::string> why;
        if (!reason.is_none()) why = args.text(reason, "reason");
        args.throw_if_failed();
        py::gil_scoped_release release;  // waits until the event was sent to the endpoints
        return self.set_quarantine(id, trunk::to_wire(parsed), why);
      }, py::arg("test_id"), py::arg("mode"), py::kw_only(), py::arg("reason") = py::none())
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
      .def("queue_controls", [](const Sandbox& self, py::handle repo, py::handle branch) {
        ArgCollector args;
        const Repo parsed = args.repo(repo);
        const std::string target = args.text(branch, "branch");
        args.throw_if_failed();
        py::gil_scoped_release release;  // waits for the queues' lock
        return self.queue_controls(parsed, target);
      }, py::arg("repo"), py::arg("branch"))
      .def("set_queue_controls", [](Sandbox& self, py::handle repo, py::handle branch, py::handle run_duration,
                                    py::handle flaky_run_rate, py::handle broken_pull_request_rate,
                                    py::handle arrivals) {
        ArgCollector args;
        const Repo parsed = args.repo(repo);
        const std::string target = args.text(branch, "branch");
        trunk::sandbox::QueueControls controls;
        controls.run_duration = run_duration_from_python(run_duration, "run_duration");
        if (!flaky_run_rate.is_none()) controls.flaky_run_rate = args.number(flaky_run_rate, "flaky_run_rate");
        if (!broken_pull_request_rate.is_none()) {
          controls.broken_pull_request_rate = args.number(broken_pull_request_rate, "broken_pull_request_rate");
        }
        if (py::isinstance<trunk::sandbox::Arrivals>(arrivals)) {
          controls.arrivals = arrivals.cast<trunk::sandbox::Arrivals>();
        } else if (!arrivals.is_none()) {
          throw py::type_error("arrivals must be an Arrivals (Arrivals.poisson, .hourly, .scheduled) or None");
        }
        args.throw_if_failed();
        py::gil_scoped_release release;
        self.set_queue_controls(parsed, target, controls);
      }, py::arg("repo"), py::arg("branch"), py::kw_only(), py::arg("run_duration") = py::none(),
         py::arg("flaky_run_rate") = py::none(), py::arg("broken_pull_request_rate") = py::none(),
         py::arg("arrivals") = py::none())
      .def("script_pull_request", [](Sandbox& self, py::handle repo, py::handle branch, py::handle number,
                                     py::handle broken, py::handle next_run, py::handle next_run_minutes) {
        ArgCollector args;
        const Repo parsed = args.repo(repo);
        const std::string target = args.text(branch, "branch");
        const std::int64_t pr = args.integer(number, "number");
        trunk::sandbox::PullRequestScript script;
        if (!broken.is_none()) script.broken = args.boolean(broken, "broken");
        const std::string outcome = next_run.is_none() ? std::string() : args.text(next_run, "next_run");
        if (!next_run_minutes.is_none()) script.next_run_minutes = args.number(next_run_minutes, "next_run_minutes");
        args.throw_if_failed();
        if (!next_run.is_none()) {
          script.next_run = trunk::sandbox::outcome_from_name(outcome);
          if (!script.next_run) throw trunk::ValidationError({{"next_run", "'" + outcome + "'", "must be one of fail, pass, None"}});
        }
        py::gil_scoped_release release;
        self.script_pull_request(parsed, target, pr, script);
      }, py::arg("repo"), py::arg("branch"), py::arg("number"), py::kw_only(), py::arg("broken") = py::none(),
         py::arg("next_run") = py::none(), py::arg("next_run_minutes") = py::none())
      .def("pull_request_scripts", [](const Sandbox& self, py::handle repo, py::handle branch) {
        ArgCollector args;
        const Repo parsed = args.repo(repo);
        const std::string target = args.text(branch, "branch");
        args.throw_if_failed();
        py::gil_scoped_release release;
        return self.pull_request_scripts(parsed, target);
      }, py::arg("repo"), py::arg("branch"))
      .def("save_data", &Sandbox::save_data, py::arg("path"), py::call_guard<py::gil_scoped_release>());
}

}  // namespace trunk::python
