#pragma once
// Interval estimates of the two kinds of count a queue's history holds (docs/twin.md, "Uncertainty"):
//  - a proportion (broken pull requests among those tested, flaky failures among runs): the Wilson score
//    interval, which stays inside [0, 1] and is honest at 0 or n successes, where the textbook normal interval
//    collapses to a point ("no failure in 12 runs" is not "a flake rate of exactly 0");
//  - a Poisson rate (arrivals per hour over an exposure): the exact (Garwood) interval from chi-squared
//    quantiles, which is defined for 0 events too;
//  - a mean (batch sizes; a lognormal fit's log-durations): Student's t interval, unbounded from one value.
// Pure functions: no state, no I/O.

#include <cstddef>
#include <optional>
#include <vector>

#include "trunk/twin/estimate.hpp"

namespace trunk::twin {

/// successes out of trials; empty when trials is 0. Throws trunk::ValidationError when successes > trials.
std::optional<Estimate> estimate_proportion(std::size_t successes, std::size_t trials);

/// events over an exposure (in any unit: the rate is per that unit); empty when the exposure is 0.
/// Throws trunk::ValidationError for a negative or non-finite exposure.
std::optional<Estimate> estimate_poisson_rate(std::size_t events, double exposure);

/// The mean of `values` with its t interval; empty when there is none; from one value, (-inf, inf).
std::optional<Estimate> estimate_mean(const std::vector<double>& values);

/// The two-sided standard normal quantile of kConfidence (1.95996...).
double confidence_z() noexcept;

/// The two-sided Student's t quantile of kConfidence: for a spread estimated from few samples.
double confidence_t(double degrees_of_freedom);

}  // namespace trunk::twin
