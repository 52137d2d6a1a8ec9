// The twin's arrival profile (trunk/twin/arrival_fit.hpp): hours of the week in UTC, exposure counted to the
// fraction of an hour, a working-hours profile recovered from a seeded Poisson process, and a flat one seen as flat.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/time.hpp"
#include "trunk/twin/arrival_fit.hpp"

namespace {

using namespace std::chrono_literals;
using trunk::Timestamp;
using trunk::twin::fit_arrivals;
using trunk::twin::hour_of_week;

const Timestamp kMonday = trunk::parse_rfc3339("2026-11-30T00:00:00Z");

// A Poisson process whose rate per hour is rate(t), by thinning one of rate `peak`.
template <class Rate>
std::vector<Timestamp> poisson_arrivals(std::uint64_t seed, Timestamp from, Timestamp until, double peak, Rate rate) {
  std::mt19937_64 dice(seed);
  std::exponential_distribution<double> gap(peak);
  std::uniform_real_distribution<double> keep(0, 1);
  std::vector<Timestamp> arrivals;
  for (Timestamp t = from;;) {
    t += std::chrono::microseconds(static_cast<std::int64_t>(gap(dice) * 3600e6));
    if (t >= until) return arrivals;
    if (keep(dice) < rate(t) / peak) arrivals.push_back(t);
  }
}

double working_hours(Timestamp t) {
  const std::size_t h = hour_of_week(t);
  const bool weekday = h < 5 * 24;
  const std::size_t hour = h % 24;
  return weekday && hour >= 9 && hour < 17 ? 6.0 : 0.5;
}

TEST(TwinArrivals, HourOfTheWeekStartsOnMondayUtc) {
  EXPECT_EQ(hour_of_week(kMonday), 0U);
  EXPECT_EQ(hour_of_week(kMonday - 30min), 167U);
  EXPECT_EQ(hour_of_week(kMonday + 24h * 3 + 11h + 59min), 3U * 24 + 11);
  EXPECT_EQ(hour_of_week(Timestamp{}), 72U);  // 1970-01-01 was a Thursday
  EXPECT_EQ(hour_of_week(Timestamp{} - 1h), 71U);
}

TEST(TwinArrivals, RecoversAWorkingHoursProfile) {
  const Timestamp until = kMonday + 24h * 42;
  const auto arrivals = poisson_arrivals(11, kMonday, until, 6.0, working_hours);
  const auto profile = fit_arrivals(arrivals, kMonday, until);
  EXPECT_EQ(profile.arrivals, arrivals.size());
  EXPECT_DOUBLE_EQ(profile.observed_hours, 42.0 * 24);
  const double mean_rate = (5 * 8 * 6.0 + (168 - 40) * 0.5) / 168;
  EXPECT_TRUE(profile.per_hour.contains(mean_rate));
  EXPECT_TRUE(profile.by_hour_of_week[11]->contains(6.0));     // Monday 11:00
  EXPECT_TRUE(profile.by_hour_of_week[5 * 24 + 11]->contains(0.5));  // Saturday 11:00
  EXPECT_TRUE(profile.by_hour_of_day[11]->contains((5 * 6.0 + 2 * 0.5) / 7));
  EXPECT_TRUE(profile.by_hour_of_day[3]->contains(0.5));
  EXPECT_LT(profile.flat_p_value, 1e-6);
}

TEST(TwinArrivals, AFlatProcessLooksFlat) {
  const Timestamp until = kMonday + 24h * 30;
  const auto arrivals = poisson_arrivals(5, kMonday, until, 2.0, [](Timestamp) { return 2.0; });
  const auto profile = fit_arrivals(arrivals, kMonday, until);
  EXPECT_TRUE(profile.per_hour.contains(2.0));
  EXPECT_GT(profile.flat_p_value, 0.01);
}

TEST(TwinArrivals, ExposureCountsFractionsOfHours) {
  const Timestamp from = kMonday + 10h + 30min;
  const std::vector<Timestamp> arrivals{kMonday + 10h + 45min, kMonday + 11h + 5min, kMonday + 12h + 10min};
  const auto profile = fit_arrivals(arrivals, from, kMonday + 12h + 30min);
  EXPECT_DOUBLE_EQ(profile.observed_hours, 2.0);
  EXPECT_DOUBLE_EQ(profile.by_hour_of_week[10]->value, 2.0);  // one arrival in half an hour
  EXPECT_DOUBLE_EQ(profile.by_hour_of_week[11]->value, 1.0);
  EXPECT_DOUBLE_EQ(profile.by_hour_of_week[12]->value, 2.0);
  EXPECT_FALSE(profile.by_hour_of_week[13].has_value());  // never observed: no rate, not a rate of 0
  EXPECT_FALSE(profile.by_hour_of_day[9].has_value());
}

TEST(TwinArrivals, ThinWindowsAndStrayArrivalsAreAnsweredNotRefused) {
  const Timestamp until = kMonday + 1h;
  const std::vector<Timestamp> stray{kMonday - 1min, until, until + 1h};  // until itself is outside [from, until)
  const auto profile = fit_arrivals(stray, kMonday, until);
  EXPECT_EQ(profile.arrivals, 0U);
  EXPECT_EQ(profile.ignored, 3U);
  EXPECT_EQ(profile.per_hour.value, 0.0);
  EXPECT_NEAR(profile.per_hour.high, 3.6889, 1e-4);
  EXPECT_EQ(profile.flat_p_value, 1.0);
}

TEST(TwinArrivals, TheWindowMustNotBeEmpty) {
  const std::vector<Timestamp> none;
  EXPECT_NO_THROW((void)fit_arrivals(none, kMonday, kMonday + 1us));
  for (const Timestamp until : {kMonday, kMonday - 1us}) {
    try {
      (void)fit_arrivals(none, kMonday, until);
      ADD_FAILURE() << "an empty window was accepted";
    } catch (const trunk::ValidationError& e) {
      EXPECT_EQ(e.violations().at(0).field, "until");
    }
  }
}

}  // namespace
