#include "ci_plan.hpp"

#include <algorithm>

#include "v2_service.hpp"

namespace trunk::sandbox::ci {

namespace {

using trunk::CiSignalRecommendation;
using trunk::CiSignalType;

struct Signal {
  CiSignalRecommendation recommendation = CiSignalRecommendation::abstain;
  std::string message;
};

std::string short_sha(const std::string& sha) { return sha.substr(0, 7); }

// ---- one rule per signal the sandbox models (ci_plan.hpp) -----------------------------------------------------
Signal force_override(bool forced) {
  if (forced) return {CiSignalRecommendation::must_run, "A force on this pull request covers this job."};
  return {CiSignalRecommendation::abstain, "No force on this pull request covers this job."};
}

Signal merge_queue_is_required(const RunFacts& facts) {
  if (facts.branch.starts_with(kMergeQueueBranchPrefix)) {
    return {CiSignalRecommendation::must_run, "A merge queue's test run (" + facts.branch + ") runs every job."};
  }
  return {CiSignalRecommendation::abstain, "Not a merge queue's test run."};
}

Signal paths_filter(const JobDefinition& job, const RunFacts& facts) {
  if (!facts.pull_request) {
    return {CiSignalRecommendation::incomplete, "Not a pull request: no impacted targets to read."};
  }
  if (!facts.targets) {
    return {CiSignalRecommendation::incomplete,
            "No impacted targets were uploaded for " + short_sha(facts.commit_sha) + "."};
  }
  const std::string target(job.key);
  if (facts.all_targets) {
    return {CiSignalRecommendation::vote_run, "Every target is impacted at " + short_sha(facts.commit_sha) + "."};
  }
  if (std::find(facts.targets->begin(), facts.targets->end(), target) != facts.targets->end()) {
    return {CiSignalRecommendation::vote_run,
            "Target " + target + " is impacted at " + short_sha(facts.commit_sha) + "."};
  }
  return {CiSignalRecommendation::vote_no_run,
          "Target " + target + " is not impacted at " + short_sha(facts.commit_sha) + "."};
}

Signal diff_driven_volatility(const RunFacts& facts) {
  if (!facts.changed_files) {
    return {CiSignalRecommendation::incomplete, facts.has_base
                                                    ? "No changed files were sent, and the sandbox cannot fetch a diff."
                                                    : "No diff: the run has no base commit."};
  }
  const trunk::ChangedFiles& diff = *facts.changed_files;
  if (diff.total_files == 0) return {CiSignalRecommendation::never_run, "No file changed."};
  const std::int64_t lines = diff.total_additions + diff.total_deletions;
  const std::string size = std::to_string(lines) + " lines in " + std::to_string(diff.total_files) + " files";
  if (lines >= kLargeChangeLines) return {CiSignalRecommendation::vote_run, "A large change: " + size + "."};
  return {CiSignalRecommendation::vote_no_run, "A small change: " + size + "."};
}

Signal not_modelled(CiSignalType type) {
  switch (type) {
    case CiSignalType::estimated_cost: return {CiSignalRecommendation::abstain, "The sandbox keeps no job costs."};
    case CiSignalType::previous_result_on_pr:
    case CiSignalType::historical_pass_rate:
    case CiSignalType::merge_failure:
      return {CiSignalRecommendation::abstain, "The sandbox keeps no job outcomes."};
    case CiSignalType::mid_pr_stack: return {CiSignalRecommendation::abstain, "The sandbox has no stacked pull requests."};
    case CiSignalType::required_check: return {CiSignalRecommendation::abstain, "The sandbox marks no job required."};
    default: return {};
  }
}

Signal signal_of(CiSignalType type, const JobDefinition& job, const RunFacts& facts, bool forced) {
  switch (type) {
    case CiSignalType::force_override: return force_override(forced);
    case CiSignalType::merge_queue_is_required: return merge_queue_is_required(facts);
    case CiSignalType::paths_filter: return paths_filter(job, facts);
    case CiSignalType::diff_driven_volatility: return diff_driven_volatility(facts);
    default: return not_modelled(type);
  }
}

}  // namespace

std::vector<Workflow> workflows_of(const std::string& repo_key, const std::string& owner, const std::string& name) {
  Workflow github{uuid_of("ci workflow\n" + repo_key + "\n" + std::string(kWorkflowPath)), std::string(kWorkflowName),
                  std::string(kWorkflowPath), "", ""};
  Workflow buildkite{uuid_of("ci pipeline\n" + repo_key), owner + "/" + name, std::nullopt, owner, name};
  return {std::move(github), std::move(buildkite)};
}

std::string job_id(const Workflow& workflow, const JobDefinition& job) {
  return uuid_of("ci job\n" + workflow.id + "\n" + std::string(job.key.empty() ? job.name : job.key));
}

trunk::CiWorkflow to_ci_workflow(const Workflow& workflow) {
  trunk::CiWorkflow out;
  out.workflow_id = workflow.id;
  out.name = workflow.name;
  out.path = workflow.path;
  for (const JobDefinition& job : kCiJobs) {
    trunk::CiJob listed;
    listed.job_id = job_id(workflow, job);
    if (!job.key.empty()) listed.job_key = std::string(job.key);
    listed.name = std::string(job.name);
    out.jobs.push_back(std::move(listed));
  }
  return out;
}

trunk::JobVerdict verdict(const JobDefinition& job, const RunFacts& facts, bool forced) {
  trunk::JobVerdict out;
  out.job_key = std::string(job.key);
  int must = 0, never = 0, incomplete = 0, for_run = 0, against = 0;
  std::string must_why, never_why;  // the first hard verdict of each kind: what the summary says
  for (std::size_t i = 0; i < schema::Enum<CiSignalType>::wire.size(); ++i) {
    const auto type = static_cast<CiSignalType>(i);
    Signal signal = signal_of(type, job, facts, forced);
    const bool ignored = std::find(facts.ignored.begin(), facts.ignored.end(), type) != facts.ignored.end();
    if (!ignored) {
      switch (signal.recommendation) {
        case CiSignalRecommendation::must_run:
          if (must++ == 0) must_why = signal.message;
          break;
        case CiSignalRecommendation::never_run:
          if (never++ == 0) never_why = signal.message;
          break;
        case CiSignalRecommendation::incomplete: ++incomplete; break;
        case CiSignalRecommendation::vote_run: ++for_run; break;
        case CiSignalRecommendation::vote_no_run: ++against; break;
        case CiSignalRecommendation::abstain: break;
      }
    }
    trunk::CiSignalResult result;
    result.type = type;
    result.recommendation = signal.recommendation;
    result.message = std::move(signal.message);
    result.ignored = ignored;
    out.signals.push_back(std::move(result));
  }
  bool run = true;
  std::string why;
  if (must > 0) {
    why = must_why;
  } else if (never > 0) {
    run = false;
    why = never_why;
  } else if (incomplete >= 2) {
    why = std::to_string(incomplete) + " signals lack evidence, so the job runs to be safe.";
  } else if (against > for_run) {
    run = false;
    why = std::to_string(against) + " of " + std::to_string(against + for_run) + " votes say it is safe to skip.";
  } else {
    why = for_run > 0 ? std::to_string(for_run) + " of " + std::to_string(against + for_run) + " votes say run it."
                      : "No signal says it is safe to skip.";
  }
  out.run = run;
  out.summary = (run ? "Running: " : "Skipping: ") + why;
  return out;
}

}  // namespace trunk::sandbox::ci
