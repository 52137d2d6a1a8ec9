#pragma once
// Which CA certificates the client verifies servers against, chosen once per client (docs/install.md#ca-certificates).
//
// A libcurl finds the system's certificates where its build was told they are: Debian's libcurl looks in Debian's
// place, and the wheels' own libcurl has no place compiled in at all (scripts/lib/static-deps.sh), because one wheel
// runs on Debian, Fedora, SUSE and Alpine, which keep the bundle in different files. So the client chooses, by one
// rule, the first that applies:
//   1. the `ca_bundle` option;
//   2. OpenSSL's own variables, SSL_CERT_FILE (a bundle) and SSL_CERT_DIR (a hashed directory), as Python's ssl,
//      curl's command and Go honour them;
//   3. the first of the distributions' bundle files (kSystemBundles) that exists;
//   4. none: libcurl's and OpenSSL's compiled-in defaults.
// The rule is pure (the environment and the file system are arguments) so that its tests need neither.

#include <array>
#include <functional>
#include <string>
#include <string_view>

namespace trunk::detail {

/// The distributions' CA bundle files, in the order tried.
inline constexpr std::array<std::string_view, 6> kSystemBundles{
    "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Arch, Gentoo
    "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL and its rebuilds
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7 and later, where the above is missing
    "/etc/ssl/ca-bundle.pem",                             // openSUSE, SLES
    "/etc/ssl/cert.pem",                                  // Alpine, and the BSD-like layouts
    "/etc/pki/tls/cacert.pem",                            // OpenELEC
};

struct TlsTrust {
  std::string ca_file;  ///< CURLOPT_CAINFO; empty: not set
  std::string ca_dir;   ///< CURLOPT_CAPATH; empty: not set
  /// Where they came from, for the message of a failed verification ("the system's bundle /etc/...").
  std::string source;
};

struct TlsTrustInputs {
  std::string_view ca_bundle;                                      ///< the option
  std::function<const char*(const char*)> environment;            ///< getenv
  std::function<bool(std::string_view path)> is_readable_file;  ///< the bundle files' test
};

TlsTrust choose_tls_trust(const TlsTrustInputs& inputs);

/// choose_tls_trust with the process's environment and file system.
TlsTrust choose_tls_trust(std::string_view ca_bundle);

}  // namespace trunk::detail
