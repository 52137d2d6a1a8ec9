#pragma once
// Repository reference sent in every request (interface.md §2, `repo`).

#include <string>
#include <string_view>

namespace trunk {

struct Repo {
  std::string host;   ///< "github.com", "gitlab.com" or a self-hosted host name
  std::string owner;  ///< GitLab owners may contain '/' (subgroups)
  std::string name;

  /// Parses "host/owner/name"; the owner is everything between the first and the last '/', so GitLab
  /// subgroups ("gitlab.com/group/sub/project") work. Throws ValidationError (field "repo") when there are
  /// fewer than three non-empty parts.
  static Repo parse(std::string_view text);
  /// "host/owner/name", the inverse of parse.
  std::string to_string() const;

  bool operator==(const Repo&) const = default;
};

}  // namespace trunk
