// v2's merge queues end to end: trunk::Client's v2 calls against the sandbox, which serves them over the same
// queues as v1 (a queue paused through v2 reads paused through v1), with v2's credentials, envelope errors, cursors
// and request ids (docs/reference/v2.md, docs/sandbox.md#v2).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sandbox_support.hpp"
#include "v2_fixture.hpp"
#include "trunk/client.hpp"
#include "trunk/error.hpp"
#include "v2_service.hpp"

namespace sandbox_test {
namespace {

class MergeQueuesV2 : public V2Fixture {
 protected:
  // The wall clock: the queues' createdAt and the runs move on by themselves.
  trunk::sandbox::SandboxOptions sandbox_options() const override { return small_options(50); }
  trunk::QueueSettings v1_settings(const std::string& branch = "main") {
    trunk::GetQueueRequest request;
    request.repo = repo();
    request.target_branch = branch;
    return client_->get_queue(request);
  }
  trunk::MergeQueueRef ref(const std::string& id) const {
    trunk::MergeQueueRef r;
    r.id = id;
    return r;
  }

};

TEST_F(MergeQueuesV2, TheQueuesOfV1AreListedWithStableIdsAndV2Spellings) {
  trunk::ListMergeQueuesRequest request;
  request.repository_id = repo_id();
  const trunk::MergeQueueList page = client_->list_merge_queues(request);
  ASSERT_EQ(page.data.size(), 1U);
  const trunk::MergeQueue& queue = page.data[0];
  EXPECT_EQ(queue.id, main_id());
  EXPECT_EQ(queue.repository_id, repo_id());
  EXPECT_EQ(queue.target_branch, "main");
  EXPECT_EQ(*queue.mode, trunk::MergeQueueMode::queue);  // v1's "single"
  EXPECT_EQ(*queue.state, trunk::MergeQueueState::running);
  ASSERT_TRUE(queue.config.has_value());
  EXPECT_EQ(queue.config->concurrency, v1_settings().concurrency);
  EXPECT_EQ(*queue.config->merge_method, trunk::MergeStrategy::squash);  // v1's "squash", v2's spelling
  EXPECT_EQ(page.has_more, false);
  EXPECT_FALSE(page.next_cursor.has_value());
  EXPECT_EQ(client_->get_merge_queue(ref(main_id())), queue);
}

TEST_F(MergeQueuesV2, PauseResumeDrainAndSwitchChangeTheQueueV1Reads) {
  EXPECT_EQ(*client_->pause_merge_queue(ref(main_id())).state, trunk::MergeQueueState::paused);
  EXPECT_EQ(*v1_settings().state, trunk::QueueState::paused);
  EXPECT_EQ(*client_->drain_merge_queue(ref(main_id())).state, trunk::MergeQueueState::draining);
  EXPECT_EQ(*v1_settings().state, trunk::QueueState::draining);
  EXPECT_EQ(*client_->resume_merge_queue(ref(main_id())).state, trunk::MergeQueueState::running);
  trunk::SwitchModesRequest to_graph;
  to_graph.id = main_id();
  to_graph.mode = trunk::MergeQueueMode::graph;
  const trunk::MergeQueueStateChange switched = client_->switch_merge_queue_mode(to_graph);
  EXPECT_EQ(*switched.mode, trunk::MergeQueueMode::graph);  // an empty queue switches at once
  EXPECT_EQ(*v1_settings().mode, trunk::QueueMode::parallel);
}

TEST_F(MergeQueuesV2, AConfigPatchChangesOnlyWhatItSets) {
  const trunk::MergeQueue before = client_->get_merge_queue(ref(main_id()));
  trunk::UpdateMergeQueueConfigRequest patch;
  patch.id = main_id();
  patch.concurrency = 3;
  patch.not_ready_timeout_minutes = 120;  // a v2-only setting, kept by the v2 service
  patch.merge_method = trunk::MergeStrategy::rebase;
  const trunk::MergeQueue after = client_->update_merge_queue_config(patch);
  EXPECT_EQ(after.config->concurrency, 3);
  EXPECT_EQ(after.config->not_ready_timeout_minutes, 120);
  EXPECT_EQ(*after.config->merge_method, trunk::MergeStrategy::rebase);
  EXPECT_EQ(after.config->testing_timeout_minutes, before.config->testing_timeout_minutes);
  EXPECT_EQ(v1_settings().concurrency, 3);
  EXPECT_EQ(*v1_settings().merge_method, trunk::MergeMethod::rebase);
  // The body carried only what was set (and no path parameter).
  std::string sent;
  for (const auto& recorded : sandbox_->requests()) {
    if (recorded.method == "PATCH") sent = recorded.body;
  }
  EXPECT_EQ(Json::parse(sent),
            Json::parse(R"({"concurrency":3,"notReadyTimeoutMinutes":120,"mergeMethod":"rebase"})"));
}

TEST_F(MergeQueuesV2, CreateConflictDeleteAndNotFoundUseTheEnvelopesCodes) {
  trunk::CreateMergeQueueRequest create;
  create.repository_id = repo_id();
  create.target_branch = "release";
  create.mode = trunk::MergeQueueMode::graph;
  create.concurrency = 4;
  const trunk::MergeQueue created = client_->create_merge_queue(create);
  EXPECT_EQ(created.id, trunk::sandbox::merge_queue_id(repo().to_string(), "release"));
  EXPECT_EQ(*created.mode, trunk::MergeQueueMode::graph);
  EXPECT_EQ(created.config->concurrency, 4);
  EXPECT_EQ(v1_settings("release").concurrency, 4);
  try {
    client_->create_merge_queue(create);
    FAIL() << "a second queue of the branch was created";
  } catch (const trunk::ConflictError& error) {
    EXPECT_EQ(error.code(), "QUEUE_ALREADY_EXISTS");
    EXPECT_FALSE(error.request_id().empty());
  }
  client_->delete_merge_queue(ref(*created.id));  // 204, no body
  try {
    client_->get_merge_queue(ref(*created.id));
    FAIL() << "a deleted queue was found";
  } catch (const trunk::NotFoundError& error) {
    EXPECT_EQ(error.code(), "MERGE_QUEUE_NOT_FOUND");
  }
  create.repository_id = "00000000-0000-4000-8000-000000000000";
  try {
    client_->create_merge_queue(create);
    FAIL() << "a queue of an unknown repository was created";
  } catch (const trunk::NotFoundError& error) {
    EXPECT_EQ(error.code(), "REPOSITORY_NOT_FOUND");
  }
}

TEST_F(MergeQueuesV2, AListingWalksItsPagesByCursorAndRefusesAnotherListingsCursor) {
  for (const char* branch : {"b1", "b2", "b3", "b4"}) {
    trunk::CreateMergeQueueRequest create;
    create.repository_id = repo_id();
    create.target_branch = branch;
    client_->create_merge_queue(create);
  }
  trunk::ListMergeQueuesRequest request;
  request.repository_id = repo_id();
  request.limit = 2;
  request.include_total = true;
  const trunk::MergeQueueList first = client_->list_merge_queues(request);
  EXPECT_EQ(first.data.size(), 2U);
  EXPECT_EQ(first.total, 5);
  EXPECT_EQ(first.has_more, true);
  ASSERT_TRUE(first.next_cursor.has_value());
  std::set<std::string> ids;
  for (const trunk::MergeQueue& queue : client_->pager<trunk::op::ListMergeQueues>(request)) ids.insert(*queue.id);
  EXPECT_EQ(ids.size(), 5U);
  // A cursor is bound to the filter it was made for, not to the limit: a walk may ask for fewer on its last page.
  trunk::ListMergeQueuesRequest fewer = request;
  fewer.limit = 1;
  fewer.cursor = first.next_cursor;
  const trunk::MergeQueueList rest = client_->list_merge_queues(fewer);
  ASSERT_EQ(rest.data.size(), 1U);
  EXPECT_EQ(ids.count(*rest.data[0].id), 1U);
  trunk::ListMergeQueuesRequest other = request;
  other.target_branch = "b1";
  other.cursor = first.next_cursor;
  try {
    client_->list_merge_queues(other);
    FAIL() << "a foreign cursor was accepted";
  } catch (const trunk::BadRequestError& error) {
    EXPECT_EQ(error.code(), "INVALID_CURSOR");
  }
}

TEST_F(MergeQueuesV2, BadInputIsRefusedBeforeSendingAndTheSandboxRefusesItToo) {
  trunk::ListMergeQueuesRequest request;
  request.limit = 101;  // 1..100
  EXPECT_THROW(client_->list_merge_queues(request), trunk::ValidationError);
  request.limit = 100;
  EXPECT_NO_THROW(client_->list_merge_queues(request));
  request.limit = 0;
  EXPECT_THROW(client_->list_merge_queues(request), trunk::ValidationError);
  EXPECT_THROW(client_->get_merge_queue(ref("")), trunk::ValidationError);
  trunk::CreateMergeQueueRequest create;
  create.repository_id = "not-a-uuid";
  create.target_branch = "x";
  EXPECT_THROW(client_->create_merge_queue(create), trunk::ValidationError);

  httplib::Client http(sandbox_->url());
  const httplib::Headers bearer{{"Authorization", "Bearer " + sandbox_->api_key()}};
  for (const char* query : {"?limit=0", "?limit=abc", "?unknown=1", "?targetBranch=main"}) {
    const auto reply = http.Get(std::string("/v2/merge-queues") + query, bearer);
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400) << query;
    EXPECT_EQ(Json::parse(reply->body).at("error").at("code"), "VALIDATION_FAILED") << query << reply->body;
  }
  const auto patch = http.Patch("/v2/merge-queues/" + main_id() + "/config", bearer, R"({"unknownSetting":1})",
                                "application/json");
  ASSERT_TRUE(patch);
  EXPECT_EQ(patch->status, 400) << patch->body;
  const auto put = http.Put("/v2/merge-queues", bearer, "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "GET, POST");
}

TEST_F(MergeQueuesV2, EachVersionTakesOnlyItsOwnCredentialAndEveryAnswerHasARequestId) {
  httplib::Client http(sandbox_->url());
  const auto none = http.Get("/v2/merge-queues");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(Json::parse(none->body).at("error").at("code"), "AUTHENTICATION_REQUIRED");
  const auto v1_token = http.Get("/v2/merge-queues", {{"Authorization", "Bearer " + sandbox_->token()}});
  ASSERT_TRUE(v1_token);
  EXPECT_EQ(v1_token->status, 401);  // v2 refuses the organization token
  EXPECT_EQ(Json::parse(v1_token->body).at("error").at("code"), "INVALID_TOKEN");
  const auto key_on_v1 = post(*sandbox_, std::string(trunk::paths::kGetQueue),
                              Json{{"repo", repo_json(repo())}, {"targetBranch", "main"}}.dump(), sandbox_->api_key());
  EXPECT_EQ(key_on_v1.status, 401);  // v1 refuses API keys
  std::set<std::string> request_ids;
  for (const auto* reply : {&none, &v1_token}) request_ids.insert((*reply)->get_header_value("X-Request-Id"));
  request_ids.insert(key_on_v1.header("X-Request-Id"));
  EXPECT_EQ(request_ids.size(), 3U);
  EXPECT_EQ(request_ids.count(""), 0U);
  // The key is a secret in the sandbox's record too.
  for (const auto& recorded : sandbox_->requests()) {
    for (const auto& [name, value] : recorded.headers) {
      EXPECT_EQ(value.find(sandbox_->api_key()), std::string::npos) << name;
    }
  }
}

}  // namespace
}  // namespace sandbox_test
