// _core.sandbox's types for staging exact situations in a merge queue: the run-duration distributions,
// QueueControls and PullRequestScript (trunk/sandbox/run_duration.hpp, queue_controls.hpp,
// pull_request_script.hpp). Bound from the C++ structs, so their defaults are written once, there; the checks are
// the Sandbox's (a value out of range is refused when it is set, naming field, value and rule).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>

#include "bindings.hpp"
#include "trunk/sandbox/pull_request_script.hpp"
#include "trunk/sandbox/queue_controls.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

using trunk::sandbox::EmpiricalRunDuration;
using trunk::sandbox::FixedRunDuration;
using trunk::sandbox::LognormalRunDuration;
using trunk::sandbox::PullRequestScript;
using trunk::sandbox::QueueControls;

std::string number_repr(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string optional_repr(const std::optional<double>& value) { return value ? number_repr(*value) : "None"; }

}  // namespace

std::string run_duration_repr(const trunk::sandbox::RunDuration& duration) {
  if (const auto* fixed = std::get_if<FixedRunDuration>(&duration)) {
    return "FixedRunDuration(minutes=" + number_repr(fixed->minutes) + ")";
  }
  if (const auto* lognormal = std::get_if<LognormalRunDuration>(&duration)) {
    return "LognormalRunDuration(median_minutes=" + number_repr(lognormal->median_minutes) +
           ", sigma=" + number_repr(lognormal->sigma) + ")";
  }
  std::string list;
  for (const double m : std::get<EmpiricalRunDuration>(duration).minutes) list += (list.empty() ? "" : ", ") + number_repr(m);
  return "EmpiricalRunDuration(minutes=[" + list + "])";
}

void bind_queue_controls(py::module_& m) {
  py::class_<FixedRunDuration>(m, "FixedRunDuration", "Every merge queue test run takes exactly `minutes`.")
      .def(py::init([](double minutes) { return FixedRunDuration{minutes}; }), py::arg("minutes"))
      .def_readonly("minutes", &FixedRunDuration::minutes)
      .def("__eq__", [](const FixedRunDuration& a, const FixedRunDuration& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const FixedRunDuration& d) { return run_duration_repr(d); });
  const LognormalRunDuration lognormal_default;
  py::class_<LognormalRunDuration>(
      m, "LognormalRunDuration",
      "median_minutes * exp(sigma * z), z standard normal, at least 1 minute: the sandbox's default distribution.")
      .def(py::init([](double median_minutes, double sigma) { return LognormalRunDuration{median_minutes, sigma}; }),
           py::arg("median_minutes") = lognormal_default.median_minutes, py::arg("sigma") = lognormal_default.sigma)
      .def_readonly("median_minutes", &LognormalRunDuration::median_minutes)
      .def_readonly("sigma", &LognormalRunDuration::sigma)
      .def("__eq__", [](const LognormalRunDuration& a, const LognormalRunDuration& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const LognormalRunDuration& d) { return run_duration_repr(d); });
  py::class_<EmpiricalRunDuration>(m, "EmpiricalRunDuration",
                                   "One of `minutes`, uniformly, by the run's own die (a seed repeats them).")
      .def(py::init([](std::vector<double> minutes) { return EmpiricalRunDuration{std::move(minutes)}; }),
           py::arg("minutes"))
      .def_property_readonly("minutes", [](const EmpiricalRunDuration& d) { return py::tuple(py::cast(d.minutes)); })
      .def("__eq__", [](const EmpiricalRunDuration& a, const EmpiricalRunDuration& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const EmpiricalRunDuration& d) { return run_duration_repr(d); });

  py::class_<QueueControls>(m, "QueueControls",
                            "One merge queue's controls (Sandbox.queue_controls); None: the sandbox's value.")
      .def_readonly("run_duration", &QueueControls::run_duration)
      .def_readonly("flaky_run_rate", &QueueControls::flaky_run_rate)
      .def_readonly("broken_pull_request_rate", &QueueControls::broken_pull_request_rate)
      .def("__eq__", [](const QueueControls& a, const QueueControls& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const QueueControls& c) {
        return "QueueControls(run_duration=" + (c.run_duration ? run_duration_repr(*c.run_duration) : "None") +
               ", flaky_run_rate=" + optional_repr(c.flaky_run_rate) +
               ", broken_pull_request_rate=" + optional_repr(c.broken_pull_request_rate) + ")";
      });

  py::class_<PullRequestScript>(m, "PullRequestScript",
                                "What is staged for one pull request (Sandbox.pull_request_scripts).")
      .def_readonly("broken", &PullRequestScript::broken)
      .def_property_readonly("next_run", [](const PullRequestScript& s) -> std::optional<std::string> {
        if (!s.next_run) return std::nullopt;
        return std::string(trunk::sandbox::outcome_name(*s.next_run));
      })
      .def_readonly("next_run_minutes", &PullRequestScript::next_run_minutes)
      .def("__eq__", [](const PullRequestScript& a, const PullRequestScript& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const PullRequestScript& s) {
        const std::string broken = s.broken ? (*s.broken ? "True" : "False") : "None";
        const std::string next = s.next_run ? "'" + std::string(trunk::sandbox::outcome_name(*s.next_run)) + "'" : "None";
        return "PullRequestScript(broken=" + broken + ", next_run=" + next +
               ", next_run_minutes=" + optional_repr(s.next_run_minutes) + ")";
      });
}

}  // namespace trunk::python
