#pragma once
// cpp-httplib's Server with its per-connection loop replaced, so that a kept-alive connection never goes out
// of step with the client (issue 17). cpp-httplib 0.11 (Debian's split build) reads a request's body only when
// a handler of a body-carrying method wants it, and then in a way the sandbox cannot steer:
//   - GET, HEAD, OPTIONS, TRACE (and every early 400 of its own, e.g. multipart/form-data without boundary)
//     leave the body unread, and the next "request" on the connection starts inside that body;
//   - a POST with neither Content-Length nor chunked encoding is read "until the end of the connection", which
//     on a kept-alive connection means until the 5 s read timeout, then an empty 400;
//   - an unknown method fails its request-line parser (empty 400, headers left unread);
//   - bytes read ahead past one request are kept in a buffer dropped after that request (pipelining breaks).
// None of that is reachable through its hooks, but Server::process_and_close_socket is virtual and
// Server::process_request (the parse, route and answer of one request) is protected. So this class owns the
// connection: one buffered stream for the whole connection, the body framing of each request (RFC 9112 6.3)
// enforced by that stream, and after each answer the rest of an unread body discarded. When the framing
// cannot be followed (an invalid Content-Length, an unknown Transfer-Encoding, a request line or headers
// httplib refused, a body too large to discard), the answer says `Connection: close` and the connection ends
// after it, with a lingering close so that the client still reads the answer.

#include <httplib.h>

#include <string>

namespace trunk::sandbox {

class InStepServer : public httplib::Server {
 public:
  InStepServer();

  /// The methods cpp-httplib 0.11 dispatches to handlers; the others (TRACE, CONNECT, and those it does not
  /// know, which this server lets through its parser) reach only the pre-routing handler.
  static bool has_routes_for(const std::string& method);

 private:
  bool process_and_close_socket(socket_t sock) override;
};

}  // namespace trunk::sandbox
