#include "trunk/twin/intervals.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "trunk/error.hpp"

namespace trunk::twin {

namespace {
constexpr double kTail = (1 - kConfidence) / 2;
}  // namespace

double confidence_z() noexcept {
  static const double z = boost::math::quantile(boost::math::normal_distribution<double>(), 1 - kTail);
  return z;
}

std::optional<Estimate> estimate_proportion(std::size_t successes, std::size_t trials) {
  if (successes > trials) {
    throw ValidationError({{"successes", std::to_string(successes),
                           "must not exceed trials (" + std::to_string(trials) + ")"}});
  }
  if (trials == 0) return std::nullopt;
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z = confidence_z();
  const double z2 = z * z;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  // At 0 or n successes the bound on that side is exactly the observed proportion; rounding must not move it.
  const double low = successes == 0 ? 0.0 : std::max(0.0, centre - half);
  const double high = successes == trials ? 1.0 : std::min(1.0, centre + half);
  return Estimate{.value = p, .low = low, .high = high, .observations = trials};
}

std::optional<Estimate> estimate_poisson_rate(std::size_t events, double exposure) {
  if (!std::isfinite(exposure) || exposure < 0) {
    throw ValidationError({{"exposure", std::to_string(exposure), "must be a finite number >= 0"}});
  }
  if (exposure == 0) return std::nullopt;
  const double k = static_cast<double>(events);
  // Garwood: the bounds of the mean count are chi-squared quantiles with 2k and 2k + 2 degrees of freedom.
  const double low_count =
      events == 0 ? 0.0 : boost::math::quantile(boost::math::chi_squared_distribution<double>(2 * k), kTail) / 2;
  const double high_count =
      boost::math::quantile(boost::math::chi_squared_distribution<double>(2 * k + 2), 1 - kTail) / 2;
  return Estimate{.value = k / exposure, .low = low_count / exposure, .high = high_count / exposure,
                  .observations = events};
}

double confidence_t(double degrees_of_freedom) {
  return boost::math::quantile(boost::math::students_t_distribution<double>(degrees_of_freedom), 1 - kTail);
}

std::optional<Estimate> estimate_mean(const std::vector<double>& values) {
  const std::size_t n = values.size();
  if (n == 0) return std::nullopt;
  double sum = 0;
  for (const double v : values) sum += v;
  const double mean = sum / static_cast<double>(n);
  constexpr double kUnbounded = std::numeric_limits<double>::infinity();
  if (n < 2) return Estimate{.value = mean, .low = -kUnbounded, .high = kUnbounded, .observations = n};
  double squares = 0;
  for (const double v : values) squares += (v - mean) * (v - mean);
  const double dof = static_cast<double>(n - 1);
  const double half = confidence_t(dof) * std::sqrt(squares / dof / static_cast<double>(n));
  return Estimate{.value = mean, .low = mean - half, .high = mean + half, .observations = n};
}

}  // namespace trunk::twin
