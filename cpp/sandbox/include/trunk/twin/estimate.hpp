#pragma once
// trunk::twin::Estimate: a fitted quantity of a queue's twin with its 95 % interval and the number of
// observations it rests on (docs/twin.md, "Uncertainty").
//
// Every number the twin reports travels with its interval, so that a thin history (a day of data, no failures)
// shows as a wide interval instead of false precision. A quantity with no observation at all has no Estimate
// (std::optional, empty): the calibration says so in a warning instead of inventing a value.

#include <cstddef>

namespace trunk::twin {

/// The confidence of every interval the twin reports.
inline constexpr double kConfidence = 0.95;

struct Estimate {
  double value = 0;                 ///< the point estimate
  double low = 0;                   ///< the interval's lower bound (kConfidence)
  double high = 0;                  ///< the interval's upper bound; +infinity when the data cannot bound it
  std::size_t observations = 0;     ///< how many observations it rests on

  bool contains(double x) const noexcept { return low <= x && x <= high; }
  double width() const noexcept { return high - low; }
};

}  // namespace trunk::twin
