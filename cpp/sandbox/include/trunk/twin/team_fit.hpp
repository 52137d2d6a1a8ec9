#pragma once
// trunk::twin::fit_team: the twin's model of a team (TeamModel) from its calibration (docs/twin.md, "The model").
//
// Arrivals, durations and their uncertainty come straight from the calibration: the simplest profile the history
// does not reject (chi-squared tests at 5 %): a flat Poisson rate, else the same profile every day, else one per
// hour of the week (from 28 days of history on: each hour seen four times); the empirical durations (Kaplan-Meier, as quantiles) from 30 finished runs
// on, the fitted lognormal below.
//
// The broken and flaky rates are not read off the history: a queue's own rules (predictive testing, bisection,
// batches failing together) sit between them and what the history shows. They are fitted by simulation: the
// twin, run under the queue's current configuration over windows as long as the history's, must reproduce the
// observed failed-entry and failed-clean-run shares (queue_measures.hpp). Newton steps with a Jacobian from
// finite differences (common random numbers make it smooth). The rates' intervals carry the shares' spread
// through that Jacobian (the delta method), the spread taken from the simulated windows themselves (a parametric
// bootstrap) and never below the binomial one: failures cluster (a broken pull request fails every run
// predicted on top of it), so counting them as independent would overstate what a month of history says; the
// fit's own simulation noise is added.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "trunk/queue_settings.hpp"
#include "trunk/twin/calibration.hpp"
#include "trunk/twin/estimate.hpp"
#include "trunk/twin/what_if.hpp"

namespace trunk::twin {

struct TeamFitOptions {
  std::size_t seeds = 8;                      ///< per simulation of the fit
  /// Each simulated window's length; nullopt: the history's (the calibration's observed hours, at least 1).
  std::optional<std::chrono::hours> window;
  std::uint64_t first_seed = 1'000'001;       ///< apart from the what-if's seeds
  std::size_t iterations = 8;                 ///< Newton steps at most
  std::function<bool()> interrupted;          ///< as WhatIfOptions::interrupted
  std::size_t threads = 0;                    ///< as WhatIfOptions::threads
};

struct FittedTeam {
  TeamModel team;                          ///< the model, its uncertainty filled
  std::optional<Estimate> broken_rate;     ///< empty when the history cannot tell (no concluded entry)
  std::optional<Estimate> flaky_rate;      ///< empty when it cannot tell (no clean finished run)
  double simulated_failed_entries = 0;     ///< what the fitted team gives under the current configuration
  double simulated_failed_clean_runs = 0;
  std::vector<std::string> warnings;       ///< what makes the model weak, in words
};

/// Throws trunk::ValidationError naming `calibration.durations` when no run finished (durations cannot be
/// modelled) or `seeds` when fewer than 2, and trunk::CancelledError when interrupted.
FittedTeam fit_team(const Calibration& calibration, const trunk::QueueSettings& current,
                    const TeamFitOptions& options = {});

/// The arrivals the twin replays for a fitted profile, and their relative uncertainty.
trunk::sandbox::Arrivals arrivals_of(const ArrivalProfile& profile);

}  // namespace trunk::twin
