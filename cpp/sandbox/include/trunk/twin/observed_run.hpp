#pragma once
// trunk::twin::observed_runs: the test runs of a queue's history, rebuilt from v2's testing results
// (docs/twin.md, "From the history").
//
// v2 answers one testing result per pull request per run; a batch of four is four results with the same
// verificationRunId, so the twin regroups them: one run, its pull requests, how it ended and how long it took
// (the longest of its results: they ended together). A result without a verificationRunId is a run of its own.
// Results missing what the twin needs (the pull request, when it ended, how long it tested) are counted in
// `ignored`, never guessed.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trunk/testing_result.hpp"
#include "trunk/time.hpp"

namespace trunk::twin {

struct ObservedRun {
  std::string id;                            ///< the verification run's id; "" when the service gave none
  std::vector<std::int64_t> pull_requests;   ///< in the order their results came
  /// An unknown value is kept as sent; a result without one counts as interrupted (its duration a lower bound).
  OpenEnum<TestingOutcome> outcome = TestingOutcome::interrupted;
  double minutes = 0;                        ///< how long it tested
  bool bisection = false;
  Timestamp ended_at;

  /// Whether its duration is a whole run's (it passed or failed), not a lower bound (stopped before the end).
  bool finished() const noexcept { return outcome == TestingOutcome::passed || outcome == TestingOutcome::failed; }
};

struct ObservedRuns {
  std::vector<ObservedRun> runs;   ///< in the order their first results came
  std::size_t ignored = 0;         ///< results without a pull request number, an end or a duration
};

ObservedRuns observed_runs(std::span<const TestingResult> results);

}  // namespace trunk::twin
