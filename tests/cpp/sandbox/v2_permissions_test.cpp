// The sandbox's v2 API keys and their permissions: a key made with some permissions reads everything, and each
// write it lacks a permission for answers 403 INSUFFICIENT_PERMISSIONS naming the permission, which the client
// raises as PermissionDeniedError naming its operation (docs/sandbox.md#api-keys).
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

using trunk::sandbox::Permission;

class PermissionsV2 : public V2Fixture {
 protected:
  // From the history: which runs fail does not matter here.
  trunk::sandbox::SandboxOptions sandbox_options() const override {
    auto options = small_options(50);
    options.clock = trunk::sandbox::ClockMode::virtual_time;
    return options;
  }
  trunk::SubmitPullRequestRequestV2 submission(std::int64_t number) const {
    trunk::SubmitPullRequestRequestV2 request;
    request.id = main_id();
    request.number = number;
    return request;
  }
  template <typename Call>
  std::string refusal(Call&& call) {
    try {
      call();
    } catch (const trunk::PermissionDeniedError& error) {
      EXPECT_EQ(error.code(), "INSUFFICIENT_PERMISSIONS");
      return error.what();
    }
    ADD_FAILURE() << "not refused";
    return "";
  }

};

TEST_F(PermissionsV2, AKeyWithoutPermissionsReadsEverythingAndChangesNothing) {
  auto reader = client_with({});
  trunk::MergeQueueRef queue;
  queue.id = main_id();
  EXPECT_EQ(reader->get_merge_queue(queue).id, main_id());
  EXPECT_FALSE(reader->list_merge_queues({}).data.empty());
  const std::string message = refusal([&] { reader->pause_merge_queue(queue); });
  EXPECT_NE(message.find("update_merge_queue_settings"), std::string::npos) << message;
  EXPECT_NE(message.find("pause_merge_queue"), std::string::npos) << message;
  EXPECT_NE(refusal([&] { reader->submit_to_merge_queue(submission(1)); }).find("merge_and_cancel_prs"),
            std::string::npos);
}

TEST_F(PermissionsV2, EachOptionOfASubmissionNeedsItsOwnPermission) {
  auto merger = client_with({Permission::merge_and_cancel_prs});
  EXPECT_EQ(merger->submit_to_merge_queue(submission(1)).number, 1);
  auto urgent = submission(2);
  urgent.priority_name = "urgent";
  EXPECT_NE(refusal([&] { merger->submit_to_merge_queue(urgent); }).find("set_priority"), std::string::npos);
  auto alone = submission(2);
  alone.allow_batching = false;
  EXPECT_NE(refusal([&] { merger->submit_to_merge_queue(alone); }).find("skip_batching"), std::string::npos);
  auto batched = submission(5);
  batched.allow_batching = true;  // asking for the default is no privilege
  EXPECT_NO_THROW(merger->submit_to_merge_queue(batched));
  auto direct = submission(3);
  direct.direct = true;
  EXPECT_NE(refusal([&] { merger->submit_to_merge_queue(direct); }).find("direct_to_queue"), std::string::npos);

  auto prioritizer = client_with({Permission::merge_and_cancel_prs, Permission::set_priority});
  EXPECT_EQ(prioritizer->submit_to_merge_queue(urgent).queue_entry->priority_value, 0);
  trunk::UpdateQueueEntryRequest patch;
  patch.id = trunk::sandbox::pull_request_id(sandbox_->repos().at(0).to_string(), 2);
  patch.allow_batching = true;  // a change of batching, either way
  EXPECT_NE(refusal([&] { prioritizer->update_queue_entry(patch); }).find("skip_batching"), std::string::npos);
  trunk::PullRequestRefV2 pr;
  pr.id = patch.id;
  EXPECT_NO_THROW(prioritizer->dequeue_pull_request(pr));
}

TEST_F(PermissionsV2, KeysAreTheirOwnAndNoneIsRecorded) {
  const std::string first = sandbox_->create_api_key({Permission::update_merge_queue_settings});
  const std::string second = sandbox_->create_api_key({Permission::update_merge_queue_settings});
  EXPECT_NE(first, second);
  EXPECT_TRUE(first.starts_with("trunk_v2_"));
  httplib::Client http(sandbox_->url());
  const auto pause = http.Post("/v2/merge-queues/" + main_id() + "/pause", {{"Authorization", "Bearer " + first}},
                               "", "application/json");
  ASSERT_TRUE(pause);
  EXPECT_EQ(pause->status, 200) << pause->body;
  const auto forged = http.Get("/v2/merge-queues", {{"Authorization", "Bearer " + first + "x"}});
  ASSERT_TRUE(forged);
  EXPECT_EQ(forged->status, 401);
  for (const auto& recorded : sandbox_->requests()) {
    for (const auto& [name, value] : recorded.headers) {
      EXPECT_EQ(value.find(first), std::string::npos) << name;
    }
  }
}

TEST_F(PermissionsV2, ATrunkTokenReadsAndIsRefusedEveryWrite) {
  trunk::ClientOptions options;
  options.base_url = sandbox_->url();
  options.trunk_token = sandbox_->create_trunk_token();
  options.retry.max_retries = 0;
  trunk::Client client(std::move(options));
  trunk::MergeQueueRef queue;
  queue.id = main_id();
  EXPECT_EQ(client.get_merge_queue(queue).id, main_id());
  EXPECT_NE(refusal([&] { client.pause_merge_queue(queue); }).find("pause_merge_queue"), std::string::npos);
  EXPECT_THROW(client.submit_to_merge_queue(submission(3)), trunk::PermissionDeniedError);

  trunk::ClientOptions forged;
  forged.base_url = sandbox_->url();
  forged.trunk_token = std::string("tt1.not-one-the-sandbox-made");
  forged.retry.max_retries = 0;
  trunk::Client stranger(std::move(forged));
  try {
    stranger.get_merge_queue(queue);
    FAIL() << "a trunk token the sandbox did not make was accepted";
  } catch (const trunk::AuthenticationError& error) {
    EXPECT_EQ(error.code(), "INVALID_TOKEN");
  }
}

}  // namespace
}  // namespace sandbox_test
