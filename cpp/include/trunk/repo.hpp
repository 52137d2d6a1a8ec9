#pragma once
// Repository reference sent in every request (docs/reference/service.md#repo).

#include <string>
#include <string_view>

#include "trunk/describe.hpp"

namespace trunk {

#define TRUNK_REPO_FIELDS(X)                                                                                    \
  X(std::string, host, "host", {}, schema::kRequiredText, "github.com, gitlab.com or a self-hosted host name") \
  X(std::string, owner, "owner", {}, schema::kRequiredText, "owner; GitLab owners may contain '/' (subgroups)") \
  X(std::string, name, "name", {}, schema::kRequiredText, "repository name")

struct Repo {
  TRUNK_MEMBERS(TRUNK_REPO_FIELDS)

  /// Parses "host/owner/name"; the owner is everything between the first and the last '/', so GitLab
  /// subgroups ("gitlab.com/group/sub/project") work. Throws ValidationError (field "repo") when there are
  /// fewer than three non-empty parts.
  static Repo parse(std::string_view text);
  /// "host/owner/name", the inverse of parse.
  std::string to_string() const;

  bool operator==(const Repo&) const = default;
};
TRUNK_DESCRIBE(Repo, "A repository: host (github.com, gitlab.com or self-hosted), owner, name.", TRUNK_REPO_FIELDS)

}  // namespace trunk
