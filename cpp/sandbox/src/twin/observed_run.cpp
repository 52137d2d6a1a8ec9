#include "trunk/twin/observed_run.hpp"

#include <algorithm>
#include <unordered_map>

namespace trunk::twin {

ObservedRuns observed_runs(std::span<const TestingResult> results) {
  ObservedRuns observed;
  std::unordered_map<std::string, std::size_t> by_id;
  for (const TestingResult& result : results) {
    if (!result.pull_request_number || !result.ended_at || !result.testing_duration_ms) {
      ++observed.ignored;
      continue;
    }
    const double minutes = static_cast<double>(*result.testing_duration_ms) / 60'000.0;
    const std::string id = result.verification_run_id.value_or("");
    const auto known = id.empty() ? by_id.end() : by_id.find(id);
    if (known == by_id.end()) {
      if (!id.empty()) by_id.emplace(id, observed.runs.size());
      observed.runs.push_back({.id = id,
                               .pull_requests = {*result.pull_request_number},
                               .outcome = result.outcome.value_or(TestingOutcome::interrupted),
                               .minutes = minutes,
                               .bisection = result.is_bisection.value_or(false),
                               .ended_at = *result.ended_at});
      continue;
    }
    ObservedRun& run = observed.runs[known->second];
    run.pull_requests.push_back(*result.pull_request_number);
    run.minutes = std::max(run.minutes, minutes);
    run.ended_at = std::max(run.ended_at, *result.ended_at);
  }
  return observed;
}

}  // namespace trunk::twin
