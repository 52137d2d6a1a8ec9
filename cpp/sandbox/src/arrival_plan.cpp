#include "arrival_plan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>

#include "random.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/twin/arrival_fit.hpp"

namespace trunk::sandbox {

namespace {

using std::chrono::hours;
using std::chrono::microseconds;

constexpr double kMicrosecondsPerHour = 3.6e9;
/// The longest a draw walks the clock looking for its arrival (ten years of hours): past it, the rate is as
/// good as zero and no arrival comes.
constexpr std::size_t kMaxHoursWalked = 24 * 366 * 10;
/// Salts that keep the gap's die apart from the targets' and the priority's dice of the same serial.
constexpr std::uint64_t kGapDie = 0x6172726976616c31ULL;
constexpr std::uint64_t kTargetDie = 0x7461726765747331ULL;
constexpr std::uint64_t kPriorityDie = 0x7072696f72697431ULL;
/// What a sum of chances may exceed 1 by, for the rounding of shares written as decimals.
constexpr double kChanceSumSlack = 1e-9;

std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// NaN fails every comparison, so it is refused with the rest.
void check_rate(double rate, const std::string& field, std::vector<trunk::Violation>& out) {
  if (!(rate >= 0 && rate <= kMaxArrivalsPerHour)) {
    out.push_back({field, number_text(rate), "must be from 0 to " + number_text(kMaxArrivalsPerHour) + " per hour"});
  }
}

/// The rate in force at `t` (per hour).
double rate_at(const ArrivalProcess& process, trunk::Timestamp t) {
  if (const auto* poisson = std::get_if<PoissonArrivals>(&process)) return poisson->per_hour;
  const auto& profile = std::get<HourlyArrivals>(process).per_hour;
  const std::size_t hour = trunk::twin::hour_of_week(t);
  return profile.size() == 24 ? profile[hour % 24] : profile[hour];
}

trunk::Timestamp after_hours(trunk::Timestamp t, double hours_later) {
  const auto later = t + microseconds(static_cast<std::int64_t>(std::llround(hours_later * kMicrosecondsPerHour)));
  return later > t ? later : t + microseconds(1);  // strictly after: one arrival per instant
}

}  // namespace

std::vector<trunk::Violation> arrivals_violations(const Arrivals& arrivals, const std::string& field) {
  std::vector<trunk::Violation> out;
  if (const auto* poisson = std::get_if<PoissonArrivals>(&arrivals.process)) {
    check_rate(poisson->per_hour, field + ".per_hour", out);
  } else if (const auto* hourly = std::get_if<HourlyArrivals>(&arrivals.process)) {
    const auto& profile = hourly->per_hour;
    if (profile.size() != 24 && profile.size() != 168) {
      out.push_back({field + ".per_hour", std::to_string(profile.size()) + " rates",
                     "must hold 24 rates (each day alike) or 168 (Monday 00:00 UTC first)"});
    }
    for (std::size_t i = 0; i < profile.size(); ++i) check_rate(profile[i], field + ".per_hour[" + std::to_string(i) + "]", out);
  } else {
    const auto& times = std::get<ScheduledArrivals>(arrivals.process).at;
    if (times.size() > kMaxScheduledArrivals) {
      out.push_back({field + ".at", std::to_string(times.size()) + " times",
                     "must hold at most " + std::to_string(kMaxScheduledArrivals) + " times"});
    }
  }
  if (arrivals.targets.size() > kMaxArrivalTargets) {
    out.push_back({field + ".targets", std::to_string(arrivals.targets.size()) + " targets",
                   "must hold at most " + std::to_string(kMaxArrivalTargets) + " targets"});
  }
  for (std::size_t i = 0; i < arrivals.targets.size(); ++i) {
    const TargetChance& chance = arrivals.targets[i];
    const std::string where = field + ".targets[" + std::to_string(i) + "]";
    if (chance.target.empty()) out.push_back({where + ".target", "\"\"", "must not be empty"});
    if (!(chance.probability >= 0 && chance.probability <= 1)) {
      out.push_back({where + ".probability", number_text(chance.probability), "must be from 0 to 1"});
    }
  }
  if (arrivals.priorities.size() > kMaxArrivalPriorities) {
    out.push_back({field + ".priorities", std::to_string(arrivals.priorities.size()) + " priorities",
                   "must hold at most " + std::to_string(kMaxArrivalPriorities) + " priorities"});
  }
  double chances = 0;
  std::set<std::int64_t> values;
  for (std::size_t i = 0; i < arrivals.priorities.size(); ++i) {
    const PriorityChance& chance = arrivals.priorities[i];
    const std::string where = field + ".priorities[" + std::to_string(i) + "]";
    // The bounds of a submission's priority (submitPullRequest's), since the queue submits the arrival so.
    if (chance.value < trunk::kPriorityRules.min || chance.value > trunk::kPriorityRules.max) {
      out.push_back({where + ".value", std::to_string(chance.value),
                     "must be a priority from " + std::to_string(trunk::kPriorityRules.min) + " to " +
                         std::to_string(trunk::kPriorityRules.max)});
    } else if (!values.insert(chance.value).second) {
      out.push_back({where + ".value", std::to_string(chance.value), "must not be given twice"});
    }
    if (!(chance.probability >= 0 && chance.probability <= 1)) {
      out.push_back({where + ".probability", number_text(chance.probability), "must be from 0 to 1"});
    } else {
      chances += chance.probability;
    }
  }
  if (chances > 1 + kChanceSumSlack) {
    out.push_back({field + ".priorities", "chances summing to " + number_text(chances),
                   "must sum to 1 at most (one priority per pull request)"});
  }
  if (arrivals.first_number < 1) {
    out.push_back({field + ".first_number", std::to_string(arrivals.first_number),
                   "must be a pull request number, at least 1"});
  }
  return out;
}

ArrivalPlan::ArrivalPlan(Arrivals arrivals, std::uint64_t dice, trunk::Timestamp from)
    : arrivals_(std::move(arrivals)), dice_(dice), number_(arrivals_.first_number) {
  if (const auto* scheduled = std::get_if<ScheduledArrivals>(&arrivals_.process)) {
    for (const trunk::Timestamp t : scheduled->at) {
      if (t > from) schedule_.push_back(t);
    }
    std::sort(schedule_.begin(), schedule_.end(), std::greater<>());  // the next one at the back
  }
  next_ = following(from, 0);
}

std::optional<trunk::Timestamp> ArrivalPlan::following(trunk::Timestamp after, std::uint64_t serial) const {
  if (std::holds_alternative<ScheduledArrivals>(arrivals_.process)) {
    if (schedule_.empty()) return std::nullopt;
    return schedule_.back();
  }
  // Unit-mean exponential gap, spent against the rate's integral hour by hour.
  double gap = -std::log1p(-unit_interval(mix64(dice_ ^ kGapDie ^ mix64(serial))));
  trunk::Timestamp at = after;
  for (std::size_t walked = 0; walked < kMaxHoursWalked; ++walked) {
    const double rate = rate_at(arrivals_.process, at);
    const trunk::Timestamp hour_end = std::chrono::floor<hours>(at) + hours(1);
    const double span = std::chrono::duration<double>(hour_end - at).count() / 3600.0;  // hours
    if (rate * span >= gap) return after_hours(at, gap / rate);
    gap -= rate * span;
    at = hour_end;
    if (std::holds_alternative<PoissonArrivals>(arrivals_.process) && rate == 0) return std::nullopt;
  }
  return std::nullopt;
}

ArrivalPlan::Arrival ArrivalPlan::take() {
  Arrival arrival;
  arrival.all_targets = arrivals_.targets.empty();
  for (std::size_t j = 0; j < arrivals_.targets.size(); ++j) {
    const double die = unit_interval(mix64(mix64(dice_ ^ kTargetDie ^ mix64(serial_)) + j));
    if (die < arrivals_.targets[j].probability) arrival.targets.push_back(arrivals_.targets[j].target);
  }
  if (!arrivals_.priorities.empty()) {
    double die = unit_interval(mix64(dice_ ^ kPriorityDie ^ mix64(serial_)));
    for (const PriorityChance& chance : arrivals_.priorities) {
      if (die < chance.probability) {
        arrival.priority = chance.value;
        break;
      }
      die -= chance.probability;
    }
  }
  const trunk::Timestamp at = *next_;
  ++serial_;
  if (!schedule_.empty()) schedule_.pop_back();
  next_ = following(at, serial_);
  return arrival;
}

}  // namespace trunk::sandbox
