#pragma once
// The repositories of Trunk's v2 API (docs/reference/v2.md#repositories): the repository a v2 id names, and the
// requests that find one by id or by its address on the code host. v1 names a repository by "host/owner/name"
// (Repo); v2 by a UUID, which these operations resolve.

#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"
#include "trunk/v2_page.hpp"

namespace trunk {

#define TRUNK_REPOSITORY_FIELDS(X)                                                                            \
  X(std::optional<std::string>, id, "id", {}, schema::kRequired, "the repository's id (a UUID)")              \
  X(std::optional<OpenEnum<RepositoryProvider>>, provider, "provider", {}, schema::kRequired, "its code host") \
  X(std::optional<std::string>, path, "path", {}, schema::kRequired, "owner/name on the code host")           \
  X(std::optional<std::string>, host, "host", {}, (schema::Rules{.required = true, .nullable = true}),        \
    "the code host's name (null when unknown)")                                                              \
  X(std::optional<std::string>, url, "url", {}, schema::kRequired, "its address on the code host")            \
  X(std::optional<std::string>, default_branch, "defaultBranch", {}, (schema::Rules{.required = true, .nullable = true}), \
    "its default branch (null when unknown)")                                                                \
  X(std::optional<bool>, is_private, "isPrivate", {}, (schema::Rules{.required = true, .nullable = true}),    \
    "whether it is private (null when unknown)")                                                             \
  X(std::optional<Timestamp>, created_at, "createdAt", {}, schema::kRequired, "when Trunk first saw it")      \
  X(std::optional<Timestamp>, updated_at, "updatedAt", {}, schema::kRequired, "when it last changed")

struct Repository {
  TRUNK_MEMBERS(TRUNK_REPOSITORY_FIELDS)
  Extras extra;
  bool operator==(const Repository&) const = default;
};
TRUNK_DESCRIBE(Repository, "A repository Trunk knows, by its v2 id.", TRUNK_REPOSITORY_FIELDS)

#define TRUNK_REPOSITORY_LIST_FIELDS(X)                                                                       \
  X(std::vector<Repository>, data, "data", {}, schema::kRequired, "the repositories of this page")            \
  TRUNK_V2_PAGE_FIELDS(X)

struct RepositoryList {
  TRUNK_MEMBERS(TRUNK_REPOSITORY_LIST_FIELDS)
  Extras extra;
  bool operator==(const RepositoryList&) const = default;
};
TRUNK_DESCRIBE(RepositoryList, "One page of repositories.", TRUNK_REPOSITORY_LIST_FIELDS)

// ---- requests ------------------------------------------------------------------------------------------------
#define TRUNK_REPOSITORY_ID_FIELD(X) X(std::string, id, "id", {}, schema::kPathUuid, "the repository's id (a UUID)")

struct RepositoryRefV2 {
  TRUNK_MEMBERS(TRUNK_REPOSITORY_ID_FIELD)
  bool operator==(const RepositoryRefV2&) const = default;
};
TRUNK_DESCRIBE(RepositoryRefV2, "A repository, by id.", TRUNK_REPOSITORY_ID_FIELD)

#define TRUNK_RESOLVE_REPOSITORIES_FIELDS(X)                                                                  \
  X(std::string, provider_url, "providerUrl", {}, schema::kRequiredText,                                      \
    "the repository's address on its code host (https://github.com/acme/widgets)")                           \
  TRUNK_V2_PAGE_QUERY_FIELDS(X)

struct ResolveRepositoriesRequest {
  TRUNK_MEMBERS(TRUNK_RESOLVE_REPOSITORIES_FIELDS)
  bool operator==(const ResolveRepositoriesRequest&) const = default;
};
TRUNK_DESCRIBE(ResolveRepositoriesRequest, "The repositories at an address on the code host.",
               TRUNK_RESOLVE_REPOSITORIES_FIELDS)

#define TRUNK_REPOSITORY_V2_ANSWER_MODELS(X) X(Repository) X(RepositoryList)
#define TRUNK_REPOSITORY_V2_REQUEST_MODELS(X) X(RepositoryRefV2) X(ResolveRepositoriesRequest)

}  // namespace trunk
