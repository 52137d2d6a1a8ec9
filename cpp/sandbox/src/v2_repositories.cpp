// The sandbox's v2 repositories (docs/sandbox.md#v2): the repositories it serves, by their v2 id (a UUID derived
// from "host/owner/name", repository_id) or by their address on the code host ("https://github.com/acme/widgets",
// with or without the scheme, a trailing slash or ".git").
#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

/// "host/owner/name" of a provider URL, lower case; "" when it is not one.
std::string repo_key_of_url(std::string url) {
  url = lower(std::move(url));
  for (const std::string_view scheme : {"https://", "http://"}) {
    if (url.starts_with(scheme)) url.erase(0, scheme.size());
  }
  while (url.ends_with('/')) url.pop_back();
  if (url.ends_with(".git")) url.erase(url.size() - 4);
  return url;
}

trunk::RepositoryProvider provider_of(const std::string& host) {
  if (host == "github.com") return trunk::RepositoryProvider::github;
  if (host == "gitlab.com") return trunk::RepositoryProvider::gitlab;
  if (host == "bitbucket.org") return trunk::RepositoryProvider::bitbucket;
  return trunk::RepositoryProvider::unknown;
}

}  // namespace

trunk::Repository V2Service::to_repository(const trunk::Repo& repo) {
  const std::string key = repo.to_string();
  trunk::Repository out;
  out.id = repository_id(key);
  out.provider = provider_of(repo.host);
  out.path = repo.owner + "/" + repo.name;
  out.host = repo.host;
  out.url = "https://" + key;
  out.default_branch = kDefaultBranch;
  out.is_private = true;
  std::lock_guard lock(mutex_);
  const auto seen = repositories_seen_.try_emplace(key, clock_()).first->second;
  out.created_at = out.updated_at = seen;
  return out;
}

template <>
Reply V2Service::answer<trunk::op::GetRepository>(const trunk::RepositoryRefV2& request) {
  const auto repo = find_repository(request.id);
  if (!repo) return v2_error(404, "REPOSITORY_NOT_FOUND", "no repository has the id " + request.id);
  return json_reply(trunk::to_json(to_repository(*repo)));
}

template <>
Reply V2Service::answer<trunk::op::ResolveRepositories>(const trunk::ResolveRepositoriesRequest& request) {
  const std::string wanted = repo_key_of_url(request.provider_url);
  std::vector<trunk::Repository> all;
  for (const trunk::Repo& repo : repos_) {
    if (lower(repo.to_string()) == wanted) all.push_back(to_repository(repo));
  }
  if (all.empty()) {
    return v2_error(404, "PROVIDER_URL_NOT_FOUND", "no repository is at " + request.provider_url);
  }
  return v2::page_reply(v2::page_of<trunk::RepositoryList>(std::move(all), request, wanted));
}

}  // namespace trunk::sandbox
