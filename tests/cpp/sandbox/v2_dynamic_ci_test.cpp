// Dynamic CI against the sandbox, through the C++ client (docs/reference/v2.md#dynamic-ci, docs/sandbox.md#dynamic-ci):
// plans that follow the impacted targets uploaded for the commit built, the diff sent and the forces of the pull
// request; the repositories' workflows; forces replaced as a whole; the required fields that may be null, sent as
// null; and the request's rules, each at its boundary, before anything is sent.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "ci_plan.hpp"
#include "sandbox_support.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_fixture.hpp"

namespace sandbox_test {
namespace {

using trunk::CiSignalRecommendation;
using trunk::CiSignalType;

constexpr const char* kSha = "9f2c1b7c2b4c9d1e0a3f5b6c7d8e9f0a1b2c3d4e";

class DynamicCiV2 : public V2Fixture {
 protected:
  trunk::PlanRepo plan_repo() const {
    trunk::PlanRepo out;
    out.owner = repo().owner;
    out.name = repo().name;
    return out;
  }
  /// A pull request's run of the CI workflow at kSha.
  trunk::CiPlanRequest plan_request(std::int64_t number) const {
    trunk::CiPlanRequest request;
    request.repo = plan_repo();
    request.commit_sha = kSha;
    request.base_sha = "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d";
    request.branch = "pr-" + std::to_string(number);
    request.pr_number = number;
    request.run_id = "18342998211";
    request.run_attempt = 1;
    request.workflow_path = ".github/workflows/ci.yaml";
    return request;
  }
  void upload_targets(std::int64_t number, std::vector<std::string> targets) {
    trunk::UploadImpactedTargetsRequest request;
    request.repository_id = repo_id();
    request.target_branch = "main";
    request.sha = kSha;
    request.number = number;
    request.impacted_targets = std::move(targets);
    client_->upload_impacted_targets(request);
  }
  /// Whether each job runs, by key.
  static std::map<std::string, bool> runs(const trunk::CiPlan& plan) {
    std::map<std::string, bool> out;
    for (const trunk::JobVerdict& verdict : plan.jobs) out[*verdict.job_key] = *verdict.run;
    return out;
  }
  static const trunk::CiSignalResult& signal(const trunk::JobVerdict& verdict, CiSignalType type) {
    const auto it = std::find_if(verdict.signals.begin(), verdict.signals.end(),
                                 [&](const trunk::CiSignalResult& s) { return s.type->known() == type; });
    EXPECT_NE(it, verdict.signals.end());
    return *it;
  }
  static CiSignalRecommendation recommendation(const trunk::JobVerdict& verdict, CiSignalType type) {
    return *signal(verdict, type).recommendation->known();
  }
  static trunk::ChangedFiles diff(std::int64_t files, std::int64_t lines) {
    trunk::ChangedFiles out;
    out.base = "1a2b3c4";
    out.total_files = files;
    out.total_additions = lines;
    out.total_deletions = 0;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(files, 200); ++i) {
      trunk::ChangedFile file;
      file.path = "src/f" + std::to_string(i) + ".cc";
      file.status = trunk::ChangedFileStatus::modified;
      out.files.push_back(std::move(file));
    }
    return out;
  }
  /// The wire field names a ValidationError reports ("" when the call throws none).
  template <typename Call>
  static std::vector<std::string> refused_fields(Call&& call) {
    try {
      call();
    } catch (const trunk::ValidationError& error) {
      std::vector<std::string> out;
      for (const auto& violation : error.violations()) out.push_back(violation.field);
      return out;
    }
    return {};
  }
  std::vector<trunk::CiWorkflow> workflows() {
    trunk::ListCiPrJobsRequest request;
    request.owner = repo().owner;
    request.name = repo().name;
    return client_->list_ci_pr_jobs(request).data;
  }
  trunk::SetCiForceOverridesRequest forces_request(std::int64_t number, std::vector<trunk::ForceOverrideRequest> set) {
    trunk::SetCiForceOverridesRequest request;
    request.repo = plan_repo();
    request.pr_number = number;
    request.head_sha = kSha;
    request.overrides = std::move(set);
    return request;
  }
  std::vector<trunk::ForceOverride> forces(std::int64_t number) {
    trunk::ListCiForceOverridesRequest request;
    request.owner = repo().owner;
    request.name = repo().name;
    request.pr_number = number;
    return client_->list_ci_force_overrides(request).data;
  }
};

TEST_F(DynamicCiV2, APlanFollowsTheTargetsUploadedForTheCommitBuiltAndTheDiffSent) {
  // Nothing known yet: every keyed job gets a verdict (not the unresolved one), and each runs, as two signals lack
  // evidence; every signal is listed, abstentions included, in the enumeration's order.
  const trunk::CiPlan first = client_->generate_ci_plan(plan_request(31));
  EXPECT_FALSE(first.notice.has_value());
  EXPECT_EQ(runs(first), (std::map<std::string, bool>{{"integration-tests", true}, {"lint", true}, {"unit-tests", true}}));
  ASSERT_EQ(first.jobs[0].signals.size(), 10u);
  EXPECT_EQ(first.jobs[0].signals[0].type->known(), CiSignalType::estimated_cost);
  EXPECT_EQ(recommendation(first.jobs[0], CiSignalType::paths_filter), CiSignalRecommendation::incomplete);
  EXPECT_EQ(recommendation(first.jobs[0], CiSignalType::diff_driven_volatility), CiSignalRecommendation::incomplete);
  EXPECT_EQ(*first.jobs[0].summary, "Running: 2 signals lack evidence, so the job runs to be safe.");

  // The targets uploaded for the commit (before any submission, as the publisher's Action does) decide.
  upload_targets(31, {"unit-tests", "web"});
  const trunk::CiPlan planned = client_->generate_ci_plan(plan_request(31));
  EXPECT_EQ(runs(planned), (std::map<std::string, bool>{{"integration-tests", false}, {"lint", false}, {"unit-tests", true}}));
  EXPECT_EQ(*planned.jobs[0].summary, "Skipping: 1 of 1 votes say it is safe to skip.");

  // Another commit of the pull request has no upload: back to running everything.
  auto pushed = plan_request(31);
  pushed.commit_sha = "0000000c2b4c9d1e0a3f5b6c7d8e9f0a1b2c3d4e";
  EXPECT_EQ(runs(client_->generate_ci_plan(pushed)).at("lint"), true);

  // A diff: nothing changed skips every job; a large change ties with "not impacted", and a tie runs.
  auto empty = plan_request(31);
  empty.changed_files = diff(0, 0);
  const trunk::CiPlan skipped = client_->generate_ci_plan(empty);
  EXPECT_EQ(runs(skipped), (std::map<std::string, bool>{{"integration-tests", false}, {"lint", false}, {"unit-tests", false}}));
  EXPECT_EQ(*skipped.jobs[0].summary, "Skipping: No file changed.");
  auto large = plan_request(31);
  large.changed_files = diff(3, trunk::sandbox::ci::kLargeChangeLines);
  EXPECT_EQ(runs(client_->generate_ci_plan(large)).at("lint"), true);
  auto small = plan_request(31);
  small.changed_files = diff(3, trunk::sandbox::ci::kLargeChangeLines - 1);
  const trunk::CiPlan small_plan = client_->generate_ci_plan(small);
  EXPECT_EQ(runs(small_plan).at("lint"), false);       // 2 votes against
  EXPECT_EQ(runs(small_plan).at("unit-tests"), true);  // 1 for, 1 against: a tie runs

  // An ignored signal keeps its recommendation, marked, and leaves the tally.
  auto ignoring = plan_request(31);
  ignoring.ignore_signals = std::vector<CiSignalType>{CiSignalType::paths_filter};
  const trunk::CiPlan ignored = client_->generate_ci_plan(ignoring);
  EXPECT_EQ(runs(ignored).at("lint"), true);
  EXPECT_EQ(signal(ignored.jobs[0], CiSignalType::paths_filter).ignored, true);
  EXPECT_EQ(recommendation(ignored.jobs[0], CiSignalType::paths_filter), CiSignalRecommendation::vote_no_run);

  // The jobs asked for, each once, in the order asked; a key the workflow lacks gets no verdict (it must run).
  auto some = plan_request(31);
  some.job_keys = std::vector<std::string>{"unit-tests", "no-such-job", "lint", "unit-tests"};
  const trunk::CiPlan picked = client_->generate_ci_plan(some);
  ASSERT_EQ(picked.jobs.size(), 2u);
  EXPECT_EQ(picked.jobs[0].job_key, "unit-tests");
  EXPECT_EQ(picked.jobs[1].job_key, "lint");

  // A merge queue's test run runs every job.
  auto queue_run = plan_request(31);
  queue_run.branch = "trunk-merge/main/31";
  EXPECT_EQ(runs(client_->generate_ci_plan(queue_run)).at("lint"), true);

  // A run that is not for a pull request: baseSha and prNumber unset are sent as null (the sandbox refuses a
  // request without them), and nothing is known to skip with.
  auto push = plan_request(31);
  push.base_sha.reset();
  push.pr_number.reset();
  push.branch = "main";
  EXPECT_EQ(runs(client_->generate_ci_plan(push)).at("lint"), true);
}

TEST_F(DynamicCiV2, BuildkiteStepsArePlannedAndAnUnknownWorkflowHostOrRepositoryIsSaid) {
  upload_targets(32, {"lint"});
  trunk::BuildkitePlanRequest buildkite;
  const trunk::CiPlanRequest github = plan_request(32);
  buildkite.repo = github.repo;
  buildkite.commit_sha = github.commit_sha;
  buildkite.base_sha = github.base_sha;
  buildkite.branch = github.branch;
  buildkite.pr_number = github.pr_number;
  buildkite.run_id = "01a0a151-99d4-4097-8806-a837f0830d9d";
  buildkite.run_attempt = 1;
  buildkite.buildkite_organization_slug = repo().owner;
  buildkite.buildkite_pipeline_slug = repo().name;
  EXPECT_EQ(runs(client_->generate_buildkite_ci_plan(buildkite)),
            (std::map<std::string, bool>{{"integration-tests", false}, {"lint", true}, {"unit-tests", false}}));

  auto other_pipeline = buildkite;
  other_pipeline.buildkite_pipeline_slug = "another-pipeline";
  const trunk::CiPlan unknown_pipeline = client_->generate_buildkite_ci_plan(other_pipeline);
  EXPECT_TRUE(unknown_pipeline.jobs.empty());
  EXPECT_EQ(unknown_pipeline.notice->code, "WORKFLOW_NOT_RECOGNIZED");
  auto other_workflow = github;
  other_workflow.workflow_path = ".github/workflows/release.yaml";
  EXPECT_EQ(client_->generate_ci_plan(other_workflow).notice->code, "WORKFLOW_NOT_RECOGNIZED");

  auto gitlab = github;
  gitlab.repo.host = "gitlab.com";
  EXPECT_EQ(error_code([&] { client_->generate_ci_plan(gitlab); }, 400), "CI_HOST_UNSUPPORTED");
  auto stranger = github;
  stranger.repo.name = "no-such-repository";
  EXPECT_EQ(not_found_code([&] { client_->generate_ci_plan(stranger); }), "REPOSITORY_NOT_FOUND");
  trunk::ListCiPrJobsRequest jobs;
  jobs.owner = repo().owner;
  jobs.name = "no-such-repository";
  EXPECT_EQ(not_found_code([&] { client_->list_ci_pr_jobs(jobs); }), "REPOSITORY_NOT_FOUND");
}

TEST_F(DynamicCiV2, ForcesAreReplacedAsAWholeAndMakeTheJobsTheyCoverRun) {
  const std::vector<trunk::CiWorkflow> listed = workflows();
  ASSERT_EQ(listed.size(), 2u);
  const trunk::CiWorkflow& ci = listed[0];
  EXPECT_EQ(ci.path, ".github/workflows/ci.yaml");
  EXPECT_FALSE(listed[1].path.has_value());  // a Buildkite pipeline has no workflow file
  ASSERT_EQ(ci.jobs.size(), 4u);
  EXPECT_FALSE(ci.jobs[3].job_key.has_value());  // not resolved: never planned, always run
  const std::string lint_id = *ci.jobs[0].job_id;
  EXPECT_EQ(ci.jobs[0].job_key, "lint");

  upload_targets(33, {});  // nothing impacted: every job would be skipped
  EXPECT_EQ(runs(client_->generate_ci_plan(plan_request(33))).at("lint"), false);

  trunk::ForceOverrideRequest lint;
  lint.scope = trunk::ForceOverrideScope::job;
  lint.workflow_id = *ci.workflow_id;
  lint.job_id = lint_id;
  client_->set_ci_force_overrides(forces_request(33, {lint}));
  const std::vector<trunk::ForceOverride> saved = forces(33);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].job_id, lint_id);
  EXPECT_EQ(saved[0].head_sha_at_save, kSha);
  const trunk::CiPlan forced = client_->generate_ci_plan(plan_request(33));
  EXPECT_EQ(runs(forced), (std::map<std::string, bool>{{"integration-tests", false}, {"lint", true}, {"unit-tests", false}}));
  EXPECT_EQ(*forced.jobs[0].summary, "Running: A force on this pull request covers this job.");
  EXPECT_TRUE(forces(34).empty());  // another pull request's are its own

  // Sent again, an active force is left as it was; a force left out is revoked.
  client_->set_ci_force_overrides(forces_request(33, {lint, lint}));
  const std::vector<trunk::ForceOverride> again = forces(33);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].id, saved[0].id);
  EXPECT_EQ(again[0].created_at, saved[0].created_at);
  trunk::ForceOverrideRequest whole;
  whole.scope = trunk::ForceOverrideScope::pull_request;
  client_->set_ci_force_overrides(forces_request(33, {whole}));
  const std::vector<trunk::ForceOverride> replaced = forces(33);
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_NE(replaced[0].id, saved[0].id);
  EXPECT_FALSE(replaced[0].workflow_id.has_value());
  EXPECT_EQ(runs(client_->generate_ci_plan(plan_request(33))).at("unit-tests"), true);
  client_->set_ci_force_overrides(forces_request(33, {}));
  EXPECT_TRUE(forces(33).empty());
  EXPECT_EQ(runs(client_->generate_ci_plan(plan_request(33))).at("lint"), false);

  // Scopes name the repository's workflows and jobs.
  trunk::ForceOverrideRequest stranger = lint;
  stranger.workflow_id = "2b3c4d5e-0000-4000-8000-000000000002";
  EXPECT_EQ(not_found_code([&] { client_->set_ci_force_overrides(forces_request(33, {stranger})); }),
            "CI_SCOPE_NOT_FOUND");
  trunk::ForceOverrideRequest crossed = lint;
  crossed.workflow_id = *listed[1].workflow_id;  // lint's id is the CI workflow's, not the pipeline's
  EXPECT_EQ(not_found_code([&] { client_->set_ci_force_overrides(forces_request(33, {crossed})); }),
            "CI_SCOPE_NOT_FOUND");

  // Which ids a scope takes, before anything is sent.
  trunk::ForceOverrideRequest no_job = lint;
  no_job.job_id.reset();
  EXPECT_EQ(refused_fields([&] { client_->set_ci_force_overrides(forces_request(33, {whole, no_job})); }),
            std::vector<std::string>{"overrides[1].jobId"});
  trunk::ForceOverrideRequest too_wide = whole;
  too_wide.workflow_id = *ci.workflow_id;
  EXPECT_EQ(refused_fields([&] { client_->set_ci_force_overrides(forces_request(33, {too_wide})); }),
            std::vector<std::string>{"overrides[0].workflowId"});
  trunk::ForceOverrideRequest workflow_with_job = lint;
  workflow_with_job.scope = trunk::ForceOverrideScope::workflow;
  EXPECT_EQ(refused_fields([&] { client_->set_ci_force_overrides(forces_request(33, {workflow_with_job})); }),
            std::vector<std::string>{"overrides[0].jobId"});
  EXPECT_EQ(refused_fields([&] { client_->set_ci_force_overrides(forces_request(0, {})); }),
            std::vector<std::string>{"prNumber"});
  EXPECT_TRUE(refused_fields([&] { client_->set_ci_force_overrides(forces_request(1, {})); }).empty());
}

TEST_F(DynamicCiV2, ThePlanRequestsRulesAreCheckedAtTheirBoundaries) {
  auto with = [&](auto change) {
    auto request = plan_request(35);
    change(request);
    return refused_fields([&] { client_->generate_ci_plan(request); });
  };
  using Fields = std::vector<std::string>;
  // The diff holds exactly min(totalFiles, 200) files, at most 200.
  EXPECT_EQ(with([](auto& r) { r.changed_files = diff(250, 10); }), Fields{});
  EXPECT_EQ(with([](auto& r) {
              r.changed_files = diff(3, 10);
              r.changed_files->files.pop_back();
            }),
            Fields{"changedFiles.files"});
  EXPECT_EQ(with([](auto& r) {
              r.changed_files = diff(250, 10);
              r.changed_files->files.push_back(r.changed_files->files.back());
            }),
            (Fields{"changedFiles.files", "changedFiles.files"}));  // over 200, and not min(totalFiles, 200)
  EXPECT_EQ(with([](auto& r) { r.changed_files = diff(1, 10), r.changed_files->total_deletions = -1; }),
            Fields{"changedFiles.totalDeletions"});
  EXPECT_EQ(with([](auto& r) { r.changed_files = diff(1, 10), r.changed_files->files[0].path = std::string(4096, 'a'); }),
            Fields{});
  EXPECT_EQ(with([](auto& r) { r.changed_files = diff(1, 10), r.changed_files->files[0].path = std::string(4097, 'a'); }),
            Fields{"changedFiles.files[0].path"});
  EXPECT_EQ(with([](auto& r) { r.changed_files = diff(1, 10), r.changed_files->files[0].previous_path = ""; }),
            Fields{"changedFiles.files[0].previousPath"});
  // Labels: at most 256 characters each, at most 1000; signals ignored: at most 64.
  EXPECT_EQ(with([](auto& r) { r.pr_labels = std::vector<std::string>{std::string(256, 'x')}; }), Fields{});
  EXPECT_EQ(with([](auto& r) { r.pr_labels = std::vector<std::string>{std::string(257, 'x')}; }), Fields{"prLabels[0]"});
  EXPECT_EQ(with([](auto& r) { r.pr_labels = std::vector<std::string>(1000, "bug"); }), Fields{});
  EXPECT_EQ(with([](auto& r) { r.pr_labels = std::vector<std::string>(1001, "bug"); }), Fields{"prLabels"});
  EXPECT_EQ(with([](auto& r) { r.ignore_signals = std::vector<CiSignalType>(64, CiSignalType::paths_filter); }), Fields{});
  EXPECT_EQ(with([](auto& r) { r.ignore_signals = std::vector<CiSignalType>(65, CiSignalType::paths_filter); }),
            Fields{"ignoreSignals"});

  trunk::BuildkitePlanRequest buildkite;
  buildkite.repo = plan_repo();
  buildkite.commit_sha = kSha;
  buildkite.branch = "main";
  buildkite.run_id = "1";
  buildkite.run_attempt = 1;
  buildkite.buildkite_organization_slug = std::string(200, 'o');
  buildkite.buildkite_pipeline_slug = "p";
  EXPECT_EQ(refused_fields([&] { client_->generate_buildkite_ci_plan(buildkite); }), Fields{});
  buildkite.buildkite_organization_slug += 'o';
  buildkite.buildkite_pipeline_slug.clear();
  EXPECT_EQ(refused_fields([&] { client_->generate_buildkite_ci_plan(buildkite); }),
            (Fields{"buildkiteOrganizationSlug", "buildkitePipelineSlug"}));
}

TEST_F(DynamicCiV2, ARequiredFieldThatMayBeNullIsSentAsNullAndMissingItIsRefused) {
  // The encoder: an unset baseSha and prNumber are written as null; an unset optional field is not written.
  auto request = plan_request(36);
  request.base_sha.reset();
  request.pr_number.reset();
  const trunk::Json sent = trunk::to_json(request);
  EXPECT_TRUE(sent.at("baseSha").is_null());
  EXPECT_TRUE(sent.at("prNumber").is_null());
  EXPECT_FALSE(sent.contains("triggeringActor"));
  EXPECT_FALSE(sent.contains("changedFiles"));
  EXPECT_FALSE(sent.at("repo").contains("host"));

  // The service side: null is a value; a missing key, an unknown signal or a wrong type is refused.
  httplib::Client http(sandbox_->url());
  const httplib::Headers bearer{{"Authorization", "Bearer " + sandbox_->api_key()}};
  auto post = [&](const trunk::Json& body) {
    return http.Post("/v2/dynamic-ci/generate-plan", bearer, body.dump(), "application/json");
  };
  const auto accepted = post(sent);
  ASSERT_TRUE(accepted);
  EXPECT_EQ(accepted->status, 200) << accepted->body;
  trunk::Json missing = sent;
  missing.erase("baseSha");
  const auto refused = post(missing);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_NE(refused->body.find("baseSha"), std::string::npos) << refused->body;
  trunk::Json typo = sent;
  typo["ignoreSignals"] = trunk::Json::array({"paths-filtre"});
  const auto unknown_signal = post(typo);
  ASSERT_TRUE(unknown_signal);
  EXPECT_EQ(unknown_signal->status, 400);
  EXPECT_NE(unknown_signal->body.find("paths-filtre"), std::string::npos) << unknown_signal->body;
  trunk::Json null_sha = sent;
  null_sha["commitSha"] = nullptr;  // required and not nullable
  const auto wrong = post(null_sha);
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400);

  const auto put = http.Post("/v2/dynamic-ci/force-overrides", bearer, "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(put->get_header_value("Allow"), "GET, PUT");
}

}  // namespace
}  // namespace sandbox_test
