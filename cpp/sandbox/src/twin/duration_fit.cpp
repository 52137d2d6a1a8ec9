#include "trunk/twin/duration_fit.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "trunk/error.hpp"
#include "trunk/twin/intervals.hpp"

namespace trunk::twin {

namespace {

constexpr double kTail = (1 - kConfidence) / 2;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Stephens' approximation of the Kolmogorov distribution's upper tail for a sample of n.
double kolmogorov_p_value(double distance, std::size_t n) {
  const double root = std::sqrt(static_cast<double>(n));
  const double lambda = (root + 0.12 + 0.11 / root) * distance;
  if (lambda < 0.3) return 1.0;  // the series converges slowly there, and the tail is 1 to many digits
  double sum = 0;
  for (int k = 1; k <= 100; ++k) {
    const double term = std::exp(-2.0 * k * k * lambda * lambda);
    sum += (k % 2 == 1 ? term : -term);
    if (term < 1e-12) break;
  }
  return std::clamp(2 * sum, 0.0, 1.0);
}

LognormalFit fit_lognormal(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  std::vector<double> logs(n);
  std::transform(sorted.begin(), sorted.end(), logs.begin(), [](double x) { return std::log(x); });
  // The median is exp of the log-durations' mean, its interval exp of the mean's t interval (one run: [0, inf)).
  const Estimate log_mean = *estimate_mean(logs);
  const double mean = log_mean.value;
  LognormalFit fit;
  fit.median_minutes = Estimate{.value = std::exp(mean), .low = std::exp(log_mean.low), .high = std::exp(log_mean.high),
                                .observations = n};
  if (n < 2) return fit;  // one run bounds neither the median nor the spread

  double squares = 0;
  for (double l : logs) squares += (l - mean) * (l - mean);
  const double dof = static_cast<double>(n - 1);
  const double variance = squares / dof;
  const double sd = std::sqrt(variance);
  const boost::math::chi_squared_distribution<double> chi(dof);
  fit.sigma = Estimate{.value = sd,
                       .low = std::sqrt(squares / boost::math::quantile(chi, 1 - kTail)),
                       .high = std::sqrt(squares / boost::math::quantile(chi, kTail)),
                       .observations = n};
  if (sd > 0) {
    const boost::math::normal_distribution<double> normal(mean, sd);
    double distance = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double f = boost::math::cdf(normal, logs[i]);
      distance = std::max({distance, static_cast<double>(i + 1) / static_cast<double>(n) - f,
                           f - static_cast<double>(i) / static_cast<double>(n)});
    }
    fit.ks_distance = distance;
    fit.ks_p_value = kolmogorov_p_value(distance, n);
  }
  return fit;
}

bool usable(double minutes) { return std::isfinite(minutes) && minutes > 0; }

// Kaplan-Meier over the sorted finished durations and the stopped ones: the probability of each distinct
// finished duration, and what is left beyond the longest observation when that one was stopped.
std::vector<WeightedDuration> kaplan_meier(const std::vector<double>& finished, std::vector<double> stopped) {
  std::sort(stopped.begin(), stopped.end());
  std::vector<WeightedDuration> atoms;
  double survival = 1;
  std::size_t at_risk = finished.size() + stopped.size();
  std::size_t f = 0;
  std::size_t c = 0;
  while (f < finished.size()) {
    // A run stopped before this duration is no longer at risk; one stopped at the same duration still is (it ran
    // at least that long).
    while (c < stopped.size() && stopped[c] < finished[f]) {
      ++c;
      --at_risk;
    }
    std::size_t ended = 0;
    const double t = finished[f];
    while (f < finished.size() && finished[f] == t) {
      ++f;
      ++ended;
    }
    const double after = survival * (1 - static_cast<double>(ended) / static_cast<double>(at_risk));
    atoms.push_back({.minutes = t, .probability = survival - after});
    survival = after;
    at_risk -= ended;
  }
  if (survival > 1e-12 && !stopped.empty()) atoms.push_back({.minutes = stopped.back(), .probability = survival});
  return atoms;
}

}  // namespace

DurationFit fit_durations(std::span<const double> finished, std::span<const double> stopped) {
  DurationFit fit;
  fit.minutes.reserve(finished.size());
  for (double m : finished) {
    if (usable(m)) {
      fit.minutes.push_back(m);
    } else {
      ++fit.ignored;
    }
  }
  std::vector<double> censored;
  for (double m : stopped) {
    if (usable(m)) {
      censored.push_back(m);
    } else {
      ++fit.ignored;
    }
  }
  fit.censored = censored.size();
  std::sort(fit.minutes.begin(), fit.minutes.end());
  fit.empirical = kaplan_meier(fit.minutes, std::move(censored));
  if (!fit.minutes.empty()) fit.lognormal = fit_lognormal(fit.minutes);
  return fit;
}

std::optional<Estimate> estimate_quantile(std::span<const double> sorted, double p) {
  if (!(p >= 0 && p <= 1)) throw ValidationError({{"p", std::to_string(p), "must be between 0 and 1"}});
  const std::size_t n = sorted.size();
  if (n == 0) return std::nullopt;
  // The point: the order statistic at rank ceil(n p) (1-based), the sample's own value, never an interpolation.
  const auto rank = [&](double r) { return std::min(static_cast<std::size_t>(std::max(r, 0.0)), n - 1); };
  const double at = sorted[rank(std::ceil(static_cast<double>(n) * p) - 1)];
  // The number of sample values below the true quantile is Binomial(n, p): its central interval gives the
  // ranks that bracket it. Outside the sample's ranks the bound is unknown (0 or +infinity).
  const boost::math::binomial_distribution<double> below(static_cast<double>(n), p);
  const double low_rank = boost::math::quantile(below, kTail);
  const double high_rank = boost::math::quantile(boost::math::complement(below, kTail));
  const double low = low_rank < 1 ? 0.0 : sorted[rank(low_rank - 1)];
  const double high = high_rank >= static_cast<double>(n) ? kInfinity : sorted[rank(high_rank)];
  return Estimate{.value = at, .low = std::min(low, at), .high = std::max(high, at), .observations = n};
}

}  // namespace trunk::twin
