#pragma once
// The JSON text of each test case, serialised once and spliced into every page and detail reply that lists it.
//
// Why: building a 100-test page as an nlohmann DOM and dumping it cost the sandbox ~3.5-4 ms, most of a page's
// round trip on loopback. A test's JSON depends only on the history at `now` (fixed for the life of the
// Service), the organization slug and whether the failure fields are included; never on the window, page or
// caller. So it is computed once, by the very same DOM encoding as before (to_test_case + to_json + dump),
// which keeps the bytes identical by construction.
//
// Thread safety: one atomic slot per (repository, test, variant); readers never lock. Two workers that miss
// the same slot both encode it and the loser of the compare-exchange frees its copy.
// Memory: bounded by `budget_bytes` of cached text. Past the budget a fragment is encoded per request into
// the caller's scratch string and not kept (correct, just slower).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "history.hpp"

namespace trunk::sandbox {

/// Default budget: enough for ~120,000 tests of both variants at ~1 KB each.
inline constexpr std::size_t kDefaultTestJsonCacheBytes = std::size_t{256} << 20;

class TestJsonCache {
 public:
  /// `tests_per_repo[r]` is the number of tests of repository r.
  TestJsonCache(const std::vector<std::size_t>& tests_per_repo, std::size_t budget_bytes);
  ~TestJsonCache();
  TestJsonCache(const TestJsonCache&) = delete;
  TestJsonCache& operator=(const TestJsonCache&) = delete;

  /// The compact JSON of the test (exactly trunk::to_json(to_test_case(...)).dump()). The view stays valid
  /// for the cache's lifetime, or until `scratch` changes when the budget is spent.
  std::string_view get(std::size_t repo_index, std::uint32_t test_index, const RepoHistory& repo,
                       const DerivedFacts& facts, const std::string& org_url_slug, bool with_failure_fields,
                       std::string& scratch);

  std::size_t cached_bytes() const noexcept { return used_bytes_.load(std::memory_order_relaxed); }
  std::size_t budget_bytes() const noexcept { return budget_bytes_; }

 private:
  using Slots = std::vector<std::atomic<const std::string*>>;
  Slots& slots(std::size_t repo_index, bool with_failure_fields) {
    return *slots_[repo_index * 2 + (with_failure_fields ? 1 : 0)];
  }

  std::vector<std::unique_ptr<Slots>> slots_;  // [repo * 2 + variant]
  std::size_t budget_bytes_;
  std::atomic<std::size_t> used_bytes_{0};
};

/// The DOM encoding of one test (the reference the cache stores).
std::string encode_test_json(const RepoHistory& repo, const TestRecord& test, const DerivedFacts& facts,
                             const std::string& org_url_slug, bool with_failure_fields);

}  // namespace trunk::sandbox
