#pragma once
// trunk::twin::fit_durations: the CI run durations of a queue's history as the twin replays them
// (docs/twin.md, "CI durations").
//
// Two descriptions of the same sample, each with what it is good for:
//  - a lognormal (median and spread, the sandbox's own default family): smooth, extrapolates a little, and the
//    only honest choice with a handful of runs; its median and sigma carry intervals (Student's t on the mean of
//    the logarithms, chi-squared on their variance);
//  - the empirical sample itself, resampled: no shape assumed, so a bimodal CI (a cache hit or miss, two
//    runners) stays bimodal.
// preferred() picks the empirical sample from kEmpiricalFrom runs on, the lognormal below. The
// Kolmogorov-Smirnov distance between the sample and the fitted lognormal is kept as a diagnostic: its p-value
// (Stephens' asymptotic form) is conservative, since the lognormal was fitted to the same sample.
// Durations that are not finite or not positive (a run cancelled at once) cannot be a run's length: they are
// counted in `ignored`, not fitted.
//
// Censoring: a run stopped before it ended (interrupted: a failure ahead of it, a restart) says only that the run
// would have taken longer than it ran. Leaving such runs out would favour short runs, since long ones are the
// likelier to be interrupted; so the empirical distribution is the Kaplan-Meier estimate over finished and
// stopped runs together. When the longest observation is a stopped run, the mass Kaplan-Meier cannot place lies
// beyond it; it is put on that run's duration, a lower bound (the twin then errs on the short side, and says so in
// docs/twin.md). The lognormal and the quantiles describe the finished runs only.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "trunk/twin/estimate.hpp"

namespace trunk::twin {

/// From this many runs on, the twin resamples the observed durations instead of the fitted lognormal.
inline constexpr std::size_t kEmpiricalFrom = 30;

struct LognormalFit {
  Estimate median_minutes;          ///< exp(mean of the log-durations), interval from Student's t
  std::optional<Estimate> sigma;    ///< sd of the log-durations; empty with a single run
  double ks_distance = 0;           ///< sup |F_sample - F_lognormal|
  double ks_p_value = 1;            ///< conservative (the fit used the same sample)
};

enum class DurationFamily { lognormal, empirical };

/// One point of the empirical distribution the twin resamples.
struct WeightedDuration {
  double minutes = 0;
  double probability = 0;
  bool operator==(const WeightedDuration&) const = default;
};

struct DurationFit {
  std::vector<double> minutes;            ///< the usable durations of finished runs, sorted
  std::vector<WeightedDuration> empirical;  ///< Kaplan-Meier over finished and stopped runs; sums to 1
  std::optional<LognormalFit> lognormal;  ///< of the finished runs; empty without any
  std::size_t censored = 0;               ///< usable durations of stopped runs
  std::size_t ignored = 0;                ///< durations left out: not finite or not positive

  DurationFamily preferred() const noexcept {
    return minutes.size() >= kEmpiricalFrom ? DurationFamily::empirical : DurationFamily::lognormal;
  }
};

/// Fits the durations (minutes) of finished runs and of runs stopped before they ended (`stopped`, censored).
/// Never throws for odd data: an empty or unusable sample gives an empty fit.
DurationFit fit_durations(std::span<const double> finished, std::span<const double> stopped = {});

/// The p-quantile (0 <= p <= 1) of a sorted sample, with a distribution-free interval from the binomial
/// distribution of order statistics; empty for an empty sample. Throws trunk::ValidationError for p outside [0, 1].
std::optional<Estimate> estimate_quantile(std::span<const double> sorted, double p);

}  // namespace trunk::twin
