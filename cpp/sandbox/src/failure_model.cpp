#include "failure_model.hpp"

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
  std::uint64_t runs = 0, flaky_failures = 0, broken_tests = 0;
  for (std::size_t t = 0; t < repo.tests.size(); ++t) {
    const TestRecord& test = repo.tests[t];
    const Health health = t < facts.size() ? facts[t].health : Health::healthy;
    runs += test.runs.size();
    if (health == Health::flaky && !test.quarantined) {
      for (const Run& run : test.runs) flaky_failures += run.failed() ? 1 : 0;
    }
    if (health == Health::broken) ++broken_tests;
  }
  FailureModel model;
  model.seed = seed;
  if (runs > 0) model.flaky_run_failure = static_cast<double>(flaky_failures) / static_cast<double>(runs);
  if (!repo.tests.empty()) {
    model.broken_pull_request = static_cast<double>(broken_tests) / static_cast<double>(repo.tests.size());
  }
  return model;
}

}  // namespace trunk::sandbox
