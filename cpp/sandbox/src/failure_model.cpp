#include "failure_model.hpp"

#include <unordered_set>

#include "random.hpp"

namespace trunk::sandbox {

std::uint64_t text_hash(std::string_view text) noexcept {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ULL;
  }
  return hash;
}

bool FailureModel::broken(std::string_view repo_key, std::int64_t number) const noexcept {
  if (broken_pull_request <= 0) return false;
  const std::uint64_t die = mix64(mix64(seed ^ text_hash(repo_key)) ^ static_cast<std::uint64_t>(number));
  return unit_interval(die) < broken_pull_request;
}

FailureModel derive_failure_model(const RepoHistory& repo, const std::vector<DerivedFacts>& facts, std::uint64_t seed) {
  std::unordered_set<std::uint32_t> all, flaky_failed, breaking;
  for (std::size_t t = 0; t < repo.tests.size(); ++t) {
    const TestRecord& test = repo.tests[t];
    const Health health = t < facts.size() ? facts[t].health : Health::healthy;
    for (const Run& run : test.runs) {
      all.insert(run.pull_request);
      if (health == Health::flaky && !test.quarantined && run.failed()) flaky_failed.insert(run.pull_request);
    }
    if (health == Health::broken && !test.runs.empty()) {
      std::size_t first = test.runs.size();
      while (first > 0 && test.runs[first - 1].failed()) --first;  // start of the final failing streak
      if (first < test.runs.size()) breaking.insert(test.runs[first].pull_request);
    }
  }
  FailureModel model;
  model.seed = seed;
  if (!all.empty()) {
    const auto total = static_cast<double>(all.size());
    model.flaky_run_failure = static_cast<double>(flaky_failed.size()) / total;
    model.broken_pull_request = static_cast<double>(breaking.size()) / total;
  }
  return model;
}

}  // namespace trunk::sandbox
