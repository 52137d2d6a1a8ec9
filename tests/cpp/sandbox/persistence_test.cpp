// State file (queue settings survive a restart, written by rename, corrupt file -> clear error), data file
// (save/load round trip, corrupt file -> clear error) and determinism of the generator.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include "sandbox_support.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"

namespace sandbox_test {
namespace {

using trunk::paths::kGetTestDetails;
using trunk::paths::kUpdateQueue;

ino_t inode_of(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_ino;
}

Json queue_update(const trunk::sandbox::Sandbox& sandbox, Json fields) {
  fields["repo"] = repo_json(sandbox.repos().at(0));
  fields["targetBranch"] = "main";
  const auto reply = post(sandbox, std::string(kUpdateQueue), fields);
  EXPECT_EQ(reply.status, 200) << reply.body;
  return reply.status == 200 ? reply.json() : Json::object();
}

std::string error_of_start(trunk::sandbox::SandboxOptions options) {
  trunk::sandbox::Sandbox sandbox(std::move(options));
  try {
    sandbox.start();
  } catch (const trunk::Error& e) {
    return e.what();
  }
  return "";
}

TEST(StateFile, SettingsSurviveARestart) {
  TempDir dir;
  auto options = small_options(20);
  options.state_file = dir.file("queues.json");
  Json before;
  {
    auto sandbox = start_sandbox(options);
    queue_update(*sandbox, {{"concurrency", 9}, {"mode", "parallel"}, {"requiredStatuses", Json::array()}});
    before = queue_update(*sandbox, {{"state", "paused"}, {"mergeMethod", "rebase"}});
    EXPECT_EQ(before["state"], "paused") << "a switch of an empty queue is immediate";
  }
  auto restarted = start_sandbox(options);
  const Json after = queue_update(*restarted, Json::object());
  EXPECT_EQ(after["concurrency"], 9);
  EXPECT_EQ(after["mode"], "parallel");
  EXPECT_EQ(after["mergeMethod"], "rebase");
  EXPECT_EQ(after["requiredStatuses"], Json::array()) << "an empty manual list is not the same as none";
  EXPECT_EQ(after["state"], "paused");
}

TEST(StateFile, LabelAndExtensionSettingsSurviveARestart) {
  TempDir dir;
  auto options = small_options(20);
  options.state_file = dir.file("queues.json");
  const Json set = {{"extensionEnabled", true},
                    {"enqueueingLabel", "merge-queue"},
                    {"labelCommandsEnabled", true},
                    {"stateLabelsEnabled", true}};
  {
    auto sandbox = start_sandbox(options);
    queue_update(*sandbox, set);
  }
  auto restarted = start_sandbox(options);
  const Json after = queue_update(*restarted, Json::object());
  for (const auto& [key, value] : set.items()) EXPECT_EQ(after[key], value) << key;
}

// A state file written before the label and extension settings existed (version 2) still starts, with those
// settings at their defaults; a version 3 file without one is refused like any file lacking a setting.
TEST(StateFile, VersionTwoFilesTakeTheDefaultLabelSettings) {
  TempDir dir;
  auto options = small_options(20);
  options.state_file = dir.file("queues.json");
  {
    auto sandbox = start_sandbox(options);
    queue_update(*sandbox, {{"concurrency", 4}, {"stateLabelsEnabled", true}});
  }
  const Json written = Json::parse(read_text(options.state_file));
  EXPECT_EQ(written["version"], 3);
  Json saved = written;
  for (Json& queue : saved["queues"]) {
    for (const char* key : {"extensionEnabled", "enqueueingLabel", "labelCommandsEnabled", "stateLabelsEnabled"}) {
      queue.erase(key);
    }
  }
  saved["version"] = 2;
  write_text(options.state_file, saved.dump());
  {
    auto restarted = start_sandbox(options);
    const Json after = queue_update(*restarted, Json::object());
    EXPECT_EQ(after["concurrency"], 4);
    EXPECT_EQ(after["extensionEnabled"], false);
    EXPECT_EQ(after["enqueueingLabel"], "");
    EXPECT_EQ(after["labelCommandsEnabled"], false);
    EXPECT_EQ(after["stateLabelsEnabled"], false) << "the version 2 file did not hold it: the default";
  }
  saved = written;
  for (Json& queue : saved["queues"]) queue.erase("enqueueingLabel");
  write_text(options.state_file, saved.dump());
  const std::string error = error_of_start(options);
  EXPECT_NE(error.find(".enqueueingLabel: missing"), std::string::npos) << error;
}

TEST(StateFile, EveryChangeReplacesTheFileByRenameAndLeavesNoTemporaryFiles) {
  TempDir dir;
  auto options = small_options(20);
  options.state_file = dir.file("queues.json");
  auto sandbox = start_sandbox(options);
  queue_update(*sandbox, {{"concurrency", 2}});
  const ino_t first = inode_of(options.state_file);
  queue_update(*sandbox, {{"concurrency", 3}});
  EXPECT_NE(inode_of(options.state_file), first) << "rewritten in place instead of renamed over";
  const Json saved = Json::parse(read_text(options.state_file));
  int matched = 0;
  for (const Json& queue : saved["queues"]) {
    if (queue["repo"] != sandbox->repos().at(0).to_string() || queue["targetBranch"] != "main") continue;
    EXPECT_EQ(queue["concurrency"], 3);
    ++matched;
  }
  EXPECT_EQ(matched, 1);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "queues.json");
  }
  EXPECT_EQ(files, 1);
}

TEST(StateFile, UnwritableStateFileIsAnErrorAndChangesNothing) {
  TempDir dir;
  auto options = small_options(20);
  options.state_file = dir.file("missing-directory/queues.json");
  auto sandbox = start_sandbox(options);
  Json body = {{"repo", repo_json(sandbox->repos().at(0))}, {"targetBranch", "main"}, {"concurrency", 5}};
  const auto reply = post(*sandbox, std::string(kUpdateQueue), body);
  EXPECT_EQ(reply.status, 500);
  EXPECT_NE(reply.body.find("missing-directory"), std::string::npos) << reply.body;
  body.erase("concurrency");
  EXPECT_EQ(post(*sandbox, std::string(kUpdateQueue), body).status, 500);

  // Creating and deleting a queue store the queues too: refused the same way, and undone.
  Json other = {{"repo", repo_json(sandbox->repos().at(0))}, {"targetBranch", "release"}};
  const auto created = post(*sandbox, std::string(trunk::paths::kCreateQueue), other);
  EXPECT_EQ(created.status, 500);
  EXPECT_NE(created.body.find("internal error: could not store the queues"), std::string::npos) << created.body;
  EXPECT_EQ(post(*sandbox, std::string(trunk::paths::kGetQueue), other).status, 404) << "the creation was undone";
  EXPECT_EQ(post(*sandbox, std::string(trunk::paths::kDeleteQueue), body).status, 500);
  EXPECT_EQ(post(*sandbox, std::string(trunk::paths::kGetQueue), body).status, 200) << "the deletion was undone";
}

TEST(StateFile, CorruptFileStopsTheStartWithAClearError) {
  TempDir dir;
  auto options = small_options(20);
  options.state_file = dir.file("queues.json");
  write_text(options.state_file, "{\"format\": \"trunk-sandbox-queues\", \"queues\": [");
  std::string error = error_of_start(options);
  EXPECT_NE(error.find(options.state_file), std::string::npos) << error;
  EXPECT_NE(error.find("malformed JSON"), std::string::npos) << error;

  write_text(options.state_file, R"({"format": "trunk-sandbox-queues", "version": 1, "queues": [{"repo": "github.com/acme/storefront", "targetBranch": "main", "state": "running", "mode": "single", "concurrency": 0}]})");
  error = error_of_start(options);
  EXPECT_NE(error.find("queues[0].concurrency"), std::string::npos) << error;

  write_text(options.state_file, "[]");
  EXPECT_NE(error_of_start(options).find("not a trunk-sandbox queue state file"), std::string::npos);
}

TEST(DataFile, SaveLoadRoundTripServesTheSameAnswers) {
  TempDir dir;
  auto original = start_sandbox(small_options(150));
  original->save_data(dir.file("data.json"));
  auto options = small_options(0);  // `tests` is ignored when a data file is given
  options.data_file = dir.file("data.json");
  options.now.reset();                // and `now` comes from the file
  auto loaded = start_sandbox(options);
  EXPECT_EQ(loaded->now(), fixed_now());
  EXPECT_EQ(loaded->repos(), original->repos());
  loaded->save_data(dir.file("again.json"));
  EXPECT_EQ(read_text(dir.file("again.json")), read_text(dir.file("data.json")));
  for (const auto& id : original->test_ids(original->repos().at(0))) {
    const Json body = {{"repo", repo_json(original->repos().at(0))}, {"org_url_slug", "trunk-sandbox"}, {"test_id", id}};
    EXPECT_EQ(post(*loaded, std::string(kGetTestDetails), body).body, post(*original, std::string(kGetTestDetails), body).body);
  }
}

TEST(DataFile, CorruptDataFileStopsTheStartNamingThePlace) {
  TempDir dir;
  auto options = small_options(0);
  options.data_file = dir.file("data.json");
  write_text(options.data_file, "not json");
  EXPECT_NE(error_of_start(options).find("malformed JSON"), std::string::npos);
  write_text(options.data_file, R"({"format": "trunk-sandbox-data", "version": 1, "now": "2026-11-20T12:00:00Z",
    "repos": [{"host": "github.com", "owner": "a", "name": "b", "html_url": "", "failure_messages": ["boom"],
               "tests": [{"id": "00000000-0000-4000-8000-000000000001", "name": "t", "classname": "c", "parent": "p",
                          "file_path": "f", "variant": "", "codeowners": [], "quarantined": false, "ticket_url": "",
                          "runs": [[1, 2, 5]]}]}]})");
  const std::string error = error_of_start(options);
  EXPECT_NE(error.find("repos[0].tests[0].runs[0]"), std::string::npos) << error;
  EXPECT_NE(error.find(options.data_file), std::string::npos) << error;
  options.data_file = dir.file("does-not-exist.json");
  EXPECT_NE(error_of_start(options).find("does-not-exist.json"), std::string::npos);
}

TEST(Determinism, SameSeedSameDataOtherSeedOtherData) {
  TempDir dir;
  auto options = small_options(200);
  start_sandbox(options)->save_data(dir.file("a.json"));
  start_sandbox(options)->save_data(dir.file("b.json"));
  options.seed = 43;
  start_sandbox(options)->save_data(dir.file("c.json"));
  EXPECT_EQ(read_text(dir.file("a.json")), read_text(dir.file("b.json")));
  EXPECT_NE(read_text(dir.file("a.json")), read_text(dir.file("c.json")));
}

TEST(Options, InvalidOptionsAreRejectedNamingTheField) {
  auto options = small_options(20);
  options.threads = 0;
  trunk::sandbox::Sandbox sandbox(options);
  try {
    sandbox.start();
    FAIL() << "expected ValidationError";
  } catch (const trunk::ValidationError& e) {
    EXPECT_EQ(e.violations().at(0).field, "threads");
  }
  options = small_options(-1);
  EXPECT_THROW(trunk::sandbox::Sandbox(options).start(), trunk::ValidationError);
}

TEST(Options, ServerThreadsDefaultToTheCoresFromTwoToFour) {
  const unsigned cores = std::thread::hardware_concurrency();
  const int expected = cores <= 2 ? 2 : (cores >= 4 ? 4 : static_cast<int>(cores));
  EXPECT_EQ(trunk::sandbox::default_server_threads(), expected);
  EXPECT_EQ(trunk::sandbox::SandboxOptions{}.threads, expected);
}

TEST(Lifecycle, StopIsIdempotentAndARandomTokenIsMadeWhenNoneIsGiven) {
  auto options = small_options(10);
  options.token.clear();
  trunk::sandbox::Sandbox sandbox(options);
  sandbox.start();
  EXPECT_TRUE(sandbox.running());
  EXPECT_GE(sandbox.token().size(), 32U);
  EXPECT_EQ(sandbox.url(), "http://127.0.0.1:" + std::to_string(sandbox.port()));
  sandbox.stop();
  sandbox.stop();
  EXPECT_FALSE(sandbox.running());
  trunk::sandbox::Sandbox other(options);
  other.start();
  EXPECT_NE(other.token(), sandbox.token());
}

}  // namespace
}  // namespace sandbox_test
