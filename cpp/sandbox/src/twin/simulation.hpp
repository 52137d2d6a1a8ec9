#pragma once
// The twin's simulation, shared by the what-if (what_if.cpp), the fit of the broken and flaky rates
// (team_fit.cpp) and the backtest (backtest.cpp): one seed of a team under one configuration on the sandbox's
// merge queue, measured as a history is (queue_measures.hpp), and many seeds run on every core.

#include <cstddef>
#include <cstdint>
#include <functional>

#include "trunk/queue_settings.hpp"
#include "trunk/twin/queue_measures.hpp"
#include "trunk/twin/what_if.hpp"

namespace trunk::twin::detail {

/// The team seed `seed` plays: `team` itself when it carries no uncertainty, else a plausible team drawn from its
/// TeamUncertainty (the same seed, the same draw).
TeamModel team_for_seed(const TeamModel& team, std::uint64_t seed);

/// Asked between simulated days: true abandons the simulation (it throws trunk::CancelledError).
using StopCheck = std::function<bool()>;

/// One seed of `team` (as given: no draw) under `settings` from options.start, measured over the window after
/// the warm-up, the drain simulated. An overloaded configuration's month can take seconds: `stop` is asked
/// between its days.
QueueMeasures simulate(const TeamModel& team, const trunk::QueueSettings& settings, std::uint64_t seed,
                       const WhatIfOptions& options, const StopCheck& stop = {});

/// Runs job(0, stop) .. job(count - 1, stop) on `threads` threads (0: one per core), the calling thread one of
/// them. Only the calling thread asks `interrupted` (Python answers it on the main thread only): before each job
/// it takes and whenever its job asks `stop`; a yes stops every job at its next question, then throws
/// trunk::CancelledError. A job's exception stops the others and is rethrown.
void run_jobs(std::size_t count, std::size_t threads,
              const std::function<void(std::size_t, const StopCheck& stop)>& job,
              const std::function<bool()>& interrupted);

}  // namespace trunk::twin::detail
