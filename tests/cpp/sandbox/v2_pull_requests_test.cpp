// v2's pull requests and repositories end to end: trunk::Client's v2 calls against the sandbox, which serves them
// over the same queue simulations as v1 (a pull request submitted through v1 is found through v2 and the reverse),
// on the virtual clock so every state is reached deterministically (docs/reference/v2.md, docs/sandbox.md#v2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sandbox_support.hpp"
#include "v2_fixture.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "v2_service.hpp"

namespace sandbox_test {
namespace {

using trunk::QueueEntryState;

class PullRequestsV2 : public V2Fixture {
 protected:
  trunk::PullRequestV2 submit(std::int64_t number) {
    trunk::SubmitPullRequestRequestV2 request;
    request.id = main_id();
    request.number = number;
    return client_->submit_to_merge_queue(request);
  }
  trunk::PullRequestRefV2 ref(std::int64_t number) const {
    trunk::PullRequestRefV2 r;
    r.id = pr_id(number);
    return r;
  }
  trunk::SubmittedPullRequest v1(std::int64_t number) {
    trunk::GetSubmittedPullRequestRequest request;
    request.repo = repo();
    request.target_branch = "main";
    request.pr.number = number;
    return client_->get_submitted_pull_request(request);
  }
  QueueEntryState state(std::int64_t number) {
    return *client_->get_pull_request(ref(number)).queue_entry->state->known();
  }
  template <typename Call>
  std::string error_code(Call&& call, int status) {
    try {
      call();
    } catch (const trunk::ApiError& error) {
      EXPECT_EQ(error.status_code(), status) << error.what();
      EXPECT_FALSE(error.request_id().empty());
      return error.code();
    }
    ADD_FAILURE() << "no error";
    return "";
  }

};

TEST_F(PullRequestsV2, ASubmissionThroughV2ReadsThroughV1AndTheReverse) {
  trunk::SubmitPullRequestRequestV2 request;
  request.id = main_id();
  request.number = 7;
  request.priority_name = "high";
  request.allow_batching = false;
  const trunk::PullRequestV2 submitted = client_->submit_to_merge_queue(request);
  EXPECT_EQ(submitted.id, pr_id(7));
  EXPECT_EQ(submitted.repository_id, repo_id());
  EXPECT_EQ(submitted.number, 7);
  EXPECT_EQ(submitted.base_branch, "main");
  EXPECT_EQ(submitted.is_currently_submitted_to_queue, true);
  ASSERT_TRUE(submitted.queue_entry.has_value());
  const trunk::QueueEntry& entry = *submitted.queue_entry;
  EXPECT_EQ(*entry.state, QueueEntryState::not_ready);
  EXPECT_EQ(entry.merge_queue_id, main_id());
  EXPECT_EQ(entry.priority_value, 10);
  EXPECT_EQ(entry.priority_name, "high");
  EXPECT_EQ(entry.allow_batching, false);
  EXPECT_EQ(entry.skips_the_line, false);
  EXPECT_EQ(*entry.readiness->mergeability, trunk::Mergeability::in_progress);

  const trunk::SubmittedPullRequest seen_by_v1 = v1(7);
  EXPECT_EQ(seen_by_v1.id, entry.id);  // the queue entry is v1's submission
  EXPECT_EQ(seen_by_v1.priority_value, 10);
  EXPECT_EQ(seen_by_v1.pr_sha, submitted.sha);

  trunk::SubmitPullRequestRequest through_v1;
  through_v1.repo = repo();
  through_v1.target_branch = "main";
  through_v1.pr.number = 8;
  client_->submit_pull_request(through_v1);
  const trunk::PullRequestV2 seen_by_v2 = client_->get_pull_request(ref(8));
  EXPECT_EQ(seen_by_v2.number, 8);
  EXPECT_EQ(seen_by_v2.queue_entry->used_default_priority_name, "medium");

  sandbox_->advance(std::chrono::minutes(2));  // mergeable after a minute: pending, then testing
  EXPECT_EQ(state(7), QueueEntryState::testing);
  EXPECT_EQ(*client_->get_pull_request(ref(7)).queue_entry->readiness->mergeability, trunk::Mergeability::mergeable);
  EXPECT_EQ(*v1(7).state, trunk::PullRequestState::testing);
}

TEST_F(PullRequestsV2, ResolvingByNumberOrBranchFindsEachKnownPullRequestOnce) {
  submit(3);
  submit(5);
  trunk::ResolvePullRequestsRequest request;
  request.repository_id = repo_id();
  request.number = std::vector<std::int64_t>{5, 3, 5, 404};  // 404 was never submitted: left out, no error
  const trunk::PullRequestList found = client_->resolve_pull_requests(request);
  ASSERT_EQ(found.data.size(), 2U);
  EXPECT_EQ(found.data[0].number, 5);
  EXPECT_EQ(found.data[1].number, 3);
  EXPECT_EQ(found.has_more, false);

  trunk::ResolvePullRequestsRequest by_branch;
  by_branch.repository_id = repo_id();
  by_branch.branch = "pr-3";
  by_branch.base_branch = "main";
  const trunk::PullRequestList branch = client_->resolve_pull_requests(by_branch);
  ASSERT_EQ(branch.data.size(), 1U);
  EXPECT_EQ(branch.data[0].id, pr_id(3));
  by_branch.base_branch = "release";
  EXPECT_TRUE(client_->resolve_pull_requests(by_branch).data.empty());

  // The request's own rules, before anything is sent.
  request.branch = "pr-3";  // not with number
  EXPECT_THROW(client_->resolve_pull_requests(request), trunk::ValidationError);
  request.branch.reset();
  request.number = std::vector<std::int64_t>(50, 1);
  EXPECT_NO_THROW(client_->resolve_pull_requests(request));
  request.number = std::vector<std::int64_t>(51, 1);
  EXPECT_THROW(client_->resolve_pull_requests(request), trunk::ValidationError);
  request.number = std::vector<std::int64_t>{0};
  EXPECT_THROW(client_->resolve_pull_requests(request), trunk::ValidationError);
  request.number = std::vector<std::int64_t>{10000001};
  EXPECT_THROW(client_->resolve_pull_requests(request), trunk::ValidationError);
  trunk::ResolvePullRequestsRequest base_alone;
  base_alone.repository_id = repo_id();
  base_alone.base_branch = "main";
  EXPECT_THROW(client_->resolve_pull_requests(base_alone), trunk::ValidationError);
}

TEST_F(PullRequestsV2, AResubmissionConflictsAndADequeuedPullRequestCannotBeDequeuedAgain) {
  submit(11);
  EXPECT_EQ(error_code([&] { submit(11); }, 409), "PR_ALREADY_ENQUEUED");
  const trunk::PullRequestV2 dequeued = client_->dequeue_pull_request(ref(11));
  EXPECT_EQ(*dequeued.queue_entry->state, QueueEntryState::cancelled);
  EXPECT_EQ(dequeued.is_currently_submitted_to_queue, false);
  EXPECT_EQ(*v1(11).state, trunk::PullRequestState::cancelled);
  EXPECT_EQ(error_code([&] { client_->dequeue_pull_request(ref(11)); }, 409), "PR_NOT_IN_ACTIVE_STATE");
  EXPECT_EQ(error_code([&] { client_->get_pull_request(ref(12)); }, 404), "PR_NOT_FOUND");
  // Submitted again: a new queue entry of the same pull request.
  const trunk::PullRequestV2 again = submit(11);
  EXPECT_EQ(again.id, pr_id(11));
  EXPECT_NE(again.queue_entry->id, dequeued.queue_entry->id);
  EXPECT_EQ(*again.queue_entry->state, QueueEntryState::not_ready);
}

TEST_F(PullRequestsV2, APullRequestWhoseQueuesWereDeletedIsNotFoundAgain) {
  // Found by Schemathesis's stateful phase: a pull request known by id, whose only queue was then deleted, has no
  // entry left (it used to crash the sandbox).
  trunk::CreateMergeQueueRequest create;
  create.repository_id = repo_id();
  create.target_branch = "short-lived";
  const trunk::MergeQueue queue = client_->create_merge_queue(create);
  trunk::SubmitPullRequestRequestV2 request;
  request.id = *queue.id;
  request.number = 51;
  const trunk::PullRequestV2 pr = client_->submit_to_merge_queue(request);
  client_->dequeue_pull_request(ref(51));
  trunk::MergeQueueRef queue_ref;
  queue_ref.id = *queue.id;
  client_->delete_merge_queue(queue_ref);
  EXPECT_EQ(error_code([&] { client_->get_pull_request(ref(51)); }, 404), "PR_NOT_FOUND");
  EXPECT_EQ(error_code([&] { client_->dequeue_pull_request(ref(51)); }, 404), "PR_NOT_FOUND");
  EXPECT_EQ(pr.id, pr_id(51));
}

TEST_F(PullRequestsV2, ReprioritizingAndPatchingAnEntryChangeWhatTheQueueDoes) {
  submit(21);
  trunk::ReprioritizeRequest urgent;
  urgent.id = pr_id(21);
  urgent.priority_name = "urgent";
  const trunk::PullRequestV2 after = client_->reprioritize_pull_request(urgent);
  EXPECT_EQ(after.queue_entry->priority_value, 0);
  EXPECT_EQ(after.queue_entry->skips_the_line, true);
  EXPECT_EQ(v1(21).priority_name, "urgent");

  trunk::UpdateQueueEntryRequest patch;
  patch.id = pr_id(21);
  patch.allow_batching = false;
  patch.direct = true;
  const trunk::PullRequestV2 patched = client_->update_queue_entry(patch);
  EXPECT_EQ(patched.queue_entry->allow_batching, false);
  EXPECT_EQ(patched.queue_entry->direct, true);
  EXPECT_EQ(patched.queue_entry->priority_value, 0);  // not in the patch: unchanged
  EXPECT_EQ(client_->get_pull_request(ref(21)).queue_entry->allow_batching, false);  // kept by the queue

  // Priority: 0..32767, a value or a name, never both (and reprioritize needs one).
  urgent.priority_name.reset();
  urgent.priority_value = 32767;
  EXPECT_EQ(client_->reprioritize_pull_request(urgent).queue_entry->priority_value, 32767);
  urgent.priority_value = 32768;
  EXPECT_THROW(client_->reprioritize_pull_request(urgent), trunk::ValidationError);
  urgent.priority_value = -1;
  EXPECT_THROW(client_->reprioritize_pull_request(urgent), trunk::ValidationError);
  urgent.priority_value = 1;
  urgent.priority_name = "high";
  EXPECT_THROW(client_->reprioritize_pull_request(urgent), trunk::ValidationError);
  urgent.priority_value.reset();
  urgent.priority_name.reset();
  EXPECT_THROW(client_->reprioritize_pull_request(urgent), trunk::ValidationError);
  trunk::UpdateQueueEntryRequest empty;
  empty.id = pr_id(21);
  EXPECT_THROW(client_->update_queue_entry(empty), trunk::ValidationError);
  urgent.priority_name = "sometime";  // not a named priority: the service's 400
  EXPECT_EQ(error_code([&] { client_->reprioritize_pull_request(urgent); }, 400), "VALIDATION_FAILED");

  client_->dequeue_pull_request(ref(21));
  EXPECT_EQ(error_code([&] { client_->update_queue_entry(patch); }, 409), "PR_NOT_IN_ACTIVE_STATE");
}

TEST_F(PullRequestsV2, RestartingTestsNeedsARunAndStartsANewOne) {
  submit(31);
  EXPECT_EQ(error_code([&] { client_->restart_pull_request_tests(ref(31)); }, 422), "PR_TESTS_NOT_RESTARTABLE");
  sandbox_->advance(std::chrono::minutes(2));
  ASSERT_EQ(state(31), QueueEntryState::testing);
  const trunk::PullRequestV2 restarted = client_->restart_pull_request_tests(ref(31));
  EXPECT_EQ(*restarted.queue_entry->state, QueueEntryState::testing);  // back to pending, and at once tested again
  sandbox_->advance(std::chrono::hours(3));
  const trunk::PullRequestV2 merged = client_->get_pull_request(ref(31));
  EXPECT_EQ(*merged.queue_entry->state, QueueEntryState::merged);
  EXPECT_EQ(*merged.state, trunk::PullRequestProviderState::merged);
  EXPECT_TRUE(merged.queue_entry->verified_by_verification_run_id.has_value());
}

TEST_F(PullRequestsV2, AQueuesListingIsNewestFirstFilteredAndPaged) {
  for (std::int64_t n = 41; n <= 45; ++n) submit(n);
  client_->dequeue_pull_request(ref(42));
  trunk::ListQueuePullRequestsRequest request;
  request.id = main_id();
  std::vector<std::int64_t> numbers;
  for (const trunk::PullRequestV2& pr : client_->pager<trunk::op::ListMergeQueuePullRequests>(request)) {
    numbers.push_back(*pr.number);
  }
  EXPECT_EQ(numbers, (std::vector<std::int64_t>{45, 44, 43, 42, 41}));

  request.state = std::vector<QueueEntryState>{QueueEntryState::cancelled, QueueEntryState::merged};
  const trunk::PullRequestList cancelled = client_->list_merge_queue_pull_requests(request);
  ASSERT_EQ(cancelled.data.size(), 1U);
  EXPECT_EQ(cancelled.data[0].number, 42);

  request.state.reset();
  request.limit = 2;
  request.include_total = true;
  const trunk::PullRequestList first = client_->list_merge_queue_pull_requests(request);
  EXPECT_EQ(first.data.size(), 2U);
  EXPECT_EQ(first.total, 5);
  ASSERT_TRUE(first.next_cursor.has_value());
  request.author = "nobody";  // another listing: the cursor is not its own
  request.cursor = first.next_cursor;
  EXPECT_EQ(error_code([&] { client_->list_merge_queue_pull_requests(request); }, 400), "INVALID_CURSOR");
  trunk::ListQueuePullRequestsRequest unknown;
  unknown.id = "nosuchq1";
  EXPECT_EQ(error_code([&] { client_->list_merge_queue_pull_requests(unknown); }, 404), "MERGE_QUEUE_NOT_FOUND");
}

TEST_F(PullRequestsV2, ARepositoryIsFoundByIdOrByItsAddress) {
  trunk::RepositoryRefV2 by_id;
  by_id.id = repo_id();
  const trunk::Repository repository = client_->get_repository(by_id);
  EXPECT_EQ(repository.id, repo_id());
  EXPECT_EQ(repository.path, repo().owner + "/" + repo().name);
  EXPECT_EQ(repository.host, repo().host);
  EXPECT_EQ(repository.default_branch, "main");
  for (const std::string& url : {"https://" + repo().to_string(), "https://" + repo().to_string() + ".git",
                                 repo().to_string() + "/"}) {
    trunk::ResolveRepositoriesRequest request;
    request.provider_url = url;
    const trunk::RepositoryList found = client_->resolve_repositories(request);
    ASSERT_EQ(found.data.size(), 1U) << url;
    EXPECT_EQ(found.data[0], repository) << url;
  }
  trunk::ResolveRepositoriesRequest nowhere;
  nowhere.provider_url = "https://github.com/nobody/nothing";
  EXPECT_EQ(error_code([&] { client_->resolve_repositories(nowhere); }, 404), "PROVIDER_URL_NOT_FOUND");
  by_id.id = "00000000-0000-4000-8000-000000000000";
  EXPECT_EQ(error_code([&] { client_->get_repository(by_id); }, 404), "REPOSITORY_NOT_FOUND");
  by_id.id = "not-a-uuid";
  EXPECT_THROW(client_->get_repository(by_id), trunk::ValidationError);
}

}  // namespace
}  // namespace sandbox_test
