#include "encoded_tests.hpp"

#include "trunk/codec.hpp"

namespace trunk::sandbox {

std::string encode_test_json(const RepoHistory& repo, const TestRecord& test, const DerivedFacts& facts,
                             const std::string& org_url_slug, bool with_failure_fields) {
  // json.dump(), not dump_json(): invalid UTF-8 in a loaded data file must fail the same way as before
  // (nlohmann's type_error, which the service answers with 500).
  return trunk::to_json(to_test_case(repo, test, facts, org_url_slug, with_failure_fields)).dump();
}

TestJsonCache::TestJsonCache(const std::vector<std::size_t>& tests_per_repo, std::size_t budget_bytes)
    : budget_bytes_(budget_bytes) {
  for (std::size_t count : tests_per_repo) {
    for (int variant = 0; variant < 2; ++variant) slots_.push_back(std::make_unique<Slots>(count));
  }
}

TestJsonCache::~TestJsonCache() {
  for (auto& slots : slots_) {
    for (auto& slot : *slots) delete slot.load(std::memory_order_relaxed);
  }
}

std::string_view TestJsonCache::get(std::size_t repo_index, std::uint32_t test_index, const RepoHistory& repo,
                                     const DerivedFacts& facts, const std::string& org_url_slug,
                                     bool with_failure_fields, std::string& scratch) {
  std::atomic<const std::string*>& slot = slots(repo_index, with_failure_fields)[test_index];
  if (const std::string* cached = slot.load(std::memory_order_acquire)) return *cached;

  std::string text = encode_test_json(repo, repo.tests[test_index], facts, org_url_slug, with_failure_fields);
  // Reserve the bytes before publishing, so concurrent misses cannot overshoot the budget together.
  const std::size_t size = text.size();
  std::size_t used = used_bytes_.load(std::memory_order_relaxed);
  do {
    if (used + size > budget_bytes_) {
      scratch = std::move(text);
      return scratch;
    }
  } while (!used_bytes_.compare_exchange_weak(used, used + size, std::memory_order_relaxed));

  auto owned = std::make_unique<const std::string>(std::move(text));
  const std::string* expected = nullptr;
  if (slot.compare_exchange_strong(expected, owned.get(), std::memory_order_acq_rel, std::memory_order_acquire)) {
    return *owned.release();
  }
  // Another worker published the same fragment first: give our reservation back and use theirs.
  used_bytes_.fetch_sub(size, std::memory_order_relaxed);
  return *expected;
}

}  // namespace trunk::sandbox
