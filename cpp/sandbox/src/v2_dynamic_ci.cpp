// The sandbox's Dynamic CI (docs/sandbox.md#dynamic-ci): plans decided by ci_plan.hpp's rules from the impacted
// targets uploaded for the commit built and the forces of its pull request; the repositories' CI definitions; the
// forces, kept per pull request in memory (not in the state file), replaced as a whole by each PUT.
#include <algorithm>
#include <type_traits>

#include "ci_plan.hpp"
#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

/// Whether a force covers the job `job` of `workflow`.
bool covers(const trunk::ForceOverride& force, const ci::Workflow& workflow, const ci::JobDefinition& job) {
  const auto scope = v2::known(force.scope);
  if (scope == trunk::ForceOverrideScope::pull_request) return true;
  if (force.workflow_id != workflow.id) return false;
  return scope == trunk::ForceOverrideScope::workflow || force.job_id == ci::job_id(workflow, job);
}

/// Whether two forces cover the same jobs (a force's identity in a PUT's set: its scope and ids).
bool same_scope(const trunk::ForceOverride& a, const trunk::ForceOverride& b) {
  return a.scope == b.scope && a.workflow_id == b.workflow_id && a.job_id == b.job_id;
}

/// The jobs a plan decides: those asked for, in the order asked (each once), else every keyed one.
std::vector<const ci::JobDefinition*> jobs_asked(const std::optional<std::vector<std::string>>& keys) {
  std::vector<const ci::JobDefinition*> out;
  for (const ci::JobDefinition& job : ci::kCiJobs) {
    if (!job.key.empty() && (!keys || keys->empty())) out.push_back(&job);
  }
  if (!keys || keys->empty()) return out;
  for (const std::string& key : *keys) {
    const auto it = std::find_if(ci::kCiJobs.begin(), ci::kCiJobs.end(),
                                 [&](const ci::JobDefinition& job) { return !job.key.empty() && job.key == key; });
    // A key the workflow lacks gets no verdict: the caller runs it (the contract's fail-safe).
    if (it != ci::kCiJobs.end() && std::find(out.begin(), out.end(), &*it) == out.end()) out.push_back(&*it);
  }
  return out;
}

Reply no_content() {
  Reply reply;
  reply.status = 204;
  reply.content_type.clear();
  return reply;
}

}  // namespace

std::variant<trunk::Repo, Reply> V2Service::ci_repository(const std::optional<std::string>& host,
                                                          const std::string& owner, const std::string& name) const {
  const std::string wanted_host = lower(host.value_or("github.com"));
  if (wanted_host != "github.com") {
    return v2_error(400, "CI_HOST_UNSUPPORTED", "Dynamic CI supports github.com only, not " + wanted_host);
  }
  for (const trunk::Repo& repo : repos_) {
    if (lower(repo.host) == wanted_host && lower(repo.owner) == lower(owner) && lower(repo.name) == lower(name)) {
      return repo;
    }
  }
  return v2_error(404, "REPOSITORY_NOT_FOUND", "no repository is github.com/" + owner + "/" + name);
}

std::optional<trunk::ImpactedTargets> V2Service::impacted_targets_at(const trunk::Repo& repo, std::int64_t number,
                                                                     const std::string& sha) {
  const std::string repo_key = repo.to_string();
  for (const auto& [key, branch] : queues_.keys()) {
    if (key != repo_key) continue;
    std::optional<trunk::ImpactedTargets> found;
    queues_.with_queue(repo, branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
      found = queue.impacted_targets_at(number, sha);
      return 0;
    });
    if (found) return found;
  }
  return std::nullopt;
}

template <typename PlanRequest>
Reply V2Service::ci_plan(const PlanRequest& request) {
  auto found = ci_repository(request.repo.host, request.repo.owner, request.repo.name);
  if (Reply* refused = std::get_if<Reply>(&found)) return std::move(*refused);
  const trunk::Repo& repo = std::get<trunk::Repo>(found);
  const std::vector<ci::Workflow> workflows = ci::workflows_of(repo.to_string(), repo.owner, repo.name);
  const auto workflow = std::find_if(workflows.begin(), workflows.end(), [&](const ci::Workflow& candidate) {
    if constexpr (std::is_same_v<PlanRequest, trunk::BuildkitePlanRequest>) {
      return lower(candidate.organization_slug) == lower(request.buildkite_organization_slug) &&
             lower(candidate.pipeline_slug) == lower(request.buildkite_pipeline_slug);
    } else {
      return candidate.path == request.workflow_path;
    }
  });
  trunk::CiPlan plan;
  if (workflow == workflows.end()) {
    trunk::PlanNotice notice;
    notice.code = "WORKFLOW_NOT_RECOGNIZED";
    notice.message = "Every job will run: Trunk has not seen this workflow run on the repository's pull requests.";
    plan.notice = std::move(notice);
    return json_reply(v2::answer_json(plan));
  }

  ci::RunFacts facts;
  facts.pull_request = request.pr_number.has_value();
  facts.commit_sha = request.commit_sha;
  facts.branch = request.branch;
  facts.has_base = request.base_sha.has_value();
  facts.changed_files = request.changed_files;
  facts.ignored = request.ignore_signals.value_or(std::vector<trunk::CiSignalType>{});
  std::vector<trunk::ForceOverride> forces;
  if (request.pr_number) {
    if (auto targets = impacted_targets_at(repo, *request.pr_number, request.commit_sha)) {
      if (const auto* names = std::get_if<std::vector<std::string>>(&*targets)) {
        facts.targets = *names;
      } else {
        facts.targets.emplace();
        facts.all_targets = true;
      }
    }
    std::lock_guard lock(mutex_);
    if (const auto it = ci_forces_.find({repo.to_string(), *request.pr_number}); it != ci_forces_.end()) {
      forces = it->second;
    }
  }
  for (const ci::JobDefinition* job : jobs_asked(request.job_keys)) {
    const bool forced = std::any_of(forces.begin(), forces.end(),
                                    [&](const trunk::ForceOverride& force) { return covers(force, *workflow, *job); });
    plan.jobs.push_back(ci::verdict(*job, facts, forced));
  }
  return json_reply(v2::answer_json(plan));
}

template <>
Reply V2Service::answer<trunk::op::GenerateCiPlan>(const trunk::CiPlanRequest& request) {
  return ci_plan(request);
}

template <>
Reply V2Service::answer<trunk::op::GenerateBuildkiteCiPlan>(const trunk::BuildkitePlanRequest& request) {
  return ci_plan(request);
}

template <>
Reply V2Service::answer<trunk::op::ListCiPrJobs>(const trunk::ListCiPrJobsRequest& request) {
  auto found = ci_repository(request.host, request.owner, request.name);
  if (Reply* refused = std::get_if<Reply>(&found)) return std::move(*refused);
  const trunk::Repo& repo = std::get<trunk::Repo>(found);
  std::vector<trunk::CiWorkflow> listed;
  for (const ci::Workflow& workflow : ci::workflows_of(repo.to_string(), repo.owner, repo.name)) {
    listed.push_back(ci::to_ci_workflow(workflow));
  }
  return v2::page_reply(v2::page_of<trunk::CiWorkflowList>(std::move(listed), request, "ci workflows\n" + repo.to_string()));
}

template <>
Reply V2Service::answer<trunk::op::ListCiForceOverrides>(const trunk::ListCiForceOverridesRequest& request) {
  auto found = ci_repository(request.host, request.owner, request.name);
  if (Reply* refused = std::get_if<Reply>(&found)) return std::move(*refused);
  const std::string repo_key = std::get<trunk::Repo>(found).to_string();
  std::vector<trunk::ForceOverride> forces;
  {
    std::lock_guard lock(mutex_);
    if (const auto it = ci_forces_.find({repo_key, request.pr_number}); it != ci_forces_.end()) forces = it->second;
  }
  return v2::page_reply(v2::page_of<trunk::ForceOverrideList>(
      std::move(forces), request, "ci forces\n" + repo_key + "\n" + std::to_string(request.pr_number)));
}

template <>
Reply V2Service::answer<trunk::op::SetCiForceOverrides>(const trunk::SetCiForceOverridesRequest& request) {
  auto found = ci_repository(request.repo.host, request.repo.owner, request.repo.name);
  if (Reply* refused = std::get_if<Reply>(&found)) return std::move(*refused);
  const trunk::Repo& repo = std::get<trunk::Repo>(found);
  const std::vector<ci::Workflow> workflows = ci::workflows_of(repo.to_string(), repo.owner, repo.name);
  // Every scope must name a workflow and job of the repository (the request's own rules, which ids each scope
  // takes, were checked when it was read: validation.cpp). Ids compare in any case; the forces keep ours.
  std::vector<trunk::ForceOverride> wanted;
  for (std::size_t i = 0; i < request.overrides.size(); ++i) {
    const trunk::ForceOverrideRequest& asked = request.overrides[i];
    const std::string where = "overrides[" + std::to_string(i) + "]";
    trunk::ForceOverride force;
    force.scope = asked.scope;
    if (asked.workflow_id) {
      const auto workflow = std::find_if(workflows.begin(), workflows.end(), [&](const ci::Workflow& candidate) {
        return candidate.id == lower(*asked.workflow_id);
      });
      if (workflow == workflows.end()) {
        return v2_error(404, "CI_SCOPE_NOT_FOUND", where + ".workflowId: no workflow of the repository has the id " +
                                                       *asked.workflow_id);
      }
      force.workflow_id = workflow->id;
      if (asked.job_id) {
        const auto job = std::find_if(ci::kCiJobs.begin(), ci::kCiJobs.end(), [&](const ci::JobDefinition& candidate) {
          return ci::job_id(*workflow, candidate) == lower(*asked.job_id);
        });
        if (job == ci::kCiJobs.end()) {
          return v2_error(404, "CI_SCOPE_NOT_FOUND",
                          where + ".jobId: no job of the workflow " + workflow->id + " has the id " + *asked.job_id);
        }
        force.job_id = ci::job_id(*workflow, *job);
      }
    }
    const bool repeated = std::any_of(wanted.begin(), wanted.end(),
                                      [&](const trunk::ForceOverride& other) { return same_scope(other, force); });
    if (!repeated) wanted.push_back(std::move(force));
  }
  std::lock_guard lock(mutex_);
  std::vector<trunk::ForceOverride>& active = ci_forces_[{repo.to_string(), request.pr_number}];
  std::vector<trunk::ForceOverride> next;
  for (trunk::ForceOverride& force : wanted) {
    // An active force asked for again is left alone (its id, commit and time); a new one is saved now.
    const auto kept = std::find_if(active.begin(), active.end(),
                                   [&](const trunk::ForceOverride& other) { return same_scope(other, force); });
    if (kept != active.end()) {
      next.push_back(*kept);
      continue;
    }
    force.id = uuid_of("ci force\n" + std::to_string(++ci_forces_made_));
    force.head_sha_at_save = request.head_sha;
    force.created_at = clock_();
    next.push_back(std::move(force));
  }
  std::stable_sort(next.begin(), next.end(), [](const trunk::ForceOverride& a, const trunk::ForceOverride& b) {
    return *a.created_at < *b.created_at;
  });
  if (next.empty()) {
    ci_forces_.erase({repo.to_string(), request.pr_number});
  } else {
    active = std::move(next);
  }
  return no_content();
}

}  // namespace trunk::sandbox
