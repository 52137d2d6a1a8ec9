#pragma once
// The library's internal entry point to a Client's transfer engine: a request the library builds itself
// (an operation not wrapped yet, a GET of a text body) sent with everything the Client's own calls get -
// its headers and token, pooled connections, retry policy (the request's Repeat included), rate limit and
// interrupt check. Not installed, not part of the API; the white-box tests use it too.

#include <stop_token>
#include <string>

#include "transfer_engine.hpp"
#include "trunk/client.hpp"

namespace trunk::detail {

struct ClientInternals {
  /// The body of the 2xx answer to `request` (its url is absolute: client.base_url() + path), or throws what
  /// ended it. `stop` cancels it like the client's interrupt check does (CancelledError).
  static std::string send(Client& client, const HttpRequest& request, std::stop_token stop = {});
};

}  // namespace trunk::detail
