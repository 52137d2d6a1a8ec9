// The rule that chooses the client's CA certificates (tls_trust.hpp), on a made-up environment and file system.
#include "tls_trust.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace trunk::detail {
namespace {

struct FakeMachine {
  std::map<std::string, std::string> variables;
  std::set<std::string, std::less<>> files;

  TlsTrust choose(std::string_view ca_bundle = {}) const {
    return choose_tls_trust({ca_bundle,
                             [this](const char* name) -> const char* {
                               const auto found = variables.find(name);
                               return found == variables.end() ? nullptr : found->second.c_str();
                             },
                             [this](std::string_view path) { return files.contains(path); }});
  }
};

TEST(TlsTrust, TheOptionWinsOverEverythingElse) {
  const FakeMachine machine{{{"SSL_CERT_FILE", "/env/ca.pem"}}, {"/etc/ssl/certs/ca-certificates.crt"}};
  const TlsTrust trust = machine.choose("/mine/ca.pem");
  EXPECT_EQ(trust.ca_file, "/mine/ca.pem");
  EXPECT_EQ(trust.ca_dir, "");
  EXPECT_EQ(trust.source, "ca_bundle /mine/ca.pem");
}

TEST(TlsTrust, OpenSslsVariablesComeBeforeTheSystemsBundle) {
  const FakeMachine file_only{{{"SSL_CERT_FILE", "/env/ca.pem"}}, {"/etc/ssl/certs/ca-certificates.crt"}};
  EXPECT_EQ(file_only.choose().ca_file, "/env/ca.pem");
  EXPECT_EQ(file_only.choose().source, "SSL_CERT_FILE /env/ca.pem");

  // A directory alone is used alone: the bundle file is not added beside it.
  const FakeMachine dir_only{{{"SSL_CERT_DIR", "/env/certs"}}, {"/etc/ssl/certs/ca-certificates.crt"}};
  EXPECT_EQ(dir_only.choose().ca_file, "");
  EXPECT_EQ(dir_only.choose().ca_dir, "/env/certs");
  EXPECT_EQ(dir_only.choose().source, "SSL_CERT_DIR /env/certs");

  const FakeMachine both{{{"SSL_CERT_FILE", "/env/ca.pem"}, {"SSL_CERT_DIR", "/env/certs"}}, {}};
  EXPECT_EQ(both.choose().ca_file, "/env/ca.pem");
  EXPECT_EQ(both.choose().ca_dir, "/env/certs");
  EXPECT_EQ(both.choose().source, "SSL_CERT_FILE /env/ca.pem and SSL_CERT_DIR /env/certs");
}

TEST(TlsTrust, AnEmptyVariableCountsAsUnset) {
  const FakeMachine machine{{{"SSL_CERT_FILE", ""}, {"SSL_CERT_DIR", ""}}, {"/etc/ssl/cert.pem"}};
  EXPECT_EQ(machine.choose().ca_file, "/etc/ssl/cert.pem");
}

TEST(TlsTrust, TheFirstSystemBundleThatExistsInTheOrderOfTheList) {
  // Each distribution's layout finds its own file.
  for (std::size_t i = 0; i < kSystemBundles.size(); ++i) {
    FakeMachine machine;
    for (std::size_t j = i; j < kSystemBundles.size(); ++j) machine.files.emplace(kSystemBundles[j]);
    const TlsTrust trust = machine.choose();
    EXPECT_EQ(trust.ca_file, kSystemBundles[i]);
    EXPECT_EQ(trust.ca_dir, "");
    EXPECT_EQ(trust.source, "the system's bundle " + std::string(kSystemBundles[i]));
  }
}

TEST(TlsTrust, NoBundleAnywhereLeavesLibcurlsDefaultAndSaysSo) {
  const TlsTrust trust = FakeMachine{}.choose();
  EXPECT_EQ(trust.ca_file, "");
  EXPECT_EQ(trust.ca_dir, "");
  EXPECT_NE(trust.source.find("none of the usual system bundles exists"), std::string::npos) << trust.source;
}

}  // namespace
}  // namespace trunk::detail
