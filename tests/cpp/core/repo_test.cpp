#include "trunk/repo.hpp"

#include <gtest/gtest.h>

#include "trunk/error.hpp"

namespace {

using trunk::Repo;

TEST(RepoParse, SplitsHostOwnerAndName) {
  EXPECT_EQ(Repo::parse("github.com/acme/widgets"), (Repo{"github.com", "acme", "widgets"}));
  EXPECT_EQ(Repo::parse("git.example.internal/team/service"),
            (Repo{"git.example.internal", "team", "service"}));
}

TEST(RepoParse, KeepsGitLabSubgroupsInTheOwner) {
  EXPECT_EQ(Repo::parse("gitlab.com/group/sub/project"), (Repo{"gitlab.com", "group/sub", "project"}));
  EXPECT_EQ(Repo::parse("gitlab.com/a/b/c/d/project"), (Repo{"gitlab.com", "a/b/c/d", "project"}));
}

TEST(RepoParse, ToStringIsTheInverse) {
  for (const char* text : {"github.com/acme/widgets", "gitlab.com/group/sub/project"}) {
    EXPECT_EQ(Repo::parse(text).to_string(), text);
  }
  EXPECT_EQ((Repo{"gitlab.com", "g/s", "p"}).to_string(), "gitlab.com/g/s/p");
}

TEST(RepoParse, RejectsBadFormsNamingTheRepoField) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "at least three parts"},
      {"widgets", "at least three parts"},
      {"github.com/widgets", "at least three parts"},
      {"/acme/widgets", "the host is empty"},
      {"github.com/acme/", "at least three parts"},  // a trailing '/' is dropped, as from an address
      {"github.com/acme//", "at least three parts"},
      {"github.com//widgets", "the owner has an empty part"},
      {"gitlab.com/group//project", "the owner has an empty part"},
      {"gitlab.com/group//sub/project", "the owner has an empty part"},
      {"gitlab.com//group/project", "the owner has an empty part"},
  };
  for (const auto& [text, reason] : cases) {
    try {
      Repo::parse(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const trunk::ValidationError& error) {
      ASSERT_EQ(error.violations().size(), 1U);
      EXPECT_EQ(error.violations()[0].field, "repo");
      EXPECT_EQ(error.violations()[0].value, std::string("\"") + text + "\"");
      EXPECT_NE(error.violations()[0].rule.find(reason), std::string::npos) << error.what();
      EXPECT_NE(error.violations()[0].rule.find("host/owner/name"), std::string::npos);
    }
  }
}

TEST(RepoParse, ReadsTheAddressOfARepositorysPage) {
  const Repo storefront{"github.com", "acme", "storefront"};
  for (const char* text : {"https://github.com/acme/storefront", "http://github.com/acme/storefront",
                           "HTTPS://github.com/acme/storefront", "https://github.com/acme/storefront/",
                           "https://github.com/acme/storefront.git", "https://github.com/acme/storefront.git/",
                           "github.com/acme/storefront.git", "github.com/acme/storefront/"}) {
    EXPECT_EQ(Repo::parse(text), storefront) << text;
  }
  EXPECT_EQ(Repo::parse("https://gitlab.com/group/sub/project.git"), (Repo{"gitlab.com", "group/sub", "project"}));
  EXPECT_EQ(Repo::parse("github.com/acme/widgets.git.git"), (Repo{"github.com", "acme", "widgets.git"}));  // one
  EXPECT_EQ(Repo::parse("github.com/acme/.git").name, ".git");  // never stripped to nothing
}

TEST(RepoParse, RefusesAddressesThatNameNoRepository) {
  const std::pair<const char*, const char*> cases[] = {
      {"ssh://git@github.com/acme/storefront", "only https:// and http://"},
      {"ftp://github.com/acme/storefront", "only https:// and http://"},
      {"https://github.com/acme/storefront?tab=readme", "query or fragment"},
      {"https://github.com/acme/storefront#readme", "query or fragment"},
      {"https://github.com/acme/storefront/pull/42", "exactly three parts"},
      {"GitHub.com/acme/storefront/tree/main", "exactly three parts"},
      {"https://github.com/acme", "at least three parts"},
      {"https:///acme/storefront", "the host is empty"},
  };
  for (const auto& [text, reason] : cases) {
    try {
      Repo::parse(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const trunk::ValidationError& error) {
      ASSERT_EQ(error.violations().size(), 1U);
      EXPECT_EQ(error.violations()[0].field, "repo");
      EXPECT_EQ(error.violations()[0].value, std::string("\"") + text + "\"");
      EXPECT_NE(error.violations()[0].rule.find(reason), std::string::npos) << error.what();
    }
  }
}

TEST(RepoParse, NeverRepeatsACredentialOfAnAddress) {
  for (const char* text : {"https://bot:ghp_secret@github.com/acme/storefront.git", "https://ghp_secret@github.com/a/b",
                           "git@github.com:acme/storefront.git"}) {
    try {
      Repo::parse(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const trunk::ValidationError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.find("ghp_secret"), std::string::npos) << message;
      EXPECT_EQ(message.find("bot:"), std::string::npos) << message;
      EXPECT_NE(error.violations()[0].value.find("***@github.com"), std::string::npos) << error.violations()[0].value;
      EXPECT_NE(error.violations()[0].rule.find("credential"), std::string::npos);
    }
  }
}

}  // namespace
