#include "tls_trust.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace trunk::detail {

TlsTrust choose_tls_trust(const TlsTrustInputs& inputs) {
  TlsTrust trust;
  if (!inputs.ca_bundle.empty()) {
    trust.ca_file = inputs.ca_bundle;
    trust.source = "ca_bundle " + trust.ca_file;
    return trust;
  }
  const auto variable = [&](const char* name) -> std::string {
    const char* value = inputs.environment ? inputs.environment(name) : nullptr;
    return value ? value : "";
  };
  trust.ca_file = variable("SSL_CERT_FILE");
  trust.ca_dir = variable("SSL_CERT_DIR");
  if (!trust.ca_file.empty() || !trust.ca_dir.empty()) {
    trust.source = !trust.ca_file.empty() ? "SSL_CERT_FILE " + trust.ca_file : "";
    if (!trust.ca_dir.empty()) trust.source += (trust.source.empty() ? "" : " and ") + ("SSL_CERT_DIR " + trust.ca_dir);
    return trust;
  }
  for (const std::string_view path : kSystemBundles) {
    if (inputs.is_readable_file && inputs.is_readable_file(path)) {
      trust.ca_file = path;
      trust.source = "the system's bundle " + trust.ca_file;
      return trust;
    }
  }
  trust.source = "libcurl's built-in default (none of the usual system bundles exists)";
  return trust;
}

TlsTrust choose_tls_trust(std::string_view ca_bundle) {
  return choose_tls_trust({ca_bundle, [](const char* name) { return std::getenv(name); },
                           [](std::string_view path) {
                             std::error_code error;  // unreadable counts as absent
                             return std::filesystem::is_regular_file(std::filesystem::path(path), error);
                           }});
}

}  // namespace trunk::detail
