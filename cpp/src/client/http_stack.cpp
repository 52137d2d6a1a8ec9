#include "trunk/http_stack.hpp"

#include <curl/curl.h>

#include "curl_handles.hpp"
#include "tls_trust.hpp"

namespace trunk {

HttpStack http_stack() {
  detail::ensure_curl_initialized();  // curl_version_info is safe only after curl_global_init
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  HttpStack stack;
  const auto text = [](const char* value) { return value ? std::string(value) : std::string(); };
  stack.libcurl = text(info->version);
  stack.tls = text(info->ssl_version);
  stack.zlib = text(info->libz_version);
  for (const char* const* protocol = info->protocols; protocol && *protocol; ++protocol) {
    stack.protocols.emplace_back(*protocol);
  }
#if CURL_AT_LEAST_VERSION(7, 87, 0)
  if (info->age >= CURLVERSION_ELEVENTH) {
    for (const char* const* feature = info->feature_names; feature && *feature; ++feature) {
      stack.features.emplace_back(*feature);
    }
  }
#endif
  stack.ca_certificates = detail::choose_tls_trust("").source;
  return stack;
}

}  // namespace trunk
