#pragma once
// Why a merge queue test run fails, derived from the repository's own flaky-test history, so a repository
// whose CI is flaky has a flaky queue.
//
// The queue's required check is modelled as one representative test run of the repository's CI:
//  - flaky_run_failure = (failing runs of tests classed FLAKY and not quarantined) / (all runs of the
//    repository's tests). Quarantined tests are left out: quarantine exists so that their failures do not
//    block merges.
//  - broken_pull_request = (tests classed BROKEN) / (tests): the chance that a change is the one that broke
//    something.
// (A first version used the share of whole CI pipelines with any flaky failure: with the generated histories,
// where about a third of the tests are flaky, that is close to 1 and no pull request ever merged.)
// Both are 0 for a repository without runs. SandboxOptions may replace either (flaky_failure_rate,
// broken_pull_request_rate).
//
// The dice are counter based (mix64 of seed, queue, pull request number or run serial), so a seed gives the
// same outcomes for the same sequence of calls:
//  - a pull request is broken when unit(mix64(seed, repository, number)) < broken_pull_request; a broken pull
//    request fails every run that includes it (resubmitting it does not help, its head commit is the same);
//  - a run that includes no broken pull request fails as flaky when its own die < flaky_run_failure, so a
//    flaky failure does not repeat on the next run.

#include <cstdint>
#include <string_view>
#include <vector>

#include "history.hpp"

namespace trunk::sandbox {

struct FailureModel {
  double flaky_run_failure = 0;
  double broken_pull_request = 0;
  std::uint64_t seed = 0;

  /// Whether pull request `number` of repository `repo_key` ("host/owner/name") is genuinely broken.
  bool broken(std::string_view repo_key, std::int64_t number) const noexcept;
};

/// The rates of one repository (facts: DerivedFacts of its tests, in the same order).
FailureModel derive_failure_model(const RepoHistory& repo, const std::vector<DerivedFacts>& facts, std::uint64_t seed);

/// FNV-1a of a text: mixes names (repository, branch) into counter-based dice.
std::uint64_t text_hash(std::string_view text) noexcept;

}  // namespace trunk::sandbox
