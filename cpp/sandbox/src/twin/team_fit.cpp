#include "trunk/twin/team_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "simulation.hpp"
#include "trunk/error.hpp"
#include "trunk/twin/intervals.hpp"

namespace trunk::twin {

namespace {

namespace sb = trunk::sandbox;

constexpr double kHoursPerDay = 24;
constexpr double kWeekProfileFromDays = 28;   // each hour of the week seen four times
constexpr double kFlatEnough = 0.05;          // the chi-squared tests' p-value above which hours (days) look alike
constexpr std::size_t kDurationQuantiles = 1000;
constexpr double kStep = 0.05;                // finite-difference step of the rates
constexpr double kHighestRate = 0.99;

double sd_of(const Estimate& e) {
  return std::isfinite(e.high) && std::isfinite(e.low) ? (e.high - e.low) / (2 * confidence_z()) : 0;
}

double clamp_minutes(double m) { return std::clamp(m, sb::kMinRunMinutes, sb::kMaxRunMinutes); }

/// The Kaplan-Meier distribution as equally likely quantiles, which the sandbox's empirical duration resamples.
std::vector<double> quantiles_of(const std::vector<WeightedDuration>& points) {
  std::vector<double> out;
  out.reserve(kDurationQuantiles);
  double cumulative = 0;
  std::size_t i = 0;
  for (std::size_t q = 0; q < kDurationQuantiles; ++q) {
    const double p = (static_cast<double>(q) + 0.5) / kDurationQuantiles;
    while (i + 1 < points.size() && cumulative + points[i].probability < p) cumulative += points[i++].probability;
    out.push_back(clamp_minutes(points[i].minutes));
  }
  return out;
}

/// The durations the twin replays, and how uncertain they are.
void durations_into(const DurationFit& fit, TeamModel& team) {
  if (fit.preferred() == DurationFamily::empirical && !fit.empirical.empty()) {
    std::vector<double> minutes;
    if (fit.censored == 0) {
      for (const double m : fit.minutes) minutes.push_back(clamp_minutes(m));
    } else {
      minutes = quantiles_of(fit.empirical);
    }
    team.run_duration = sb::EmpiricalRunDuration{.minutes = std::move(minutes)};
    team.uncertainty.resample_durations = true;
    return;
  }
  if (!fit.lognormal) {
    throw trunk::ValidationError({{"calibration.durations", "no finished run",
                                   "needs at least one finished CI run to model how long runs take"}});
  }
  sb::LognormalRunDuration lognormal;
  lognormal.median_minutes = clamp_minutes(fit.lognormal->median_minutes.value);
  if (fit.lognormal->sigma) lognormal.sigma = std::clamp(fit.lognormal->sigma->value, 0.0, sb::kMaxRunSigma);
  const Estimate& median = fit.lognormal->median_minutes;
  team.uncertainty.log_median_sd =
      median.low > 0 && std::isfinite(median.high)
          ? (std::log(median.high) - std::log(median.low)) / (2 * confidence_z())
          : 1.0;  // one run: the median could be anything near it
  team.run_duration = lognormal;
}

using Vector = std::array<double, 2>;
using Matrix = std::array<Vector, 2>;  // rows: the shares; columns: broken, flaky

/// The shares a team gives under `settings`: their means over the fit's seeds and their covariance from one
/// window to the next.
struct Shares {
  Vector mean{};
  Matrix covariance{};
};

Shares simulate_shares(const TeamModel& team, const trunk::QueueSettings& settings, const TeamFitOptions& options,
                       std::chrono::hours window) {
  WhatIfOptions w;
  w.window = window;
  w.first_seed = options.first_seed;
  std::vector<QueueMeasures> measured(options.seeds);
  detail::run_jobs(
      options.seeds, options.threads,
      [&](std::size_t k, const detail::StopCheck& stop) {
        measured[k] = detail::simulate(team, settings, options.first_seed + k, w, stop);
      },
      options.interrupted);
  Shares out;
  std::vector<Vector> samples;
  for (const QueueMeasures& m : measured) samples.push_back({m.failed_share(), m.clean_failed_share()});
  const auto n = static_cast<double>(samples.size());
  for (const Vector& v : samples) {
    for (std::size_t i = 0; i < 2; ++i) out.mean[i] += v[i] / n;
  }
  if (samples.size() > 1) {
    for (const Vector& v : samples) {
      for (std::size_t i = 0; i < 2; ++i) {
        for (std::size_t j = 0; j < 2; ++j) out.covariance[i][j] += (v[i] - out.mean[i]) * (v[j] - out.mean[j]) / (n - 1);
      }
    }
  }
  return out;
}

std::optional<Matrix> inverse(const Matrix& m) {
  const double det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  if (!(std::abs(det) > 1e-6)) return std::nullopt;
  return Matrix{Vector{m[1][1] / det, -m[0][1] / det}, Vector{-m[1][0] / det, m[0][0] / det}};
}

std::string percent(double x) {
  const double rounded = std::round(x * 1000) / 10;
  std::string text = std::to_string(rounded);
  return text.substr(0, text.find('.') + 2) + " %";
}

/// Each target drawn with its share (none sampled: every pull request impacts all targets, the sandbox's default).
void targets_into(const Calibration& calibration, FittedTeam& fitted) {
  if (calibration.targets_sampled == 0) return;  // the calibration warns
  const double all = calibration.all_targets ? calibration.all_targets->value : 0;
  if (all >= 0.5) {
    fitted.warnings.push_back(percent(all) + " of the sampled pull requests impacted every target: all are modelled "
                              "so (one lane)");
    return;
  }
  for (const TargetShare& t : calibration.targets) {
    if (fitted.team.arrivals.targets.size() == sb::kMaxArrivalTargets) {
      fitted.warnings.push_back(std::to_string(calibration.targets.size()) + " targets: the " +
                                std::to_string(sb::kMaxArrivalTargets) + " most shared are modelled");
      break;
    }
    fitted.team.arrivals.targets.push_back({t.target, t.share.value});
  }
  if (all > 0) {
    fitted.warnings.push_back(percent(all) + " of the sampled pull requests impacted every target; the model draws "
                              "their targets like the others', so it underestimates how often they block a lane");
  }
}

/// Each priority drawn with its share, the commonest first (the sandbox takes at most kMaxArrivalPriorities); a
/// submission without a value takes the queue's default, as it did.
void priorities_into(const Calibration& calibration, FittedTeam& fitted) {
  for (const PriorityShare& p : calibration.priorities) {
    if (fitted.team.arrivals.priorities.size() == sb::kMaxArrivalPriorities) {
      fitted.warnings.push_back(std::to_string(calibration.priorities.size()) + " priority values: the " +
                                std::to_string(sb::kMaxArrivalPriorities) + " commonest are modelled");
      break;
    }
    fitted.team.arrivals.priorities.push_back({p.value, p.share.value});
  }
}

}  // namespace

sb::Arrivals arrivals_of(const ArrivalProfile& profile) {
  sb::Arrivals arrivals;
  const bool flat = profile.flat_p_value >= kFlatEnough;
  const bool whole_week = std::all_of(profile.by_hour_of_week.begin(), profile.by_hour_of_week.end(),
                                      [](const auto& e) { return e.has_value(); });
  const bool whole_day = std::all_of(profile.by_hour_of_day.begin(), profile.by_hour_of_day.end(),
                                     [](const auto& e) { return e.has_value(); });
  const bool days_differ = profile.days_alike_p_value < kFlatEnough;
  if (!flat && days_differ && whole_week && profile.observed_hours >= kWeekProfileFromDays * kHoursPerDay) {
    sb::HourlyArrivals hourly;
    for (const auto& e : profile.by_hour_of_week) hourly.per_hour.push_back(e->value);
    arrivals.process = hourly;
  } else if (!flat && whole_day) {
    sb::HourlyArrivals hourly;
    for (const auto& e : profile.by_hour_of_day) hourly.per_hour.push_back(e->value);
    arrivals.process = hourly;
  } else {
    arrivals.process = sb::PoissonArrivals{.per_hour = profile.per_hour.value};
  }
  return arrivals;
}

FittedTeam fit_team(const Calibration& calibration, const trunk::QueueSettings& current, const TeamFitOptions& options) {
  if (options.seeds < 2) {
    throw trunk::ValidationError({{"seeds", std::to_string(options.seeds), "must be at least 2 (the spread of the "
                                                                          "failure shares is read from them)"}});
  }
  FittedTeam fitted;
  TeamModel& team = fitted.team;
  team.arrivals = arrivals_of(calibration.arrivals);
  const Estimate& rate = calibration.arrivals.per_hour;
  team.uncertainty.arrival_rate_sd = rate.value > 0 ? sd_of(rate) / rate.value : 0;
  durations_into(calibration.durations, team);
  targets_into(calibration, fitted);
  priorities_into(calibration, fitted);

  if (!calibration.failed_entries) {
    fitted.warnings.push_back("no entry concluded: the broken and flaky rates are unknown and taken as 0");
    return fitted;
  }
  const Vector observed{calibration.failed_entries->value,
                        calibration.failed_clean_runs ? calibration.failed_clean_runs->value : 0.0};
  const bool flaky_known = calibration.failed_clean_runs.has_value();
  if (!flaky_known) fitted.warnings.push_back("no clean run finished: the flaky rate is unknown and taken as 0");

  const auto window = options.window.value_or(
      std::max(std::chrono::hours(1), std::chrono::hours(std::llround(calibration.arrivals.observed_hours))));
  Shares last;
  const auto shares_at = [&](const Vector& rates) {
    TeamModel t = team;
    t.broken_rate = rates[0];
    t.flaky_rate = rates[1];
    last = simulate_shares(t, current, options, window);
    return last.mean;
  };
  const auto clamp_rates = [&](Vector v) {
    v[0] = std::clamp(v[0], 0.0, kHighestRate);
    v[1] = flaky_known ? std::clamp(v[1], 0.0, kHighestRate) : 0.0;
    return v;
  };
  // A first guess: a clean run's failures are flaky ones; the entries' failures beyond those are broken ones.
  Vector rates = clamp_rates({observed[0] - observed[1], observed[1]});
  Vector at = shares_at(rates);
  // The Jacobian once, at the first guess, by forward steps (backward at the top of the range).
  Matrix jacobian{};
  for (std::size_t j = 0; j < 2; ++j) {
    if (j == 1 && !flaky_known) {
      jacobian[0][1] = 0;
      jacobian[1][1] = 1;
      continue;
    }
    Vector stepped = rates;
    const double h = stepped[j] + kStep <= kHighestRate ? kStep : -kStep;
    stepped[j] += h;
    const Vector moved = shares_at(stepped);
    for (std::size_t i = 0; i < 2; ++i) jacobian[i][j] = (moved[i] - at[i]) / h;
  }
  if (!flaky_known) jacobian[1][0] = 0;
  const Matrix fallback{Vector{1, 0}, Vector{0, 1}};
  const Matrix inv = inverse(jacobian).value_or(fallback);
  const Vector binomial_sd{sd_of(*calibration.failed_entries),
                           flaky_known ? sd_of(*calibration.failed_clean_runs) : 0.0};
  const Vector& sd = binomial_sd;  // the stopping rule's scale
  for (std::size_t iteration = 0; iteration < options.iterations; ++iteration) {
    const Vector miss{observed[0] - at[0], observed[1] - at[1]};
    if (std::abs(miss[0]) <= sd[0] / 4 && std::abs(miss[1]) <= sd[1] / 4) break;  // well inside the noise
    rates = clamp_rates({rates[0] + inv[0][0] * miss[0] + inv[0][1] * miss[1],
                         rates[1] + inv[1][0] * miss[0] + inv[1][1] * miss[1]});
    at = shares_at(rates);
  }
  team.broken_rate = rates[0];
  team.flaky_rate = rates[1];
  fitted.simulated_failed_entries = at[0];
  fitted.simulated_failed_clean_runs = at[1];

  // The delta method: the shares' spread from one window to the next (the simulated windows' covariance, each
  // variance at least the binomial one), plus the fit's own simulation noise, carried through the inverse Jacobian.
  Matrix spread = last.covariance;
  for (std::size_t i = 0; i < 2; ++i) {
    const double floor = binomial_sd[i] * binomial_sd[i];
    if (spread[i][i] < floor) {
      const double scale = spread[i][i] > 0 ? std::sqrt(floor / spread[i][i]) : 0;
      for (std::size_t j = 0; j < 2; ++j) {
        spread[i][j] *= scale;
        spread[j][i] *= scale;
      }
      spread[i][i] = floor;
    }
  }
  if (!flaky_known) spread[0][1] = spread[1][0] = spread[1][1] = 0;
  const double with_fit_noise = 1 + 1 / static_cast<double>(options.seeds);
  Vector rate_sd{};
  for (std::size_t i = 0; i < 2; ++i) {
    double variance = 0;
    for (std::size_t a = 0; a < 2; ++a) {
      for (std::size_t b = 0; b < 2; ++b) variance += inv[i][a] * spread[a][b] * inv[i][b];
    }
    rate_sd[i] = std::sqrt(std::max(0.0, variance * with_fit_noise));
  }
  // The spread was estimated from the fit's seeds: Student's t, not the normal quantile.
  const double z = confidence_t(static_cast<double>(std::max<std::size_t>(options.seeds, 2) - 1));
  const auto estimate = [&](double value, double spread, std::size_t observations) {
    return Estimate{.value = value,
                    .low = std::max(0.0, value - z * spread),
                    .high = std::min(1.0, value + z * spread),
                    .observations = observations};
  };
  fitted.broken_rate = estimate(rates[0], rate_sd[0], calibration.failed_entries->observations);
  if (flaky_known) fitted.flaky_rate = estimate(rates[1], rate_sd[1], calibration.failed_clean_runs->observations);
  team.uncertainty.broken_rate_sd = rate_sd[0];
  team.uncertainty.flaky_rate_sd = flaky_known ? rate_sd[1] : 0;

  if (std::abs(observed[0] - at[0]) > 2 * sd[0] || std::abs(observed[1] - at[1]) > 2 * sd[1]) {
    fitted.warnings.push_back("the twin could not reproduce the observed failures (entries " + percent(observed[0]) +
                              " observed, " + percent(at[0]) + " simulated; clean runs " + percent(observed[1]) +
                              " observed, " + percent(at[1]) +
                              " simulated): the queue may not behave as the model assumes (independent failures, "
                              "today's configuration all along)");
  }
  return fitted;
}

}  // namespace trunk::twin
