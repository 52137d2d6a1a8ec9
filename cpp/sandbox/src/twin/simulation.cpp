#include "simulation.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <random>
#include <thread>
#include <variant>
#include <vector>

#include "../merge_queue.hpp"
#include "trunk/error.hpp"

namespace trunk::twin::detail {

namespace {

using trunk::Timestamp;

/// Keeps a team's draws apart from the queue's own dice, which the same seed also feeds.
constexpr std::uint64_t kTeamDrawStream = 0x7e4d'1a2b'9c3f'5e61ULL;

double clamp_rate(double x) { return std::clamp(x, 0.0, 1.0); }

EntryEnd end_of(trunk::PullRequestState state, bool concluded) {
  switch (state) {
    case trunk::PullRequestState::merged: return EntryEnd::merged;
    case trunk::PullRequestState::failed: return EntryEnd::failed;
    case trunk::PullRequestState::cancelled: return EntryEnd::cancelled;
    default: return concluded ? EntryEnd::cancelled : EntryEnd::open;
  }
}

/// What the simulated queue did, in the terms a history gives.
QueueRecord record_of(const trunk::sandbox::MergeQueue& queue) {
  QueueRecord record;
  for (const auto& entry : queue.entries()) {
    record.entries.push_back({.number = entry.number,
                              .submitted_at = entry.submitted_at,
                              .end = end_of(entry.state, entry.concluded),
                              .concluded_at = entry.concluded_at});
  }
  for (const auto& run : queue.runs()) {
    if (run.status == trunk::TestingStatus::in_progress) continue;  // no testing result yet
    RunRecord& r = record.runs.emplace_back();
    r.ended_at = run.updated_at;
    r.bisection = run.bisection;
    r.finished = run.status == trunk::TestingStatus::succeeded || run.status == trunk::TestingStatus::failed;
    r.failed = run.status == trunk::TestingStatus::failed;
    for (const auto& tested : run.tested) r.pull_requests.push_back(tested.number);
  }
  return record;
}

void scale_arrivals(trunk::sandbox::Arrivals& arrivals, double factor) {
  std::visit(
      [&](auto& process) {
        using P = std::decay_t<decltype(process)>;
        if constexpr (std::is_same_v<P, trunk::sandbox::PoissonArrivals>) {
          process.per_hour *= factor;
        } else if constexpr (std::is_same_v<P, trunk::sandbox::HourlyArrivals>) {
          for (double& rate : process.per_hour) rate *= factor;
        }  // scheduled arrivals are the team's exact times: nothing to scale
      },
      arrivals.process);
}

void draw_durations(trunk::sandbox::RunDuration& duration, const TeamUncertainty& u, std::mt19937_64& dice) {
  if (auto* empirical = std::get_if<trunk::sandbox::EmpiricalRunDuration>(&duration);
      empirical != nullptr && u.resample_durations && !empirical->minutes.empty()) {
    std::uniform_int_distribution<std::size_t> pick(0, empirical->minutes.size() - 1);
    std::vector<double> resampled(empirical->minutes.size());
    for (double& m : resampled) m = empirical->minutes[pick(dice)];
    empirical->minutes = std::move(resampled);
  }
  if (auto* lognormal = std::get_if<trunk::sandbox::LognormalRunDuration>(&duration);
      lognormal != nullptr && u.log_median_sd > 0) {
    const double factor = std::exp(std::normal_distribution<double>(0, u.log_median_sd)(dice));
    lognormal->median_minutes = std::clamp(lognormal->median_minutes * factor, trunk::sandbox::kMinRunMinutes,
                                           trunk::sandbox::kMaxRunMinutes);
  }
}

}  // namespace

TeamModel team_for_seed(const TeamModel& team, std::uint64_t seed) {
  if (team.uncertainty == TeamUncertainty{}) return team;
  std::mt19937_64 dice(seed ^ kTeamDrawStream);
  const TeamUncertainty& u = team.uncertainty;
  std::normal_distribution<double> normal(0, 1);
  TeamModel drawn = team;
  drawn.uncertainty = {};
  drawn.broken_rate = clamp_rate(team.broken_rate + u.broken_rate_sd * normal(dice));
  drawn.flaky_rate = clamp_rate(team.flaky_rate + u.flaky_rate_sd * normal(dice));
  const double factor = std::max(0.0, 1 + u.arrival_rate_sd * normal(dice));
  if (u.arrival_rate_sd > 0) scale_arrivals(drawn.arrivals, factor);
  draw_durations(drawn.run_duration, u, dice);
  return drawn;
}

QueueMeasures simulate(const TeamModel& team, const trunk::QueueSettings& settings, std::uint64_t seed,
                       const WhatIfOptions& options, const StopCheck& stop) {
  const trunk::sandbox::FailureModel model{.flaky_run_failure = team.flaky_rate,
                                           .broken_pull_request = team.broken_rate,
                                           .seed = seed};
  trunk::sandbox::MergeQueue queue("twin.local/team/queue", "main", model, options.start, team.run_duration);
  queue.advance_to(options.start, settings);
  trunk::sandbox::QueueControls controls;
  controls.arrivals = team.arrivals;
  queue.set_controls(controls);
  const Timestamp from = options.start + options.warm_up;
  const Timestamp to = from + options.window;
  const Timestamp end = to + options.drain;
  for (Timestamp day = options.start + std::chrono::days(1); day < end; day += std::chrono::days(1)) {
    queue.advance_to(day, settings);
    if (stop && stop()) throw trunk::CancelledError("twin: interrupted");
  }
  queue.advance_to(end, settings);
  return measure(record_of(queue), from, to);
}

void run_jobs(std::size_t count, std::size_t threads,
              const std::function<void(std::size_t, const StopCheck& stop)>& job,
              const std::function<bool()>& interrupted) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stopping{false};
  bool cancelled = false;  // written by the calling thread only
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const StopCheck worker_stop = [&] { return stopping.load(); };
  const StopCheck caller_stop = [&] {
    if (stopping.load()) return true;
    if (interrupted && interrupted()) {
      cancelled = true;
      stopping = true;
    }
    return stopping.load();
  };
  const auto work = [&](bool caller) {
    const StopCheck& stop = caller ? caller_stop : worker_stop;
    while (!stop()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= count) break;
      try {
        job(i, stop);
      } catch (...) {
        if (stopping.load()) break;  // abandoned on a stop, not failed
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stopping = true;
      }
    }
  };
  const std::size_t wanted = threads != 0 ? threads : std::max(1U, std::thread::hardware_concurrency());
  const std::size_t n = std::clamp<std::size_t>(wanted, 1, std::max<std::size_t>(count, 1));
  {
    std::vector<std::jthread> workers;
    for (std::size_t t = 1; t < n; ++t) workers.emplace_back(work, false);
    work(true);
  }  // joined
  if (failure) std::rethrow_exception(failure);
  if (cancelled) throw trunk::CancelledError("twin: interrupted");
}

}  // namespace trunk::twin::detail
