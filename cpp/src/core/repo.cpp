#include "trunk/repo.hpp"

#include "text.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace {
[[noreturn]] void reject(std::string_view text, const std::string& why) {
  throw ValidationError({{"repo", detail::quoted(text),
                          "must be host/owner/name, e.g. github.com/acme/widgets (" + why + ")"}});
}
}  // namespace

Repo Repo::parse(std::string_view text) {
  const auto first = text.find('/');
  const auto last = text.rfind('/');
  if (first == std::string_view::npos || first == last) reject(text, "needs at least three parts");
  Repo repo{std::string(text.substr(0, first)), std::string(text.substr(first + 1, last - first - 1)),
            std::string(text.substr(last + 1))};
  if (repo.host.empty()) reject(text, "the host is empty");
  if (repo.name.empty()) reject(text, "the name is empty");
  // The owner may hold GitLab subgroups ("group/sub"), but none of its segments may be empty.
  if (repo.owner.empty() || repo.owner.front() == '/' || repo.owner.back() == '/' ||
      repo.owner.find("//") != std::string::npos) {
    reject(text, "the owner has an empty part");
  }
  return repo;
}

std::string Repo::to_string() const { return host + '/' + owner + '/' + name; }

}  // namespace trunk
