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

struct DurationFit {
  std::vector<double> minutes;          ///< the usable durations, sorted
  std::optional<LognormalFit> lognormal;  ///< empty without any usable duration
  std::size_t ignored = 0;              ///< durations left out: not finite or not positive

  DurationFamily preferred() const noexcept {
    return minutes.size() >= kEmpiricalFrom ? DurationFamily::empirical : DurationFamily::lognormal;
  }
};

/// Fits the durations (minutes). Never throws for odd data: an empty or unusable sample gives an empty fit.
DurationFit fit_durations(std::span<const double> minutes);

/// The p-quantile (0 <= p <= 1) of a sorted sample, with a distribution-free interval from the binomial
/// distribution of order statistics; empty for an empty sample. Throws trunk::ValidationError for p outside [0, 1].
std::optional<Estimate> estimate_quantile(std::span<const double> sorted, double p);

}  // namespace trunk::twin
