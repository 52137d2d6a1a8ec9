#pragma once
// What this build of the library speaks HTTP with: the libcurl it links, that libcurl's TLS library, protocols and
// features, and where a client takes its CA certificates from. For bug reports (`trunk-api --version`), and for
// checking that a wheel carries the lean stack it should (docs/install.md#whats-inside-a-wheel).

#include <string>
#include <vector>

namespace trunk {

struct HttpStack {
  std::string libcurl;                 ///< its version, "7.88.1"
  std::string tls;                     ///< its TLS library and version, "OpenSSL/3.0.19"
  std::string zlib;                    ///< zlib's version; empty: built without (no gzip answers)
  std::vector<std::string> protocols;  ///< the URL schemes it speaks, "http", "https"
  std::vector<std::string> features;   ///< libcurl's names of what it was built with, "SSL", "libz", "HTTP2"...
  /// Where a client made now without `ca_bundle` takes its CA certificates from (docs/install.md#ca-certificates).
  std::string ca_certificates;
};

/// Read from the libcurl the process runs with (not the headers it was compiled against).
HttpStack http_stack();

}  // namespace trunk
