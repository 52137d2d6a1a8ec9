// _core.sandbox's types for staging exact situations in a merge queue: the run-duration distributions,
// the arrivals, QueueControls and PullRequestScript (trunk/sandbox/run_duration.hpp, arrivals.hpp,
// queue_controls.hpp, pull_request_script.hpp). Bound from the C++ structs, so their defaults are written once, there; the checks are
// the Sandbox's (a value out of range is refused when it is set, naming field, value and rule).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_run_duration.hpp"
#include "convert_time.hpp"
#include "trunk/sandbox/pull_request_script.hpp"
#include "trunk/sandbox/queue_controls.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

using trunk::sandbox::Arrivals;
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

/// Arrivals with `process`, the targets of a {name: probability} mapping (None: every arrival impacts ALL), the
/// priorities of a {value: probability} mapping (None: the queue's default) and the first number; a wrong type
/// names its field. The ranges are the sandbox's checks, made when they are set.
Arrivals arrivals_of(trunk::sandbox::ArrivalProcess process, py::handle targets, py::handle priorities,
                     py::handle first_number, trunk::python::ArgCollector& args) {
  Arrivals arrivals{std::move(process), {}, 1, {}};
  if (!targets.is_none()) {
    if (!py::isinstance<py::dict>(targets)) {
      throw trunk::ValidationError({{"targets", py::str(py::type::of(targets).attr("__name__")).cast<std::string>(),
                                     "must be a dict of target name to probability"}});
    }
    for (const auto& [name, probability] : targets.cast<py::dict>()) {
      const std::string target = args.text(name, "targets");
      arrivals.targets.push_back({target, args.number(probability, "targets[" + target + "]")});
    }
  }
  if (!priorities.is_none()) {
    if (!py::isinstance<py::dict>(priorities)) {
      throw trunk::ValidationError({{"priorities", py::str(py::type::of(priorities).attr("__name__")).cast<std::string>(),
                                     "must be a dict of priority value to probability"}});
    }
    for (const auto& [value, probability] : priorities.cast<py::dict>()) {
      const std::int64_t priority = args.integer(value, "priorities");
      arrivals.priorities.push_back({priority, args.number(probability, "priorities[" + std::to_string(priority) + "]")});
    }
  }
  arrivals.first_number = args.integer(first_number, "first_number");
  args.throw_if_failed();
  return arrivals;
}

std::string arrivals_repr(const Arrivals& arrivals) {
  std::string out;
  if (const auto* poisson = std::get_if<trunk::sandbox::PoissonArrivals>(&arrivals.process)) {
    out = "Arrivals.poisson(" + number_repr(poisson->per_hour);
  } else if (const auto* hourly = std::get_if<trunk::sandbox::HourlyArrivals>(&arrivals.process)) {
    out = "Arrivals.hourly([" + std::to_string(hourly->per_hour.size()) + " rates]";
  } else {
    out = "Arrivals.scheduled([" + std::to_string(std::get<trunk::sandbox::ScheduledArrivals>(arrivals.process).at.size()) +
          " times]";
  }
  if (!arrivals.targets.empty()) {
    out += ", targets={";
    for (std::size_t i = 0; i < arrivals.targets.size(); ++i) {
      out += (i == 0 ? "'" : ", '") + arrivals.targets[i].target + "': " + number_repr(arrivals.targets[i].probability);
    }
    out += "}";
  }
  if (!arrivals.priorities.empty()) {
    out += ", priorities={";
    for (std::size_t i = 0; i < arrivals.priorities.size(); ++i) {
      out += (i == 0 ? "" : ", ") + std::to_string(arrivals.priorities[i].value) + ": " +
             number_repr(arrivals.priorities[i].probability);
    }
    out += "}";
  }
  if (arrivals.first_number != 1) out += ", first_number=" + std::to_string(arrivals.first_number);
  return out + ")";
}

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

std::optional<trunk::sandbox::RunDuration> run_duration_from_python(py::handle value, const char* field) {
  if (py::isinstance<FixedRunDuration>(value)) return value.cast<FixedRunDuration>();
  if (py::isinstance<LognormalRunDuration>(value)) return value.cast<LognormalRunDuration>();
  if (py::isinstance<EmpiricalRunDuration>(value)) return value.cast<EmpiricalRunDuration>();
  if (value.is_none()) return std::nullopt;
  throw py::type_error(std::string(field) +
                       " must be a FixedRunDuration, LognormalRunDuration, EmpiricalRunDuration or None");
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

  py::class_<Arrivals>(m, "Arrivals",
                       "Pull requests a merge queue submits by itself (Sandbox.set_queue_controls(arrivals=...)); "
                       "build one with Arrivals.poisson, Arrivals.hourly or Arrivals.scheduled.")
      .def_static("poisson", [](py::handle per_hour, py::handle targets, py::handle priorities, py::handle first_number) {
        trunk::python::ArgCollector args;
        const double rate = args.number(per_hour, "per_hour");
        return arrivals_of(trunk::sandbox::PoissonArrivals{rate}, targets, priorities, first_number, args);
      }, py::arg("per_hour"), py::kw_only(), py::arg("targets") = py::none(), py::arg("priorities") = py::none(),
         py::arg("first_number") = 1,
         "per_hour pull requests an hour on average (a Poisson process), at any hour.")
      .def_static("hourly", [](py::handle per_hour, py::handle targets, py::handle priorities, py::handle first_number) {
        trunk::python::ArgCollector args;
        trunk::sandbox::HourlyArrivals hourly;
        if (!py::isinstance<py::sequence>(per_hour) || py::isinstance<py::str>(per_hour)) {
          throw trunk::ValidationError({{"per_hour", py::repr(per_hour).cast<std::string>(), "must be a list of 24 or 168 rates"}});
        }
        std::size_t i = 0;
        for (const py::handle rate : per_hour) hourly.per_hour.push_back(args.number(rate, "per_hour[" + std::to_string(i++) + "]"));
        return arrivals_of(std::move(hourly), targets, priorities, first_number, args);
      }, py::arg("per_hour"), py::kw_only(), py::arg("targets") = py::none(), py::arg("priorities") = py::none(),
         py::arg("first_number") = 1,
         "A rate per hour of the day (24, UTC) or of the week (168, Monday 00:00 UTC first).")
      .def_static("scheduled", [](py::handle at, py::handle targets, py::handle priorities, py::handle first_number) {
        trunk::python::ArgCollector args;
        trunk::sandbox::ScheduledArrivals scheduled;
        if (!py::isinstance<py::iterable>(at) || py::isinstance<py::str>(at)) {
          throw trunk::ValidationError({{"at", py::repr(at).cast<std::string>(), "must be a list of aware datetimes"}});
        }
        std::size_t i = 0;
        for (const py::handle t : at) scheduled.at.push_back(args.timestamp(t, "at[" + std::to_string(i++) + "]"));
        return arrivals_of(std::move(scheduled), targets, priorities, first_number, args);
      }, py::arg("at"), py::kw_only(), py::arg("targets") = py::none(), py::arg("priorities") = py::none(),
         py::arg("first_number") = 1,
         "Exactly at these times (those already past when set are skipped).")
      .def_property_readonly("kind", [](const Arrivals& a) {
        return std::visit([](const auto& process) -> std::string {
          using P = std::decay_t<decltype(process)>;
          if constexpr (std::is_same_v<P, trunk::sandbox::PoissonArrivals>) return "poisson";
          else if constexpr (std::is_same_v<P, trunk::sandbox::HourlyArrivals>) return "hourly";
          else return "scheduled";
        }, a.process);
      })
      .def_property_readonly("per_hour", [](const Arrivals& a) -> py::object {
        if (const auto* poisson = std::get_if<trunk::sandbox::PoissonArrivals>(&a.process)) return py::float_(poisson->per_hour);
        if (const auto* hourly = std::get_if<trunk::sandbox::HourlyArrivals>(&a.process)) return py::tuple(py::cast(hourly->per_hour));
        return py::none();
      })
      .def_property_readonly("at", [](const Arrivals& a) -> py::object {
        const auto* scheduled = std::get_if<trunk::sandbox::ScheduledArrivals>(&a.process);
        if (scheduled == nullptr) return py::none();
        py::list times;
        for (const trunk::Timestamp t : scheduled->at) times.append(trunk::python::timestamp_to_python(t));
        return py::tuple(times);
      })
      .def_property_readonly("targets", [](const Arrivals& a) {
        py::dict out;
        for (const auto& chance : a.targets) out[py::str(chance.target)] = chance.probability;
        return out;
      })
      .def_property_readonly("priorities", [](const Arrivals& a) {
        py::dict out;
        for (const auto& chance : a.priorities) out[py::int_(chance.value)] = chance.probability;
        return out;
      })
      .def_readonly("first_number", &Arrivals::first_number)
      .def("__eq__", [](const Arrivals& a, const Arrivals& b) { return a == b; }, py::is_operator())
      .def("__repr__", &arrivals_repr);

  py::class_<QueueControls>(m, "QueueControls",
                            "One merge queue's controls (Sandbox.queue_controls); None: the sandbox's value.")
      .def(py::init<>(), "No control set: what a queue has until Sandbox.set_queue_controls.")
      .def_readonly("run_duration", &QueueControls::run_duration)
      .def_readonly("flaky_run_rate", &QueueControls::flaky_run_rate)
      .def_readonly("broken_pull_request_rate", &QueueControls::broken_pull_request_rate)
      .def_readonly("arrivals", &QueueControls::arrivals)
      .def("__eq__", [](const QueueControls& a, const QueueControls& b) { return a == b; }, py::is_operator())
      .def("__repr__", [](const QueueControls& c) {
        return "QueueControls(run_duration=" + (c.run_duration ? run_duration_repr(*c.run_duration) : "None") +
               ", flaky_run_rate=" + optional_repr(c.flaky_run_rate) +
               ", broken_pull_request_rate=" + optional_repr(c.broken_pull_request_rate) +
               ", arrivals=" + (c.arrivals ? arrivals_repr(*c.arrivals) : "None") + ")";
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
