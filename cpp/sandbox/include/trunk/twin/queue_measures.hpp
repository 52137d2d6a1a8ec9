#pragma once
// trunk::twin::QueueRecord and measure(): what a queue did over a window, measured one way whether the queue was
// the team's (read from its history through v2) or the twin's (simulated), so that a backtest compares like with
// like and the fit of the broken and flaky rates matches the simulation to the history on the same terms
// (docs/twin.md, "Measures").
//
// The measures:
//  - time in queue: submission to merge of the pull requests submitted inside the window, p50 and p90 by nearest
//    rank; one still open when the record ends counts as slower than any that merged (+infinity, at the top);
//  - merged per day: merges inside the window over its length;
//  - runs per merged: test runs that ended inside the window (bisection and stopped ones included: each cost CI)
//    over merges inside it;
//  - failed entries: of the window's submissions that concluded merged or failed, the share that failed;
//  - failed clean runs: of the finished, non-bisection runs that ended inside the window and whose pull requests
//    all merged in the end, the share that failed (not the pull requests' fault: flakiness, or a broken pull
//    request ahead of the run in a predictive queue).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "trunk/time.hpp"

namespace trunk::twin {

enum class EntryEnd { open, merged, failed, cancelled };

struct EntryRecord {
  std::int64_t number = 0;
  Timestamp submitted_at;
  EntryEnd end = EntryEnd::open;
  std::optional<Timestamp> concluded_at;  ///< when it merged, failed or was cancelled
};

struct RunRecord {
  Timestamp ended_at;
  bool bisection = false;
  bool finished = false;  ///< passed or failed (not stopped)
  bool failed = false;
  std::vector<std::int64_t> pull_requests;
};

struct QueueRecord {
  std::vector<EntryRecord> entries;
  std::vector<RunRecord> runs;
};

struct QueueMeasures {
  double minutes_in_queue_p50 = 0;
  double minutes_in_queue_p90 = 0;
  double merged_per_day = 0;
  double runs_per_merged = 0;  ///< +infinity when nothing merged
  std::size_t submitted = 0, merged = 0, runs = 0;
  std::size_t concluded = 0, failed = 0;           ///< failed entries: failed out of concluded (merged or failed)
  std::size_t clean_runs = 0, clean_failed = 0;    ///< failed clean runs: clean_failed out of clean_runs

  double failed_share() const noexcept { return concluded == 0 ? 0 : double(failed) / double(concluded); }
  double clean_failed_share() const noexcept {
    return clean_runs == 0 ? 0 : double(clean_failed) / double(clean_runs);
  }
};

/// Measures `record` over the window [from, to) (see above).
QueueMeasures measure(const QueueRecord& record, Timestamp from, Timestamp to);

/// The q-quantile of `values` by nearest rank (an infinity stays an infinity rather than being averaged with a
/// finite neighbour); +infinity for none.
double nearest_rank(std::vector<double> values, double q);

}  // namespace trunk::twin
