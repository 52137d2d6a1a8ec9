// _core.twin: the statistics and the calibration of a queue's twin (trunk/twin/, docs/twin.md). The public facade
// is trunk_api/twin.py. Every result is a read-only view of the C++ value; calibrate() reads the history with the
// GIL released (it is many HTTP calls) and can be interrupted like any other call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "convert_args.hpp"
#include "convert_run_duration.hpp"
#include "convert_time.hpp"
#include "interrupt.hpp"
#include "py_client.hpp"
#include "trunk/twin/arrival_fit.hpp"
#include "trunk/twin/backtest.hpp"
#include "trunk/twin/calibration.hpp"
#include "trunk/twin/duration_fit.hpp"
#include "trunk/twin/intervals.hpp"
#include "trunk/twin/queue_history.hpp"
#include "trunk/twin/queue_measures.hpp"
#include "trunk/twin/team_fit.hpp"
#include "trunk/twin/what_if.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

using twin::ArrivalProfile;
using twin::Calibration;
using twin::DurationFit;
using twin::Estimate;
using twin::LognormalFit;

std::string number_text(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", x);
  return text;
}

std::vector<double> floats(py::handle values, const char* field) {
  std::vector<double> out;
  try {
    for (py::handle v : values) out.push_back(v.cast<double>());
  } catch (const py::cast_error&) {
    throw ValidationError({{field, py::repr(values).cast<std::string>().substr(0, 80), "must be numbers"}});
  }
  return out;
}

template <typename Array>
py::list optional_estimates(const Array& estimates) {
  py::list out;
  for (const auto& e : estimates) out.append(e ? py::cast(*e) : py::none());
  return out;
}

void bind_estimates(py::module_& m) {
  py::class_<Estimate>(m, "Estimate", "A fitted quantity with its 95 % interval and the observations behind it.")
      .def_readonly("value", &Estimate::value, "the point estimate")
      .def_readonly("low", &Estimate::low, "the interval's lower bound")
      .def_readonly("high", &Estimate::high, "the interval's upper bound (inf when the data cannot bound it)")
      .def_readonly("observations", &Estimate::observations, "how many observations it rests on")
      .def("contains", &Estimate::contains, py::arg("x"), "Whether x lies in the interval.")
      .def("__repr__", [](const Estimate& e) {
        return "Estimate(" + number_text(e.value) + " [" + number_text(e.low) + ", " + number_text(e.high) +
               "], n=" + std::to_string(e.observations) + ")";
      });
  m.attr("CONFIDENCE") = twin::kConfidence;
  // The C++ defaults, named once here so that trunk_api.twin's signatures read them instead of spelling them again.
  const twin::WhatIfOptions what_if;
  const twin::TeamFitOptions fit;
  m.attr("SEEDS") = what_if.seeds;
  m.attr("FIRST_SEED") = what_if.first_seed;
  m.attr("WINDOW_DAYS") = what_if.window.count() / 24;
  m.attr("WARM_UP_HOURS") = what_if.warm_up.count();
  m.attr("DRAIN_HOURS") = what_if.drain.count();
  m.attr("FIT_SEEDS") = fit.seeds;
  m.attr("FIT_FIRST_SEED") = fit.first_seed;
  m.attr("TARGET_SAMPLE") = twin::kTargetSample;
  m.def("estimate_proportion", &twin::estimate_proportion, py::arg("successes"), py::arg("trials"),
        "Wilson interval of successes out of trials; None when trials is 0.");
  m.def("estimate_poisson_rate", &twin::estimate_poisson_rate, py::arg("events"), py::arg("exposure"),
        "Exact Poisson interval of events over an exposure; None when the exposure is 0.");
}

void bind_durations(py::module_& m) {
  py::class_<LognormalFit>(m, "LognormalFit", "A lognormal fitted to the finished runs' durations.")
      .def_readonly("median_minutes", &LognormalFit::median_minutes)
      .def_readonly("sigma", &LognormalFit::sigma)
      .def_readonly("ks_distance", &LognormalFit::ks_distance)
      .def_readonly("ks_p_value", &LognormalFit::ks_p_value);
  py::class_<DurationFit>(m, "DurationFit", "CI run durations: the sample, its Kaplan-Meier distribution, a lognormal.")
      .def_readonly("minutes", &DurationFit::minutes, "the finished runs' durations, sorted")
      .def_property_readonly(
          "empirical",
          [](const DurationFit& fit) {
            py::list out;
            for (const auto& atom : fit.empirical) out.append(py::make_tuple(atom.minutes, atom.probability));
            return out;
          },
          "(minutes, probability) pairs: Kaplan-Meier over finished and stopped runs")
      .def_readonly("lognormal", &DurationFit::lognormal)
      .def_readonly("censored", &DurationFit::censored, "durations of stopped runs, lower bounds")
      .def_readonly("ignored", &DurationFit::ignored, "durations left out: not finite or not positive")
      .def_property_readonly(
          "preferred",
          [](const DurationFit& fit) {
            return fit.preferred() == twin::DurationFamily::empirical ? "empirical" : "lognormal";
          },
          "what the twin replays: the observed sample (from 30 runs) or the lognormal");
  m.def(
      "fit_durations",
      [](py::handle finished, py::handle stopped) {
        return twin::fit_durations(floats(finished, "finished"), floats(stopped, "stopped"));
      },
      py::arg("finished"), py::arg("stopped") = py::tuple(),
      "Fits the durations (minutes) of finished runs and of runs stopped before they ended.");
}

void bind_arrivals(py::module_& m) {
  py::class_<ArrivalProfile>(m, "ArrivalProfile", "Arrivals per hour, overall and by hour of the day and of the week (UTC).")
      .def_readonly("per_hour", &ArrivalProfile::per_hour)
      .def_property_readonly("by_hour_of_day", [](const ArrivalProfile& p) { return optional_estimates(p.by_hour_of_day); })
      .def_property_readonly("by_hour_of_week",
                             [](const ArrivalProfile& p) { return optional_estimates(p.by_hour_of_week); })
      .def_readonly("observed_hours", &ArrivalProfile::observed_hours)
      .def_readonly("arrivals", &ArrivalProfile::arrivals)
      .def_readonly("ignored", &ArrivalProfile::ignored)
      .def_readonly("flat_p_value", &ArrivalProfile::flat_p_value)
      .def_readonly("days_alike_p_value", &ArrivalProfile::days_alike_p_value);
  m.def(
      "fit_arrivals",
      [](py::handle times, py::handle since, py::handle until) {
        std::vector<Timestamp> arrivals;
        for (py::handle t : times) arrivals.push_back(timestamp_from_python(t, "times"));
        return twin::fit_arrivals(arrivals, timestamp_from_python(since, "since"),
                                  timestamp_from_python(until, "until"));
      },
      py::arg("times"), py::arg("since"), py::arg("until"), "Fits the arrivals that fall in [since, until).");
}

void bind_calibration(py::module_& m) {
  using twin::QueueHistory;
  py::class_<QueueHistory>(m, "QueueHistory",
                           "What a queue's twin is calibrated from, read through v2 (or v1 for a v1 token): its "
                           "configuration, testing results and submissions over [since, until].")
      .def_readonly("queue_id", &QueueHistory::queue_id)
      .def_property_readonly("source", [](const QueueHistory& h) {
        return h.source == twin::HistorySource::v1 ? "v1" : "v2";
      }, "The API it was read through: v1 gives no submission times (docs/twin.md, \"From a v1 history\").")
      .def_readonly("settings", &QueueHistory::settings)
      .def_property_readonly("since", [](const QueueHistory& h) { return timestamp_to_python(h.since); })
      .def_property_readonly("until", [](const QueueHistory& h) { return timestamp_to_python(h.until); })
      .def_readonly("queue", &QueueHistory::queue)
      .def_readonly("testing_results", &QueueHistory::testing_results)
      .def_readonly("pull_requests", &QueueHistory::pull_requests)
      .def_readonly("sampled_runs", &QueueHistory::sampled_runs)
      .def("__repr__", [](const QueueHistory& h) {
        return "QueueHistory(queue_id=" + py::repr(py::str(h.queue_id)).cast<std::string>() + ", " +
               std::to_string(h.testing_results.size()) + " testing results, " +
               std::to_string(h.pull_requests.size()) + " pull requests)";
      });
  m.def(
      "collect_history",
      [](PyClient& client, const std::string& queue_id, py::handle since, py::handle until, std::size_t target_sample) {
        const Timestamp from = timestamp_from_python(since, "since");
        const Timestamp to = timestamp_from_python(until, "until");
        return call_without_gil(
            [&] { return twin::collect_queue_history(*client.client, queue_id, from, to, target_sample); });
      },
      py::arg("client"), py::arg("queue_id"), py::arg("since"), py::arg("until"), py::kw_only(),
      py::arg("target_sample") = twin::kTargetSample,
      "Reads a merge queue's history through v2 (at most 45 days), and up to target_sample runs by id for their "
      "impacted targets.");
  m.def(
      "collect_history_v1",
      [](PyClient& client, py::handle repo, py::handle target_branch, py::handle since, py::handle until,
         std::size_t target_sample) {
        trunk::python::ArgCollector args;
        const trunk::Repo parsed = args.repo(repo);
        const std::string branch = args.text(target_branch, "target_branch");
        const Timestamp from = args.timestamp(since, "since");
        const Timestamp to = args.timestamp(until, "until");
        args.throw_if_failed();
        return call_without_gil([&] {
          return twin::collect_queue_history_v1(*client.client, parsed, branch, from, to, target_sample);
        });
      },
      py::arg("client"), py::arg("repo"), py::arg("target_branch"), py::arg("since"), py::arg("until"),
      py::kw_only(), py::arg("target_sample") = twin::kTargetSample,
      "Reads a v1 merge queue's history (at most 45 days) with a v1 token, each row as v2 shows it; submissions "
      "are dated by their first test.");
  py::class_<twin::TargetShare>(m, "TargetShare", "One impacted target and the share of pull requests impacting it.")
      .def_readonly("target", &twin::TargetShare::target)
      .def_readonly("share", &twin::TargetShare::share)
      .def("__repr__", [](const twin::TargetShare& t) {
        return "TargetShare(" + py::repr(py::str(t.target)).cast<std::string>() + ", " +
               py::repr(py::cast(t.share)).cast<std::string>() + ")";
      });
  py::class_<twin::PriorityShare>(m, "PriorityShare", "One priority value and the share of submissions carrying it.")
      .def_readonly("value", &twin::PriorityShare::value)
      .def_readonly("share", &twin::PriorityShare::share)
      .def("__repr__", [](const twin::PriorityShare& p) {
        return "PriorityShare(" + std::to_string(p.value) + ", " + py::repr(py::cast(p.share)).cast<std::string>() + ")";
      });
  py::class_<Calibration>(m, "Calibration", "What a queue's history shows, each quantity with its interval.")
      .def_readonly("targets", &Calibration::targets)
      .def_readonly("all_targets", &Calibration::all_targets)
      .def_readonly("targets_sampled", &Calibration::targets_sampled)
      .def_readonly("durations", &Calibration::durations)
      .def_readonly("arrivals", &Calibration::arrivals)
      .def_readonly("failed_entries", &Calibration::failed_entries)
      .def_readonly("failed_clean_runs", &Calibration::failed_clean_runs)
      .def_readonly("batch_size", &Calibration::batch_size)
      .def_readonly("urgent_submissions", &Calibration::urgent_submissions)
      .def_readonly("priorities", &Calibration::priorities)
      .def_readonly("runs", &Calibration::runs)
      .def_readonly("ignored_results", &Calibration::ignored_results)
      .def_readonly("warnings", &Calibration::warnings);
  m.def(
      "calibrate",
      [](PyClient& client, const std::string& queue_id, py::handle since, py::handle until) {
        const Timestamp from = timestamp_from_python(since, "since");
        const Timestamp to = timestamp_from_python(until, "until");
        return call_without_gil([&] {
          return twin::calibrate(twin::collect_queue_history(*client.client, queue_id, from, to));
        });
      },
      py::arg("client"), py::arg("queue_id"), py::arg("since"), py::arg("until"),
      "Reads a merge queue's history through v2 and calibrates its twin from it.");
  m.def(
      "calibrate", [](const QueueHistory& history) { return call_without_gil([&] { return twin::calibrate(history); }); },
      py::arg("history"), "Calibrates a queue's twin from a history already read.");
}

void bind_what_if(py::module_& m) {
  using twin::ConfigurationOutcome;
  using twin::TeamModel;
  using twin::TeamUncertainty;
  py::class_<TeamUncertainty>(m, "TeamUncertainty",
                              "What a team's history leaves uncertain: each seed of a what-if draws its own plausible "
                              "team from it (docs/twin.md, \"The model\").")
      .def(py::init([](double broken_rate_sd, double flaky_rate_sd, double arrival_rate_sd, double log_median_sd,
                       bool resample_durations) {
             return TeamUncertainty{broken_rate_sd, flaky_rate_sd, arrival_rate_sd, log_median_sd, resample_durations};
           }),
           py::kw_only(), py::arg("broken_rate_sd") = 0.0, py::arg("flaky_rate_sd") = 0.0,
           py::arg("arrival_rate_sd") = 0.0, py::arg("log_median_sd") = 0.0, py::arg("resample_durations") = false)
      .def_readonly("broken_rate_sd", &TeamUncertainty::broken_rate_sd)
      .def_readonly("flaky_rate_sd", &TeamUncertainty::flaky_rate_sd)
      .def_readonly("arrival_rate_sd", &TeamUncertainty::arrival_rate_sd)
      .def_readonly("log_median_sd", &TeamUncertainty::log_median_sd)
      .def_readonly("resample_durations", &TeamUncertainty::resample_durations)
      .def("__eq__", [](const TeamUncertainty& a, const TeamUncertainty& b) { return a == b; })
      .def("__repr__", [](const TeamUncertainty& u) {
        return "TeamUncertainty(broken_rate_sd=" + number_text(u.broken_rate_sd) +
               ", flaky_rate_sd=" + number_text(u.flaky_rate_sd) + ", arrival_rate_sd=" +
               number_text(u.arrival_rate_sd) + ", log_median_sd=" + number_text(u.log_median_sd) +
               ", resample_durations=" + (u.resample_durations ? "True" : "False") + ")";
      });
  py::class_<TeamModel>(m, "TeamModel", "What the twin knows of a team: its arrivals, CI durations and failure rates.")
      .def(py::init([](const trunk::sandbox::Arrivals& arrivals, py::handle run_duration, double broken_rate,
                       double flaky_rate, const TeamUncertainty& uncertainty) {
             auto duration = run_duration_from_python(run_duration, "run_duration");
             if (!duration) throw py::type_error("run_duration must be a FixedRunDuration, LognormalRunDuration or EmpiricalRunDuration");
             return TeamModel{arrivals, *duration, broken_rate, flaky_rate, uncertainty};
           }),
           py::arg("arrivals"), py::arg("run_duration"), py::kw_only(), py::arg("broken_rate") = 0.0,
           py::arg("flaky_rate") = 0.0, py::arg("uncertainty") = TeamUncertainty{})
      .def_readonly("arrivals", &TeamModel::arrivals)
      .def_readonly("run_duration", &TeamModel::run_duration)
      .def_readonly("broken_rate", &TeamModel::broken_rate)
      .def_readonly("flaky_rate", &TeamModel::flaky_rate)
      .def_readonly("uncertainty", &TeamModel::uncertainty);
  py::class_<ConfigurationOutcome>(m, "ConfigurationOutcome",
                                   "One configuration's answers, each the mean over seeds with the interval where 95 % "
                                   "of windows fall.")
      .def_readonly("settings", &ConfigurationOutcome::settings)
      .def_readonly("minutes_in_queue_p50", &ConfigurationOutcome::minutes_in_queue_p50)
      .def_readonly("minutes_in_queue_p90", &ConfigurationOutcome::minutes_in_queue_p90)
      .def_readonly("merged_per_day", &ConfigurationOutcome::merged_per_day)
      .def_readonly("runs_per_merged", &ConfigurationOutcome::runs_per_merged)
      .def_readonly("failed_share", &ConfigurationOutcome::failed_share)
      .def_readonly("seeds", &ConfigurationOutcome::seeds);
  m.def(
      "compare",
      [](const TeamModel& team, const std::vector<QueueSettings>& configurations, std::size_t seeds,
         std::int64_t window_days, std::int64_t warm_up_hours, std::int64_t drain_hours, std::uint64_t first_seed) {
        twin::WhatIfOptions options;
        options.seeds = seeds;
        options.window = std::chrono::hours(24 * window_days);
        options.warm_up = std::chrono::hours(warm_up_hours);
        options.drain = std::chrono::hours(drain_hours);
        options.first_seed = first_seed;
        options.interrupted = python_interrupt_check;
        return call_without_gil([&] { return twin::compare(team, configurations, options); });
      },
      py::arg("team"), py::arg("configurations"), py::kw_only(), py::arg("seeds") = twin::WhatIfOptions{}.seeds,
      py::arg("window_days") = twin::WhatIfOptions{}.window.count() / 24,
      py::arg("warm_up_hours") = twin::WhatIfOptions{}.warm_up.count(),
      py::arg("drain_hours") = twin::WhatIfOptions{}.drain.count(), py::arg("first_seed") = twin::WhatIfOptions{}.first_seed,
      "Runs each configuration on the sandbox's queue model fed by the team's model, over the same seeds.");
}

void bind_fit_and_backtest(py::module_& m) {
  using twin::Backtest;
  using twin::FittedTeam;
  using twin::QueueMeasures;
  py::class_<FittedTeam>(m, "FittedTeam",
                         "The twin's model of a team fitted from its calibration; the broken and flaky rates by "
                         "simulation under the queue's configuration.")
      .def_readonly("team", &FittedTeam::team)
      .def_readonly("broken_rate", &FittedTeam::broken_rate)
      .def_readonly("flaky_rate", &FittedTeam::flaky_rate)
      .def_readonly("simulated_failed_entries", &FittedTeam::simulated_failed_entries)
      .def_readonly("simulated_failed_clean_runs", &FittedTeam::simulated_failed_clean_runs)
      .def_readonly("warnings", &FittedTeam::warnings);
  m.def(
      "fit_team",
      [](const Calibration& calibration, const QueueSettings& current, std::size_t seeds, std::uint64_t first_seed) {
        twin::TeamFitOptions options;
        options.seeds = seeds;
        options.first_seed = first_seed;
        options.interrupted = python_interrupt_check;
        return call_without_gil([&] { return twin::fit_team(calibration, current, options); });
      },
      py::arg("calibration"), py::arg("current"), py::kw_only(), py::arg("seeds") = twin::TeamFitOptions{}.seeds,
      py::arg("first_seed") = twin::TeamFitOptions{}.first_seed,
      "Fits the team's model from a calibration, the rates by simulation under the current configuration.");
  py::class_<QueueMeasures>(m, "QueueMeasures", "What a queue did over a window, measured as the twin measures it.")
      .def_readonly("minutes_in_queue_p50", &QueueMeasures::minutes_in_queue_p50)
      .def_readonly("minutes_in_queue_p90", &QueueMeasures::minutes_in_queue_p90)
      .def_readonly("merged_per_day", &QueueMeasures::merged_per_day)
      .def_readonly("runs_per_merged", &QueueMeasures::runs_per_merged)
      .def_property_readonly("failed_share", &QueueMeasures::failed_share)
      .def_readonly("submitted", &QueueMeasures::submitted)
      .def_readonly("merged", &QueueMeasures::merged)
      .def_readonly("runs", &QueueMeasures::runs);
  py::class_<Backtest>(m, "Backtest",
                       "The twin replaying the queue's own configuration over its history, beside what the history "
                       "shows; each error is (predicted - observed) / observed.")
      .def_readonly("settings", &Backtest::settings)
      .def_property_readonly("since", [](const Backtest& b) { return timestamp_to_python(b.from); })
      .def_property_readonly("until", [](const Backtest& b) { return timestamp_to_python(b.to); })
      .def_readonly("observed", &Backtest::observed)
      .def_readonly("predicted", &Backtest::predicted)
      .def_readonly("p50_error", &Backtest::p50_error)
      .def_readonly("p90_error", &Backtest::p90_error)
      .def_readonly("merged_per_day_error", &Backtest::merged_per_day_error)
      .def_readonly("runs_per_merged_error", &Backtest::runs_per_merged_error);
  m.def(
      "backtest",
      [](const twin::TeamModel& team, const twin::QueueHistory& history, std::size_t seeds, std::uint64_t first_seed) {
        twin::WhatIfOptions options;
        options.seeds = seeds;
        options.first_seed = first_seed;
        options.interrupted = python_interrupt_check;
        return call_without_gil([&] { return twin::backtest(team, history, options); });
      },
      py::arg("team"), py::arg("history"), py::kw_only(), py::arg("seeds") = twin::WhatIfOptions{}.seeds,
      py::arg("first_seed") = twin::WhatIfOptions{}.first_seed,
      "Replays the queue's configuration with the team's model over its history.");
  m.def("settings_of", &twin::settings_of, py::arg("queue"),
        "A v2 queue's configuration as the settings the twin runs (v1's shape).");
}

}  // namespace

void bind_twin(py::module_& m) {
  bind_estimates(m);
  bind_durations(m);
  bind_arrivals(m);
  bind_calibration(m);
  bind_what_if(m);
  bind_fit_and_backtest(m);
}

}  // namespace trunk::python
