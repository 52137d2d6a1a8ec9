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
      {"github.com/acme/", "the name is empty"},
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

}  // namespace
