// The sandbox's v2 test collections (docs/sandbox.md#flaky-tests-in-v2): one per repository, holding its tests
// (quarantine on, automatic quarantine on, as v1's quarantined tests say), and those created through v2, empty
// until an upload the sandbox never receives.
#include <algorithm>

#include "generator.hpp"
#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

/// The text without the spaces at either end (the service trims a collection's name).
std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

}  // namespace

trunk::TestCollection V2Service::collection_of(const trunk::Repo& repo) const {
  trunk::TestCollection out;
  out.id = test_collection_id(repo.to_string());
  out.name = repo.owner + "/" + repo.name;
  std::int64_t count = 0;
  tests_.for_each_test([&](const TestLedger::Entry& entry) { count += entry.repo->repo == repo ? 1 : 0; });
  out.test_case_count = count;
  out.quarantine_enabled = true;
  out.auto_quarantine_enabled = true;
  // Made when the history's first day began.
  out.created_at = out.updated_at = tests_.tests_now() - std::chrono::hours(24 * kHistoryDays);
  return out;
}

std::vector<trunk::TestCollection> V2Service::collections() {
  std::vector<trunk::TestCollection> all;
  {
    std::lock_guard lock(mutex_);
    all.assign(created_collections_.rbegin(), created_collections_.rend());
  }
  for (const trunk::Repo& repo : repos_) all.push_back(collection_of(repo));
  return all;
}

template <>
Reply V2Service::answer<trunk::op::ListTestCollections>(const trunk::ListTestCollectionsRequest& request) {
  const std::string wanted = lower(request.q.value_or(""));
  std::vector<trunk::TestCollection> selected;
  for (trunk::TestCollection& collection : collections()) {
    if (lower(collection.name.value_or("")).find(wanted) != std::string::npos) selected.push_back(std::move(collection));
  }
  return v2::page_reply(v2::page_of<trunk::TestCollectionList>(std::move(selected), request, "collections\n" + wanted));
}

template <>
Reply V2Service::answer<trunk::op::CreateTestCollection>(const trunk::CreateTestCollectionRequest& request) {
  const std::string name = trimmed(request.name);
  if (name.empty()) return v2_error(400, "VALIDATION_FAILED", "name: must not be blank");
  trunk::TestCollection out;
  out.name = name;
  out.description = request.description;
  out.test_case_count = 0;
  out.quarantine_enabled = false;
  out.auto_quarantine_enabled = false;
  out.created_at = out.updated_at = clock_();
  {
    std::lock_guard lock(mutex_);
    out.id = short_id_of("test collection\ncreated\n" + std::to_string(created_collections_.size()) + "\n" + name);
    created_collections_.push_back(out);
  }
  return json_reply(v2::answer_json(out), 201);
}

template <>
Reply V2Service::answer<trunk::op::GetTestCollection>(const trunk::TestCollectionRef& request) {
  for (const trunk::TestCollection& collection : collections()) {
    if (collection.id == request.id) return json_reply(v2::answer_json(collection));
  }
  return v2_error(404, "TEST_COLLECTION_NOT_FOUND", "no test collection has the id " + request.id);
}

}  // namespace trunk::sandbox
