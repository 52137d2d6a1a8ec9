#include "trunk/repo.hpp"

#include <algorithm>
#include <cctype>

#include "text.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace {

constexpr std::string_view kForm = "must be host/owner/name, e.g. github.com/acme/widgets (";

[[noreturn]] void reject_shown(std::string shown, const std::string& why) {
  throw ValidationError({{"repo", std::move(shown), std::string(kForm) + why + ")"}});
}

[[noreturn]] void reject(std::string_view text, const std::string& why) { reject_shown(detail::quoted(text), why); }

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

/// The repository part of a web or clone address, as a browser or `git clone` shows it: the scheme
/// (https:// or http://), trailing '/' and a trailing ".git" are not part of the repository's name.
std::string_view strip_address(std::string_view text) {
  std::string_view rest = text;
  if (const auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    const std::string_view name = rest.substr(0, scheme);
    if (!equal_ignoring_case(name, "https") && !equal_ignoring_case(name, "http")) {
      reject(text, "of a web address only https:// and http:// are understood; drop the scheme");
    }
    rest.remove_prefix(scheme + 3);
  }
  const std::string_view authority = rest.substr(0, rest.find('/'));
  if (const auto at = authority.find('@'); at != std::string_view::npos) {
    // A clone address may carry a credential (https://user:token@host/...): it is never repeated in a message.
    reject_shown("\"" + std::string(text.substr(0, text.size() - rest.size())) + "***" +
                     detail::printable(rest.substr(at)) + "\"",
                 "it must not carry a user name or a credential");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    reject(text, "a web address's query or fragment is not part of it");
  }
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.size() > 4 && rest.ends_with(".git") && rest[rest.size() - 5] != '/') rest.remove_suffix(4);
  return rest;
}

}  // namespace

Repo Repo::parse(std::string_view text) {
  // One decision for every caller (C++, Python, the CLI): a repository may be given as the address of its page
  // (https://github.com/acme/widgets, with or without "https://", a trailing '/' or ".git"), since that is
  // what people copy; it names the same host/owner/name.
  const std::string_view path = strip_address(text);
  const auto first = path.find('/');
  const auto last = path.rfind('/');
  if (first == std::string_view::npos || first == last) reject(text, "needs at least three parts");
  Repo repo{std::string(path.substr(0, first)), std::string(path.substr(first + 1, last - first - 1)),
            std::string(path.substr(last + 1))};
  if (repo.host.empty()) reject(text, "the host is empty");
  if (repo.name.empty()) reject(text, "the name is empty");
  // The owner may hold GitLab subgroups ("group/sub"), but none of its segments may be empty.
  if (repo.owner.empty() || repo.owner.front() == '/' || repo.owner.back() == '/' ||
      repo.owner.find("//") != std::string::npos) {
    reject(text, "the owner has an empty part");
  }
  // GitHub has no subgroups: more parts are the address of a page inside the repository (/pull/42, /tree/main),
  // which would otherwise be read as owner "acme/widgets/pull" and name "42".
  if (equal_ignoring_case(repo.host, "github.com") && repo.owner.find('/') != std::string::npos) {
    reject(text, "a GitHub repository has exactly three parts; drop what follows the name");
  }
  return repo;
}

std::string Repo::to_string() const { return host + '/' + owner + '/' + name; }

}  // namespace trunk
