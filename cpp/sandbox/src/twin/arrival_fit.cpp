#include "trunk/twin/arrival_fit.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <chrono>
#include <string>

#include "trunk/error.hpp"
#include "trunk/twin/intervals.hpp"

namespace trunk::twin {

namespace {

using std::chrono::hours;

double hours_between(Timestamp from, Timestamp until) {
  return std::chrono::duration<double, std::ratio<3600>>(until - from).count();
}

// How many hours of each hour of the week [from, until) covers, partial hours at both ends included.
std::array<double, kHoursPerWeek> exposure_by_hour_of_week(Timestamp from, Timestamp until) {
  std::array<double, kHoursPerWeek> exposure{};
  const auto whole_weeks = static_cast<double>((until - from) / std::chrono::weeks(1));
  for (double& e : exposure) e = whole_weeks;
  Timestamp at = from + std::chrono::duration_cast<Timestamp::duration>(std::chrono::weeks(1)) *
                            static_cast<std::int64_t>(whole_weeks);
  while (at < until) {
    const Timestamp hour_end = std::chrono::floor<hours>(at) + hours(1);
    const Timestamp end = std::min(hour_end, until);
    exposure[hour_of_week(at)] += hours_between(at, end);
    at = end;
  }
  return exposure;
}

}  // namespace

std::size_t hour_of_week(Timestamp t) noexcept {
  // 1970-01-01 was a Thursday: hour 0 of the epoch is hour 72 of its week.
  const auto since_epoch = std::chrono::floor<hours>(t).time_since_epoch().count();
  const auto week = static_cast<std::int64_t>(kHoursPerWeek);
  return static_cast<std::size_t>((((since_epoch + 72) % week) + week) % week);
}

ArrivalProfile fit_arrivals(std::span<const Timestamp> arrivals, Timestamp from, Timestamp until) {
  if (until <= from) {
    throw ValidationError({{"until", format_rfc3339(until), "must be after from (" + format_rfc3339(from) + ")"}});
  }
  ArrivalProfile profile;
  profile.observed_hours = hours_between(from, until);
  std::array<std::size_t, kHoursPerWeek> counts{};
  for (Timestamp t : arrivals) {
    if (t < from || t >= until) {
      ++profile.ignored;
      continue;
    }
    ++counts[hour_of_week(t)];
    ++profile.arrivals;
  }
  profile.per_hour = *estimate_poisson_rate(profile.arrivals, profile.observed_hours);

  const auto exposure = exposure_by_hour_of_week(from, until);
  std::array<std::size_t, 24> day_counts{};
  std::array<double, 24> day_exposure{};
  for (std::size_t h = 0; h < kHoursPerWeek; ++h) {
    profile.by_hour_of_week[h] = estimate_poisson_rate(counts[h], exposure[h]);
    day_counts[h % 24] += counts[h];
    day_exposure[h % 24] += exposure[h];
  }
  // Pearson's chi-squared against the flat rate, over the hours of the day the window covers.
  double statistic = 0;
  int covered = 0;
  for (std::size_t h = 0; h < 24; ++h) {
    profile.by_hour_of_day[h] = estimate_poisson_rate(day_counts[h], day_exposure[h]);
    const double expected = profile.per_hour.value * day_exposure[h];
    if (day_exposure[h] <= 0) continue;
    ++covered;
    if (expected > 0) {
      const double d = static_cast<double>(day_counts[h]) - expected;
      statistic += d * d / expected;
    }
  }
  if (covered >= 2 && profile.arrivals > 0) {
    const boost::math::chi_squared_distribution<double> chi(covered - 1);
    profile.flat_p_value = boost::math::cdf(boost::math::complement(chi, statistic));
  }
  // Each day of the week against the hour-of-day profile (whole days pooled: an hour of the week is seen too few
  // times for its own cell to test).
  std::array<std::size_t, 7> week_counts{};
  std::array<double, 7> week_expected{};
  for (std::size_t h = 0; h < kHoursPerWeek; ++h) {
    week_counts[h / 24] += counts[h];
    if (day_exposure[h % 24] > 0) {
      week_expected[h / 24] += static_cast<double>(day_counts[h % 24]) / day_exposure[h % 24] * exposure[h];
    }
  }
  double week_statistic = 0;
  int days_covered = 0;
  for (std::size_t d = 0; d < 7; ++d) {
    if (week_expected[d] <= 0) continue;
    ++days_covered;
    const double diff = static_cast<double>(week_counts[d]) - week_expected[d];
    week_statistic += diff * diff / week_expected[d];
  }
  if (days_covered >= 2 && profile.arrivals > 0) {
    const boost::math::chi_squared_distribution<double> chi(days_covered - 1);
    profile.days_alike_p_value = boost::math::cdf(boost::math::complement(chi, week_statistic));
  }
  return profile;
}

}  // namespace trunk::twin
